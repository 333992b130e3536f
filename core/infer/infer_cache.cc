#include "core/infer/infer_cache.h"

#include "core/common/hash.h"

namespace tessera {
namespace infer {
namespace {

size_t KeyHash(const op::OpDef& def, const std::vector<TensorMeta>& inputs,
               const op::AttrMap& attrs, const std::vector<SbpConstraint>& constraints) {
  size_t h = HashCombine(reinterpret_cast<size_t>(&def), attrs.Hash());
  for (const TensorMeta& m : inputs) h = HashCombine(h, m.Hash());
  for (const SbpConstraint& c : constraints) {
    h = HashCombine(h, (static_cast<size_t>(c.slot) << 1) | (c.is_output ? 1 : 0));
    h = HashCombine(h, c.nd_sbp.Hash());
  }
  return h;
}

}  // namespace

InferCache::InferCache(size_t capacity) : cache_(capacity) {}

Result<std::shared_ptr<const InferResult>> InferCache::GetOrInfer(
    const op::OpDef& def, const std::vector<TensorMeta>& inputs, const op::AttrMap& attrs,
    const std::vector<SbpConstraint>& constraints) {
  const size_t hash = KeyHash(def, inputs, attrs, constraints);
  const Probe probe{def, inputs, attrs, constraints};
  if (std::shared_ptr<const InferResult>* hit = cache_.Find(hash, probe)) return *hit;
  TESS_ASSIGN_OR_RETURN(InferResult computed, InferSignature(def, inputs, attrs, constraints));
  return cache_.Put(hash, probe, std::make_shared<const InferResult>(std::move(computed)));
}

InferCache::Stats InferCache::stats() const { return cache_.stats(); }

void InferCache::Clear() { cache_.Clear(); }

static_assert(InferCache::kMaxCapacity <= LruCache<int, int>::kMaxCapacity,
              "InferCache::kMaxCapacity must be one LruCache holds");

void InferCache::SetCapacity(size_t capacity) { cache_.SetCapacity(capacity); }

InferCache& ThreadLocalInferCache() {
  thread_local InferCache cache;
  return cache;
}

}  // namespace infer
}  // namespace tessera
