// A bounded least-recently-used map, the one behind every Tessera lookup cache (the
// per-thread inference cache, the process-wide boxing plan cache).
//
// A hit allocates nothing: the caller hashes its key in place and passes a probe, a
// borrowed view of the key's values, which the stored key compares itself against
// (`key.Matches(probe)`), so no key object is built to look one up. Entries live in one
// vector and are linked by index (recency list and hash chains), so a hit relinks two
// integers and an eviction reuses the slot. Buckets grow with the entries held, not
// with the capacity, so a large capacity costs nothing until it is used.
//
// Not thread-safe: a shared cache wraps it in its own lock.
#ifndef TESSERA_CORE_COMMON_LRU_CACHE_H_
#define TESSERA_CORE_COMMON_LRU_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/common/cache_stats.h"

namespace tessera {

// Key: stored copy of a key, constructible from a Probe, with
// `bool Matches(const Probe&) const`. Value: copyable or movable.
template <typename Key, typename Value>
class LruCache {
 public:
  // Entries are indexed by int32_t.
  static constexpr size_t kMaxCapacity = size_t{1} << 30;

  // `capacity` is clamped to [1, kMaxCapacity].
  explicit LruCache(size_t capacity) : capacity_(Clamp(capacity)) {}

  // The value stored under a key matching `probe`, made the most recent entry, or null.
  // Counts a hit or a miss. The pointer is valid until the next Put, Clear or
  // SetCapacity.
  template <typename Probe>
  Value* Find(size_t hash, const Probe& probe) {
    const int32_t e = Lookup(hash, probe);
    if (e < 0) {
      ++misses_;
      return nullptr;
    }
    ++hits_;
    MakeMostRecent(e);
    return &slots_[e].value;
  }

  // Stores `value` under the key matching `probe` (replacing the value if one is there,
  // without counting a hit or miss), makes it the most recent entry and returns it.
  // A new key evicts the least recent entry when the cache is full.
  template <typename Probe>
  Value& Put(size_t hash, const Probe& probe, Value value) {
    int32_t e = Lookup(hash, probe);
    if (e >= 0) {
      slots_[e].value = std::move(value);
      MakeMostRecent(e);
      return slots_[e].value;
    }
    if (slots_.size() < capacity_) {
      e = static_cast<int32_t>(slots_.size());
      slots_.push_back(Slot{hash, Key(probe), std::move(value)});
      GrowBucketsIfNeeded();
    } else {
      e = tail_;  // least recently used
      Unlink(e);
      RemoveFromBucket(e);
      ++evictions_;
      slots_[e].hash = hash;
      slots_[e].key = Key(probe);
      slots_[e].value = std::move(value);
    }
    AddToBucket(e);
    PushFront(e);
    return slots_[e].value;
  }

  CacheStats stats() const {
    CacheStats s;
    s.hits = hits_;
    s.misses = misses_;
    s.evictions = evictions_;
    s.size = slots_.size();
    s.capacity = capacity_;
    return s;
  }

  // Drops every entry and zeroes the counters.
  void Clear() {
    DropAll();
    hits_ = misses_ = evictions_ = 0;
  }

  // Drops every entry (counters kept) and sets a new capacity, clamped to
  // [1, kMaxCapacity].
  void SetCapacity(size_t capacity) {
    capacity_ = Clamp(capacity);
    DropAll();
  }

 private:
  struct Slot {
    size_t hash;
    Key key;
    Value value;
    int32_t prev = -1;  // recency neighbours; head_ is the most recent
    int32_t next = -1;
    int32_t chain = -1;  // next slot in the same bucket
  };

  static size_t Clamp(size_t capacity) {
    return capacity < 1 ? 1 : (capacity > kMaxCapacity ? kMaxCapacity : capacity);
  }

  template <typename Probe>
  int32_t Lookup(size_t hash, const Probe& probe) const {
    if (buckets_.empty()) return -1;
    for (int32_t e = buckets_[hash & (buckets_.size() - 1)]; e >= 0; e = slots_[e].chain) {
      if (slots_[e].hash == hash && slots_[e].key.Matches(probe)) return e;
    }
    return -1;
  }

  void MakeMostRecent(int32_t e) {
    if (e == head_) return;
    Unlink(e);
    PushFront(e);
  }

  void Unlink(int32_t e) {
    Slot& x = slots_[e];
    (x.prev >= 0 ? slots_[x.prev].next : head_) = x.next;
    (x.next >= 0 ? slots_[x.next].prev : tail_) = x.prev;
    x.prev = x.next = -1;
  }

  void PushFront(int32_t e) {
    Slot& x = slots_[e];
    x.prev = -1;
    x.next = head_;
    if (head_ >= 0) slots_[head_].prev = e;
    head_ = e;
    if (tail_ < 0) tail_ = e;
  }

  void AddToBucket(int32_t e) {
    int32_t& bucket = buckets_[slots_[e].hash & (buckets_.size() - 1)];
    slots_[e].chain = bucket;
    bucket = e;
  }

  void RemoveFromBucket(int32_t e) {
    int32_t* link = &buckets_[slots_[e].hash & (buckets_.size() - 1)];
    while (*link != e) link = &slots_[*link].chain;
    *link = slots_[e].chain;
    slots_[e].chain = -1;
  }

  // Keeps at least two buckets per entry (chains stay short); called after a slot was
  // appended, before it is linked into a bucket.
  void GrowBucketsIfNeeded() {
    if (slots_.size() * 2 <= buckets_.size()) return;
    size_t n = buckets_.empty() ? 16 : buckets_.size() * 2;
    buckets_.assign(n, -1);
    for (int32_t e = 0; e + 1 < static_cast<int32_t>(slots_.size()); ++e) AddToBucket(e);
  }

  void DropAll() {
    slots_.clear();
    slots_.shrink_to_fit();
    buckets_.clear();
    buckets_.shrink_to_fit();
    head_ = tail_ = -1;
  }

  size_t capacity_;
  std::vector<Slot> slots_;
  std::vector<int32_t> buckets_;  // power-of-two size, or empty
  int32_t head_ = -1;
  int32_t tail_ = -1;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  uint64_t evictions_ = 0;
};

}  // namespace tessera

#endif  // TESSERA_CORE_COMMON_LRU_CACHE_H_
