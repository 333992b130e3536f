// The CUDA device a rank of the cuda tests should be on, computed by the test itself
// from the launcher's local rank: local_rank % device count (DESIGN.md).
#ifndef TESSERA_TESTS_EAGER_CUDA_TEST_DEVICE_H_
#define TESSERA_TESTS_EAGER_CUDA_TEST_DEVICE_H_

#include <cuda_runtime.h>

#include <cstdlib>

namespace tessera {
namespace eager_test {

// -1 when no device is visible.
inline int ExpectedDevice() {
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  const int local_rank = local != nullptr && *local != '\0' ? std::atoi(local) : 0;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return count > 0 ? local_rank % count : -1;
}

}  // namespace eager_test
}  // namespace tessera

#endif  // TESSERA_TESTS_EAGER_CUDA_TEST_DEVICE_H_
