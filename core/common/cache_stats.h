// The counters every Tessera lookup cache reports (the inference cache, the boxing plan
// cache), so that tools and tests read them the same way.
#ifndef TESSERA_CORE_COMMON_CACHE_STATS_H_
#define TESSERA_CORE_COMMON_CACHE_STATS_H_

#include <cstddef>
#include <cstdint>

namespace tessera {

struct CacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t evictions = 0;
  size_t size = 0;      // entries held now
  size_t capacity = 0;  // entries held at most
};

}  // namespace tessera

#endif  // TESSERA_CORE_COMMON_CACHE_STATS_H_
