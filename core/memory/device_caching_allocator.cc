#include "core/memory/device_caching_allocator.h"

#include <atomic>
#include <memory>
#include <mutex>

#include "core/memory/cuda_device_allocator.h"

namespace tessera {
namespace memory {
namespace {

// More devices than any node has; the table is fixed-size so lookups never see it move.
constexpr int kMaxDevices = 64;

// Published allocators, read without a lock: once set, an entry never changes.
std::atomic<CachingAllocator*> g_allocators[kMaxDevices];

}  // namespace

Result<CachingAllocator*> DeviceCachingAllocator(int device) {
  if (device >= 0 && device < kMaxDevices) {
    CachingAllocator* ready = g_allocators[device].load(std::memory_order_acquire);
    if (ready != nullptr) return ready;
  }
  TESS_RETURN_IF_ERROR(CheckCudaDevice("DeviceCachingAllocator", device));
  if (device >= kMaxDevices) {
    return OutOfRange("DeviceCachingAllocator(device=" + std::to_string(device) + "): at most " +
                      std::to_string(kMaxDevices) + " devices are supported");
  }
  // Creation only: serializes first uses so each device gets exactly one allocator.
  static std::mutex* const create_mu = new std::mutex();
  std::lock_guard<std::mutex> lock(*create_mu);
  CachingAllocator* existing = g_allocators[device].load(std::memory_order_acquire);
  if (existing != nullptr) return existing;
  TESS_ASSIGN_OR_RETURN(std::unique_ptr<CudaDeviceAllocator> system,
                        CudaDeviceAllocator::Create(device));
  // Leaked on purpose, like HostCachingAllocator(): Buffers may be freed during static
  // destruction. Both stay reachable through the table.
  CachingAllocator* caching = new CachingAllocator(system.release());
  g_allocators[device].store(caching, std::memory_order_release);
  return caching;
}

}  // namespace memory
}  // namespace tessera
