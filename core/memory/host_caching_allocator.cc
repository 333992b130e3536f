#include "core/memory/caching_allocator.h"
#include "core/memory/host_allocator.h"

namespace tessera {
namespace memory {
namespace {

SystemHostAllocator& SystemHost() {
  // Leaked on purpose (see caching_allocator.h); it stays reachable, so LeakSanitizer is quiet.
  static SystemHostAllocator* const system = new SystemHostAllocator();
  return *system;
}

}  // namespace

CachingAllocator& HostCachingAllocator() {
  static CachingAllocator* const caching = new CachingAllocator(&SystemHost());
  return *caching;
}

CachingAllocator& ThreadHostCachingAllocator() {
  // Never destroyed: a Buffer may outlive the thread that allocated it and is freed back
  // into this instance from whichever thread drops it.
  thread_local CachingAllocator* const caching = new CachingAllocator(&SystemHost());
  return *caching;
}

}  // namespace memory
}  // namespace tessera
