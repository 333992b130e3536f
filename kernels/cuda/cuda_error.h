// cudaError_t -> Status, shared by every caller of the CUDA runtime (kernels, allocators,
// the NCCL backend) so CUDA failures read the same everywhere.
#ifndef TESSERA_KERNELS_CUDA_CUDA_ERROR_H_
#define TESSERA_KERNELS_CUDA_CUDA_ERROR_H_

#include <cuda_runtime.h>

#include <string>

#include "core/common/status.h"

namespace tessera {
namespace kernels {
namespace cuda {

// "<call> failed: cudaErrorMemoryAllocation (out of memory)". Running out of memory is
// RESOURCE_EXHAUSTED so callers can tell it from a broken device or driver; everything else
// is INTERNAL.
Status CudaError(const std::string& call, cudaError_t err);

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_CUDA_CUDA_ERROR_H_
