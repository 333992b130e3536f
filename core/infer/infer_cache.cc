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

InferCache::InferCache(size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

int32_t InferCache::Find(size_t hash, const op::OpDef& def, const std::vector<TensorMeta>& inputs,
                         const op::AttrMap& attrs,
                         const std::vector<SbpConstraint>& constraints) const {
  if (buckets_.empty()) return -1;
  for (int32_t e = buckets_[hash & (buckets_.size() - 1)]; e >= 0; e = entries_[e].chain) {
    const Entry& x = entries_[e];
    if (x.hash == hash && x.def == &def && x.inputs == inputs && x.attrs == attrs &&
        x.constraints == constraints) {
      return e;
    }
  }
  return -1;
}

void InferCache::Unlink(int32_t e) {
  Entry& x = entries_[e];
  if (x.prev >= 0) {
    entries_[x.prev].next = x.next;
  } else {
    head_ = x.next;
  }
  if (x.next >= 0) {
    entries_[x.next].prev = x.prev;
  } else {
    tail_ = x.prev;
  }
  x.prev = x.next = -1;
}

void InferCache::PushFront(int32_t e) {
  Entry& x = entries_[e];
  x.prev = -1;
  x.next = head_;
  if (head_ >= 0) entries_[head_].prev = e;
  head_ = e;
  if (tail_ < 0) tail_ = e;
}

void InferCache::RemoveFromBucket(int32_t e) {
  int32_t* link = &buckets_[entries_[e].hash & (buckets_.size() - 1)];
  while (*link != e) link = &entries_[*link].chain;
  *link = entries_[e].chain;
  entries_[e].chain = -1;
}

Result<std::shared_ptr<const InferResult>> InferCache::GetOrInfer(
    const op::OpDef& def, const std::vector<TensorMeta>& inputs, const op::AttrMap& attrs,
    const std::vector<SbpConstraint>& constraints) {
  const size_t hash = KeyHash(def, inputs, attrs, constraints);
  int32_t e = Find(hash, def, inputs, attrs, constraints);
  if (e >= 0) {
    ++hits_;
    if (e != head_) {
      Unlink(e);
      PushFront(e);
    }
    return entries_[e].result;
  }
  ++misses_;
  TESS_ASSIGN_OR_RETURN(InferResult computed, InferSignature(def, inputs, attrs, constraints));
  auto result = std::make_shared<const InferResult>(std::move(computed));

  if (buckets_.empty()) {
    size_t n = 1;
    while (n < 2 * capacity_) n <<= 1;
    buckets_.assign(n, -1);
    entries_.reserve(capacity_);
  }
  if (entries_.size() < capacity_) {
    e = static_cast<int32_t>(entries_.size());
    entries_.emplace_back();
  } else {
    e = tail_;  // least recently used
    Unlink(e);
    RemoveFromBucket(e);
    ++evictions_;
  }
  Entry& x = entries_[e];
  x.hash = hash;
  x.def = &def;
  x.attrs = attrs;
  x.inputs = inputs;
  x.constraints = constraints;
  x.result = result;
  int32_t& bucket = buckets_[hash & (buckets_.size() - 1)];
  x.chain = bucket;
  bucket = e;
  PushFront(e);
  return result;
}

InferCache::Stats InferCache::stats() const {
  Stats s;
  s.hits = hits_;
  s.misses = misses_;
  s.evictions = evictions_;
  s.size = entries_.size();
  s.capacity = capacity_;
  return s;
}

void InferCache::Clear() {
  SetCapacity(capacity_);
  hits_ = misses_ = evictions_ = 0;
}

void InferCache::SetCapacity(size_t capacity) {
  capacity_ = capacity < 1 ? 1 : capacity;
  entries_.clear();
  entries_.shrink_to_fit();
  buckets_.clear();
  buckets_.shrink_to_fit();
  head_ = tail_ = -1;
}

InferCache& ThreadLocalInferCache() {
  thread_local InferCache cache;
  return cache;
}

}  // namespace infer
}  // namespace tessera
