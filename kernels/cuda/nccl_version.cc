#include "kernels/cuda/nccl_version.h"

#include <nccl.h>

#include <string>

namespace tessera {
namespace kernels {
namespace cuda {

Result<int> NcclVersion() {
  int version = 0;
  const ncclResult_t result = ncclGetVersion(&version);
  if (result != ncclSuccess) {
    return Internal(std::string("ncclGetVersion failed: ") + ncclGetErrorString(result));
  }
  return version;
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
