// DeviceScope: makes a CUDA device the calling thread's current device for a scope and
// restores the previous one on destruction, so library code never changes what the
// caller's own CUDA calls use. Costs a cudaGetDevice (and a cudaSetDevice only when the
// device differs); allocates nothing.
#ifndef TESSERA_CORE_DEVICE_DEVICE_SCOPE_H_
#define TESSERA_CORE_DEVICE_DEVICE_SCOPE_H_

#include <cuda_runtime.h>

#include <string>

#include "core/common/status.h"
#include "core/device/cuda_error.h"

namespace tessera {
namespace device {

class DeviceScope {
 public:
  DeviceScope() = default;
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  ~DeviceScope() {
    if (switched_) cudaSetDevice(previous_);
  }

  // Call once per scope.
  Status Enter(int device) {
    cudaError_t err = cudaGetDevice(&previous_);
    if (err != cudaSuccess) return CudaError("cudaGetDevice", err);
    if (previous_ == device) return Status::Ok();
    err = cudaSetDevice(device);
    if (err != cudaSuccess) return CudaError("cudaSetDevice(" + std::to_string(device) + ")", err);
    switched_ = true;
    return Status::Ok();
  }

 private:
  int previous_ = 0;
  bool switched_ = false;
};

}  // namespace device
}  // namespace tessera

#endif  // TESSERA_CORE_DEVICE_DEVICE_SCOPE_H_
