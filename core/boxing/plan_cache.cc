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

bool PlanCache::Entry::Matches(const PlanKeyRef& key) const {
  return shape == key.shape && dtype == key.dtype && src == key.src && dst == key.dst &&
         src_placement == key.src_placement && dst_placement == key.dst_placement;
}

PlanCache& PlanCache::Global() {
  static PlanCache* cache = new PlanCache;  // outlives static destructors
  return *cache;
}

PlanCache::List::iterator PlanCache::Lookup(const PlanKeyRef& key, size_t hash) {
  auto range = index_.equal_range(hash);
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second->Matches(key)) return it->second;
  }
  return lru_.end();
}

bool PlanCache::Find(const PlanKeyRef& key, size_t hash, CachedBoxing* out) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = Lookup(key, hash);
  if (it == lru_.end()) {
    ++misses_;
    return false;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it);  // relinks; no allocation
  *out = it->value;
  return true;
}

void PlanCache::Put(const PlanKeyRef& key, size_t hash, const CachedBoxing& value) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = Lookup(key, hash);
  if (it != lru_.end()) {
    it->value = value;
    lru_.splice(lru_.begin(), lru_, it);
    return;
  }
  if (lru_.size() >= capacity_) {
    auto last = std::prev(lru_.end());
    auto range = index_.equal_range(last->hash);
    for (auto i = range.first; i != range.second; ++i) {
      if (i->second == last) {
        index_.erase(i);
        break;
      }
    }
    lru_.erase(last);
    ++evictions_;
  }
  lru_.push_front(Entry{hash, key.shape, key.dtype, key.src_placement, key.src, key.dst_placement,
                        key.dst, value});
  index_.emplace(hash, lru_.begin());
}

PlanCache::Stats PlanCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats s;
  s.hits = hits_;
  s.misses = misses_;
  s.evictions = evictions_;
  s.size = lru_.size();
  s.capacity = capacity_;
  return s;
}

void PlanCache::DropAll() {
  index_.clear();
  lru_.clear();
  generation_.fetch_add(1, std::memory_order_release);
}

void PlanCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  DropAll();
  hits_ = misses_ = evictions_ = 0;
}

void PlanCache::SetCapacity(size_t capacity) {
  std::lock_guard<std::mutex> lock(mu_);
  DropAll();
  capacity_ = capacity < 1 ? 1 : capacity;
}

}  // namespace tessera::boxing
