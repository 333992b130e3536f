// tess_allocator_get_stats: the host caching allocators' counters.
#include <string>

#include "capi/src/capi_error.h"
#include "capi/src/struct_args.h"
#include "core/memory/caching_allocator.h"
#include "tessera/tessera.h"

extern "C" {

tess_status tess_allocator_get_stats(tess_allocator_stats* out, tess_allocator allocator) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_BEGIN
  tessera::memory::AllocatorStats s;
  if (allocator == TESS_ALLOCATOR_HOST) {
    s = tessera::memory::HostCachingAllocator().stats();
  } else if (allocator == TESS_ALLOCATOR_HOST_THREAD) {
    s = tessera::memory::ThreadHostCachingAllocator().stats();
  } else {
    return tessera::capi::Report(tessera::InvalidArgument(
        std::string(__func__) + ": allocator " + std::to_string(allocator) +
        " is not a known allocator (TESS_ALLOCATOR_HOST 0, TESS_ALLOCATOR_HOST_THREAD 1)"));
  }
  tess_allocator_stats full = TESS_ALLOCATOR_STATS_INIT;
  full.bytes_in_use = s.bytes_in_use;
  full.peak_bytes_in_use = s.peak_bytes_in_use;
  full.bytes_reserved = s.bytes_reserved;
  full.num_allocs = s.num_allocs;
  full.num_frees = s.num_frees;
  full.num_cache_hits = s.num_cache_hits;
  full.num_system_allocs = s.num_system_allocs;
  full.num_system_frees = s.num_system_frees;
  full.num_segments = s.num_segments;
  return tessera::capi::Report(
      tessera::capi::WriteStats(__func__, "out", "tess_allocator_stats", full,
                                TESS_STRUCT_SIZE_UP_TO(tess_allocator_stats, num_segments), out));
  TESS_CAPI_END
}

}  // extern "C"
