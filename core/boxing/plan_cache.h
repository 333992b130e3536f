// The process-wide LRU cache of boxing plans, keyed by (shape, dtype, src placement,
// src nd-sbp, dst placement, dst nd-sbp). Next to each plan it keeps the calling
// process's rank program (what this rank does in each step), built on the first Box.
//
// A hit allocates nothing: the key is hashed from the caller's values in place
// (inline Shape and NdSbp, the placements' precomputed hashes) and compared field by
// field, and the values are shared immutable handles. The cache is guarded by one
// mutex; Box reaches it only on a miss of its thread's small front cache (boxing.cc),
// so a steady stream of boxings takes no lock here.
#ifndef TESSERA_CORE_BOXING_PLAN_CACHE_H_
#define TESSERA_CORE_BOXING_PLAN_CACHE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "core/boxing/boxing_layouts.h"
#include "core/boxing/boxing_plan.h"
#include "core/common/cache_stats.h"
#include "core/common/dtype.h"
#include "core/common/lru_cache.h"
#include "core/common/shape.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera::boxing {

class RankProgram;

// Borrowed views of a cache key's values; the cache copies them on insertion.
struct PlanKeyRef {
  const Shape& shape;
  DType dtype;
  const Placement& src_placement;
  const NdSbp& src;
  const Placement& dst_placement;
  const NdSbp& dst;

  static PlanKeyRef Of(const BoxingLayouts& layouts) {
    return PlanKeyRef{layouts.shape(), layouts.dtype(),         layouts.src_placement(),
                      layouts.src(),   layouts.dst_placement(), layouts.dst()};
  }
  size_t Hash() const;
};

struct CachedBoxing {
  std::shared_ptr<const BoxingPlan> plan;
  std::shared_ptr<const RankProgram> program;  // null until Box ran the plan here
};

class PlanCache {
 public:
  static constexpr size_t kDefaultCapacity = 1024;

  explicit PlanCache(size_t capacity = kDefaultCapacity) : cache_(capacity) {}
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;

  // The process-wide cache.
  static PlanCache& Global();

  // True and `*out` set on a hit (which becomes the most recent entry).
  bool Find(const PlanKeyRef& key, size_t hash, CachedBoxing* out);
  // Inserts or replaces the entry for `key`, evicting the least recent when full.
  void Put(const PlanKeyRef& key, size_t hash, const CachedBoxing& value);

  using Stats = CacheStats;
  Stats stats() const;
  // Drops every entry and zeroes the counters.
  void Clear();
  // Drops every entry (counters kept) and sets a new capacity (>= 1).
  void SetCapacity(size_t capacity);
  // Changes whenever Clear or SetCapacity drops entries, so front caches built on
  // this one know to drop theirs.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

 private:
  // The stored copy of a key.
  struct Key {
    explicit Key(const PlanKeyRef& k)
        : shape(k.shape),
          dtype(k.dtype),
          src_placement(k.src_placement),
          src(k.src),
          dst_placement(k.dst_placement),
          dst(k.dst) {}
    bool Matches(const PlanKeyRef& key) const;

    Shape shape;
    DType dtype;
    Placement src_placement;
    NdSbp src;
    Placement dst_placement;
    NdSbp dst;
  };

  mutable std::mutex mu_;
  LruCache<Key, CachedBoxing> cache_;  // guarded by mu_
  std::atomic<uint64_t> generation_{0};
};

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_PLAN_CACHE_H_
