#include "core/memory/caching_allocator.h"
#include "core/memory/host_allocator.h"

namespace tessera {
namespace memory {

CachingAllocator& HostCachingAllocator() {
  // Leaked on purpose (see caching_allocator.h); both stay reachable, so LeakSanitizer is quiet.
  static SystemHostAllocator* const system = new SystemHostAllocator();
  static CachingAllocator* const caching = new CachingAllocator(system);
  return *caching;
}

}  // namespace memory
}  // namespace tessera
