// cudaError_t -> Status, shared by every caller of the CUDA runtime (kernels, allocators,
// the NCCL backend) so CUDA failures read the same everywhere.
#ifndef TESSERA_CORE_DEVICE_CUDA_ERROR_H_
#define TESSERA_CORE_DEVICE_CUDA_ERROR_H_

#include <cuda_runtime.h>

#include <string>

#include "core/common/status.h"

namespace tessera {
namespace device {

// "<call> failed: cudaErrorMemoryAllocation (out of memory)". Running out of memory is
// RESOURCE_EXHAUSTED so callers can tell it from a broken device or driver; everything else
// is INTERNAL.
Status CudaError(const std::string& call, cudaError_t err);

}  // namespace device
}  // namespace tessera

#endif  // TESSERA_CORE_DEVICE_CUDA_ERROR_H_
