#include "core/memory/host_allocator.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace tessera {
namespace memory {

Result<void*> SystemHostAllocator::SystemAllocate(size_t bytes, size_t alignment) {
  void* ptr = nullptr;
  const size_t effective = alignment < kDefaultAlignment ? kDefaultAlignment : alignment;
  const int err = posix_memalign(&ptr, effective, bytes);
  if (err == ENOMEM) {
    return Status(StatusCode::kResourceExhausted, "posix_memalign failed: ENOMEM");
  }
  if (err != 0) {
    return Internal("posix_memalign(alignment=" + std::to_string(effective) +
                    ") failed: " + std::strerror(err));
  }
  return ptr;
}

Status SystemHostAllocator::SystemFree(void* ptr) {
  std::free(ptr);
  return Status::Ok();
}

}  // namespace memory
}  // namespace tessera
