// cuda_device.h in a build without CUDA: cuda placements hold no eager tensors, and
// every entry point says why and how to get a build that does.
#include <string>

#include "core/tensor/cuda_device.h"

namespace tessera {
namespace tensor {
namespace {

Status NoCuda(const std::string& what) {
  return Unimplemented(what + ": this Tessera was built without CUDA (build with --config=cuda)");
}

}  // namespace

Status CheckDeviceBuild(const Placement& placement) {
  if (placement.device_type() == DeviceType::kCpu) return Status::Ok();
  return Unimplemented("eager tensors on " + placement.ToString() +
                       ": this Tessera was built without CUDA, so only cpu placements hold "
                       "eager tensors (build with --config=cuda)");
}

Result<const CudaDevice*> LocalCudaDevice() { return NoCuda("the rank's CUDA device"); }

Status CopyHostToDevice(const CudaDevice&, void*, const void*, size_t) {
  return NoCuda("a host to device copy");
}

Status CopyDeviceToHost(const CudaDevice&, void*, const void*, size_t) {
  return NoCuda("a device to host copy");
}

Status CopyDeviceToDevice(const CudaDevice&, void*, const void*, size_t) {
  return NoCuda("a device to device copy");
}

Status SynchronizeDevice(const CudaDevice&) { return NoCuda("a device synchronization"); }

Status RunCudaKernel(const CudaDevice&, kernels::KernelFn, kernels::KernelContext* ctx) {
  return NoCuda(std::string(ctx != nullptr && ctx->def != nullptr ? ctx->def->name() : "op") +
                "'s cuda kernel");
}

Status CopyForeignDeviceToHost(int device, const void*, size_t, void*) {
  return NoCuda("a copy from CUDA device " + std::to_string(device) + "'s memory");
}

}  // namespace tensor
}  // namespace tessera
