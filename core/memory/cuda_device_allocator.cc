#include "core/memory/cuda_device_allocator.h"

#include <cuda_runtime.h>

#include <string>

#include "core/device/cuda_error.h"
#include "core/device/device.h"

namespace tessera {
namespace memory {
namespace {

// cudaMalloc and friends also record their error for cudaGetLastError; clearing it keeps a
// later kernel-launch check from reporting it as its own. Out of memory stays
// RESOURCE_EXHAUSTED (CudaError's mapping), which CachingAllocator answers by releasing
// its cache and retrying.
Status FromCuda(const char* call, cudaError_t err) {
  cudaGetLastError();
  return device::CudaError(call, err);
}

// Makes `device` current for one allocator call and restores the caller's device after.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device) {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
    status_ = previous_ == device ? cudaSuccess : cudaSetDevice(device);
  }
  ~ScopedDevice() {
    if (previous_ >= 0 && status_ == cudaSuccess) cudaSetDevice(previous_);
  }
  cudaError_t status() const { return status_; }

 private:
  int previous_ = -1;
  cudaError_t status_ = cudaSuccess;
};

}  // namespace

Status CheckCudaDevice(const char* where, int device) {
  const std::string prefix = std::string(where) + "(device=" + std::to_string(device) + ")";
  if (device < 0) return InvalidArgument(prefix + ": the device index must be >= 0");
  TESS_ASSIGN_OR_RETURN(const int count, device::DeviceCount());
  if (count == 0) return FailedPrecondition(prefix + ": no CUDA device visible");
  if (device >= count) {
    return OutOfRange(prefix + ": only " + std::to_string(count) + " CUDA device" +
                      (count == 1 ? " is" : "s are") + " visible");
  }
  return Status::Ok();
}

Result<std::unique_ptr<CudaDeviceAllocator>> CudaDeviceAllocator::Create(int device) {
  TESS_RETURN_IF_ERROR(CheckCudaDevice("CudaDeviceAllocator::Create", device));
  return std::unique_ptr<CudaDeviceAllocator>(new CudaDeviceAllocator(device));
}

Result<void*> CudaDeviceAllocator::SystemAllocate(size_t bytes, size_t /*alignment*/) {
  // Every alignment up to max_alignment() is met by cudaMalloc's own guarantee.
  ScopedDevice scoped(device_);
  if (scoped.status() != cudaSuccess) return FromCuda("cudaSetDevice", scoped.status());
  void* ptr = nullptr;
  const cudaError_t err = cudaMalloc(&ptr, bytes);
  if (err != cudaSuccess) return FromCuda("cudaMalloc", err);
  return ptr;
}

Status CudaDeviceAllocator::SystemFree(void* ptr) {
  ScopedDevice scoped(device_);
  if (scoped.status() != cudaSuccess) return FromCuda("cudaSetDevice", scoped.status());
  const cudaError_t err = cudaFree(ptr);
  if (err != cudaSuccess) return FromCuda("cudaFree", err);
  return Status::Ok();
}

}  // namespace memory
}  // namespace tessera
