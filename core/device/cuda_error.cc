#include "core/device/cuda_error.h"

#include <utility>

namespace tessera {
namespace device {

Status CudaError(const std::string& call, cudaError_t err) {
  std::string message =
      call + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
  if (err == cudaErrorMemoryAllocation) {
    return Status(StatusCode::kResourceExhausted, std::move(message));
  }
  return Internal(std::move(message));
}

}  // namespace device
}  // namespace tessera
