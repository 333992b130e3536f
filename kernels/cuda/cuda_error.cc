#include "kernels/cuda/cuda_error.h"

#include <utility>

namespace tessera {
namespace kernels {
namespace cuda {

Status CudaError(const std::string& call, cudaError_t err) {
  std::string message =
      call + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
  if (err == cudaErrorMemoryAllocation) {
    return Status(StatusCode::kResourceExhausted, std::move(message));
  }
  return Internal(std::move(message));
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
