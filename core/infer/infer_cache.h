// A bounded LRU cache of inference results keyed by (op, attrs, each input's shape,
// dtype, placement and nd-sbp, constraints).
//
// Concurrency choice: one cache per thread (ThreadLocalInferCache()). Tessera runs one
// process per rank, SPMD, and eager dispatch on a rank is driven by one thread, so a
// thread-local cache sees the same hit rate as a shared one while a hit touches no
// lock and no shared cache line. A sharded map would still lock a shard per hit, and
// a read-mostly (RCU-style) map makes inserts copy or defer frees. The price is a
// duplicate entry per extra thread that infers the same call, and statistics per
// thread. An InferCache object itself is not thread-safe.
//
// A hit allocates nothing: the key is hashed from the caller's values in place
// (inline Shape and NdSbp, the placement's precomputed hash, the attribute map's
// precomputed hash), compared field by field against the stored copy, and the
// result is an immutable shared handle. Unlike OneFlow, which clears the whole cache
// at 131072 entries, a full cache evicts its least recently used entry.
#ifndef TESSERA_CORE_INFER_INFER_CACHE_H_
#define TESSERA_CORE_INFER_INFER_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/common/cache_stats.h"
#include "core/common/lru_cache.h"
#include "core/common/status.h"
#include "core/infer/infer.h"
#include "core/infer/tensor_meta.h"
#include "core/op/attr.h"
#include "core/op/op_def.h"

namespace tessera {
namespace infer {

class InferCache {
 public:
  static constexpr size_t kDefaultCapacity = 4096;
  // The largest capacity (docs/c-api.md, "Limits"); LruCache clamps to it. Entries are
  // allocated as they are added, never in proportion to the capacity.
  static constexpr size_t kMaxCapacity = size_t{1} << 30;

  explicit InferCache(size_t capacity = kDefaultCapacity);
  InferCache(const InferCache&) = delete;
  InferCache& operator=(const InferCache&) = delete;

  // The cached result, or the result of InferSignature, stored (errors are not
  // cached). `def` must outlive the cache (registry ops live forever).
  Result<std::shared_ptr<const InferResult>> GetOrInfer(
      const op::OpDef& def, const std::vector<TensorMeta>& inputs, const op::AttrMap& attrs,
      const std::vector<SbpConstraint>& constraints = {});

  using Stats = CacheStats;
  Stats stats() const;

  // Drops every entry and zeroes the counters.
  void Clear();
  // Drops every entry (counters kept) and sets a new capacity, clamped to
  // [1, kMaxCapacity] (the C API refuses values outside it).
  void SetCapacity(size_t capacity);

 private:
  // Borrowed views of one call's key values.
  struct Probe {
    const op::OpDef& def;
    const std::vector<TensorMeta>& inputs;
    const op::AttrMap& attrs;
    const std::vector<SbpConstraint>& constraints;
  };
  // The stored copy of a key.
  struct Key {
    explicit Key(const Probe& p)
        : def(&p.def), attrs(p.attrs), inputs(p.inputs), constraints(p.constraints) {}
    bool Matches(const Probe& p) const {
      return def == &p.def && inputs == p.inputs && attrs == p.attrs &&
             constraints == p.constraints;
    }
    const op::OpDef* def;
    op::AttrMap attrs;
    std::vector<TensorMeta> inputs;
    std::vector<SbpConstraint> constraints;
  };

  LruCache<Key, std::shared_ptr<const InferResult>> cache_;
};

// The calling thread's cache (created on first use with the default capacity).
InferCache& ThreadLocalInferCache();

}  // namespace infer
}  // namespace tessera

#endif  // TESSERA_CORE_INFER_INFER_CACHE_H_
