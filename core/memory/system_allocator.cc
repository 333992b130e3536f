#include "core/memory/system_allocator.h"

#include <utility>

namespace tessera {
namespace memory {

std::string SystemAllocator::Where(const char* method) const {
  return class_name_ + "::" + method + " on " + DeviceName();
}

Result<void*> SystemAllocator::Allocate(size_t bytes, size_t alignment) {
  if (!IsPowerOfTwo(alignment) || alignment > max_alignment()) {
    return BadAlignment(Where("Allocate"), bytes, alignment, max_alignment());
  }
  // A zero-byte request gets a real one-byte allocation: unique, non-null, freeable.
  const size_t system_bytes = bytes == 0 ? 1 : bytes;
  Result<void*> ptr = SystemAllocate(system_bytes, alignment);
  if (!ptr.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    if (ptr.status().code() == StatusCode::kResourceExhausted) {
      return OutOfMemory(Where("Allocate"), bytes, alignment, ptr.status().message(), stats_);
    }
    return Status(ptr.status().code(), Where("Allocate") + " (bytes=" + std::to_string(bytes) +
                                           "): " + ptr.status().message());
  }
  std::lock_guard<std::mutex> lock(mu_);
  live_.Insert(*ptr, system_bytes);
  stats_.RecordAllocate(system_bytes);
  stats_.bytes_reserved = stats_.bytes_in_use;
  ++stats_.num_system_allocs;
  stats_.num_segments = live_.size();
  return *ptr;
}

Status SystemAllocator::Free(void* ptr) {
  if (ptr == nullptr) return Status::Ok();
  size_t bytes = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!live_.Erase(ptr, &bytes)) {
      return UnknownPointer(Where("Free"), ptr,
                            "is not a live allocation of this allocator (never allocated here, "
                            "or already freed)");
    }
    stats_.RecordFree(bytes);
    stats_.bytes_reserved = stats_.bytes_in_use;
    ++stats_.num_system_frees;
    stats_.num_segments = live_.size();
  }
  Status freed = SystemFree(ptr);
  if (!freed.ok()) {
    return Status(freed.code(), Where("Free") + " (" + PointerString(ptr) + ", " +
                                    std::to_string(bytes) + " bytes): " + freed.message());
  }
  return Status::Ok();
}

AllocatorStats SystemAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void SystemAllocator::ResetPeak() {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.peak_bytes_in_use = stats_.bytes_in_use;
}

}  // namespace memory
}  // namespace tessera
