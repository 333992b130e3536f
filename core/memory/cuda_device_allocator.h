// CudaDeviceAllocator: device memory straight from cudaMalloc/cudaFree on one device.
//
// Built only under --config=cuda. Each call makes `device` current for its duration and
// restores the caller's current device, so it is safe from any thread whatever device that
// thread works on. cudaMalloc guarantees 256-byte alignment, so that is max_alignment();
// CachingAllocator (see DeviceCachingAllocator) serves larger alignments by padding.
// cudaFree synchronizes the device, which is one more reason to free through the cache.
#ifndef TESSERA_CORE_MEMORY_CUDA_DEVICE_ALLOCATOR_H_
#define TESSERA_CORE_MEMORY_CUDA_DEVICE_ALLOCATOR_H_

#include <memory>

#include "core/memory/system_allocator.h"

namespace tessera {
namespace memory {

inline constexpr size_t kCudaMallocAlignment = 256;

class CudaDeviceAllocator final : public SystemAllocator {
 public:
  // `device` must be a visible device: INVALID_ARGUMENT when negative, OUT_OF_RANGE when
  // past the device count, FAILED_PRECONDITION when no device is visible.
  static Result<std::unique_ptr<CudaDeviceAllocator>> Create(int device);

  DeviceType device_type() const override { return DeviceType::kCuda; }
  int device_index() const override { return device_; }
  size_t max_alignment() const override { return kCudaMallocAlignment; }

 private:
  explicit CudaDeviceAllocator(int device)
      : SystemAllocator("CudaDeviceAllocator"), device_(device) {}

  Result<void*> SystemAllocate(size_t bytes, size_t alignment) override;
  Status SystemFree(void* ptr) override;

  const int device_;
};

// Checks that `device` names a visible CUDA device; `where` prefixes the message.
Status CheckCudaDevice(const char* where, int device);

}  // namespace memory
}  // namespace tessera

#endif  // TESSERA_CORE_MEMORY_CUDA_DEVICE_ALLOCATOR_H_
