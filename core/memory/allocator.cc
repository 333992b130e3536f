#include "core/memory/allocator.h"

#include <cstdio>
#include <string>

namespace tessera {
namespace memory {

std::string AllocatorStats::ToString() const {
  return "in_use=" + std::to_string(bytes_in_use) + " peak=" + std::to_string(peak_bytes_in_use) +
         " reserved=" + std::to_string(bytes_reserved) + " allocs=" + std::to_string(num_allocs) +
         " frees=" + std::to_string(num_frees) + " cache_hits=" + std::to_string(num_cache_hits) +
         " system_allocs=" + std::to_string(num_system_allocs) +
         " system_frees=" + std::to_string(num_system_frees) +
         " segments=" + std::to_string(num_segments);
}

std::string Allocator::DeviceName() const {
  std::string name = DeviceTypeName(device_type());
  if (device_type() != DeviceType::kCpu) name += ":" + std::to_string(device_index());
  return name;
}

std::string PointerString(const void* ptr) {
  char text[2 + 2 * sizeof(void*) + 1];
  std::snprintf(text, sizeof(text), "%p", ptr);
  return text;
}

Status BadAlignment(const std::string& where, size_t bytes, size_t alignment,
                    size_t max_alignment) {
  const std::string request =
      "(bytes=" + std::to_string(bytes) + ", alignment=" + std::to_string(alignment) + ")";
  if (!IsPowerOfTwo(alignment)) {
    return InvalidArgument(where + ": alignment must be a non-zero power of two " + request);
  }
  return InvalidArgument(where + ": alignment exceeds the largest supported, " +
                         std::to_string(max_alignment) + " " + request);
}

Status UnknownPointer(const std::string& where, const void* ptr, const std::string& detail) {
  return InvalidArgument(where + ": " + PointerString(ptr) + " " + detail);
}

Status OutOfMemory(const std::string& where, size_t bytes, size_t alignment,
                   const std::string& cause, const AllocatorStats& stats) {
  return Status(StatusCode::kResourceExhausted, where + ": out of memory allocating " +
                                                    std::to_string(bytes) + " bytes (alignment " +
                                                    std::to_string(alignment) + "): " + cause +
                                                    "; stats: " + stats.ToString());
}

}  // namespace memory
}  // namespace tessera
