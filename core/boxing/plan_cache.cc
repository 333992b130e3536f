#include "core/boxing/plan_cache.h"

#include "core/common/hash.h"

namespace tessera::boxing {

size_t PlanKeyRef::Hash() const {
  size_t h = shape.Hash();
  h = HashCombine(h, static_cast<size_t>(dtype));
  h = HashCombine(h, src_placement.Hash());
  h = HashCombine(h, src.Hash());
  h = HashCombine(h, dst_placement.Hash());
  return HashCombine(h, dst.Hash());
}

bool PlanCache::Key::Matches(const PlanKeyRef& key) const {
  return shape == key.shape && dtype == key.dtype && src == key.src && dst == key.dst &&
         src_placement == key.src_placement && dst_placement == key.dst_placement;
}

PlanCache& PlanCache::Global() {
  static PlanCache* cache = new PlanCache;  // outlives static destructors
  return *cache;
}

bool PlanCache::Find(const PlanKeyRef& key, size_t hash, CachedBoxing* out) {
  std::lock_guard<std::mutex> lock(mu_);
  const CachedBoxing* hit = cache_.Find(hash, key);
  if (hit == nullptr) return false;
  *out = *hit;
  return true;
}

void PlanCache::Put(const PlanKeyRef& key, size_t hash, const CachedBoxing& value) {
  std::lock_guard<std::mutex> lock(mu_);
  cache_.Put(hash, key, value);
}

PlanCache::Stats PlanCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cache_.stats();
}

void PlanCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  cache_.Clear();
  generation_.fetch_add(1, std::memory_order_release);
}

void PlanCache::SetCapacity(size_t capacity) {
  std::lock_guard<std::mutex> lock(mu_);
  cache_.SetCapacity(capacity);
  generation_.fetch_add(1, std::memory_order_release);
}

}  // namespace tessera::boxing
