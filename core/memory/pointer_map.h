// PointerMap<V>: a hash map from non-null pointers to small values, for the allocators'
// "which allocation is this pointer?" lookups.
//
// Why not std::unordered_map: it allocates a node on every insert, and an allocator's
// Allocate/Free is a hot path that must not touch the heap once warm. This table is open
// addressing with linear probing in one flat array that only grows (never shrinks), so after
// warm-up Insert and Erase allocate nothing. Erase uses backward-shift deletion, so there are
// no tombstones and probe lengths stay short under endless insert/erase churn.
//
// Not thread-safe: the owning allocator guards it with its own mutex.
#ifndef TESSERA_CORE_MEMORY_POINTER_MAP_H_
#define TESSERA_CORE_MEMORY_POINTER_MAP_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace tessera {
namespace memory {

template <typename V>
class PointerMap {
 public:
  PointerMap() { slots_.resize(kInitialCapacity); }

  size_t size() const { return size_; }
  size_t capacity() const { return slots_.size(); }

  // The value for `key`, or nullptr when absent. The pointer is valid until the next Insert.
  V* Find(const void* key) {
    if (key == nullptr) return nullptr;
    for (size_t i = Home(key);; i = Next(i)) {
      Slot& slot = slots_[i];
      if (slot.key == key) return &slot.value;
      if (slot.key == nullptr) return nullptr;
    }
  }

  // Adds key -> value. Returns false (and changes nothing) when `key` is null or present.
  bool Insert(const void* key, V value) {
    if (key == nullptr || Find(key) != nullptr) return false;
    // Keep the load at most 1/2 so unsuccessful probes stay short.
    if (2 * (size_ + 1) > slots_.size()) Grow();
    Place(key, std::move(value));
    ++size_;
    return true;
  }

  // Removes `key`, moving its value to *value when `value` is non-null. False when absent.
  bool Erase(const void* key, V* value = nullptr) {
    if (key == nullptr) return false;
    size_t hole = Home(key);
    while (slots_[hole].key != key) {
      if (slots_[hole].key == nullptr) return false;
      hole = Next(hole);
    }
    if (value != nullptr) *value = std::move(slots_[hole].value);
    // Backward shift: pull later members of the probe run into the hole when the hole lies
    // on their probe path (between their home slot and where they sit), so every remaining
    // key stays reachable from its home without tombstones.
    for (size_t i = Next(hole); slots_[i].key != nullptr; i = Next(i)) {
      const size_t home = Home(slots_[i].key);
      const size_t distance_to_i = (i - home) & Mask();
      const size_t distance_to_hole = (hole - home) & Mask();
      if (distance_to_hole < distance_to_i) {
        slots_[hole] = std::move(slots_[i]);
        hole = i;
      }
    }
    slots_[hole] = Slot();
    --size_;
    return true;
  }

  // Calls fn(key, value) for every entry, in no particular order.
  template <typename F>
  void ForEach(F&& fn) const {
    for (const Slot& slot : slots_) {
      if (slot.key != nullptr) fn(slot.key, slot.value);
    }
  }

 private:
  static constexpr size_t kInitialCapacity = 64;  // a power of two

  struct Slot {
    const void* key = nullptr;
    V value{};
  };

  size_t Mask() const { return slots_.size() - 1; }
  size_t Next(size_t i) const { return (i + 1) & Mask(); }

  // Fibonacci hashing: allocations are aligned, so the low address bits carry little
  // information; multiplying by 2^64/phi spreads the high bits over the index.
  size_t Home(const void* key) const {
    const uint64_t h =
        static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key)) * 0x9e3779b97f4a7c15ULL;
    return static_cast<size_t>(h >> 32) & Mask();
  }

  void Place(const void* key, V value) {
    size_t i = Home(key);
    while (slots_[i].key != nullptr) i = Next(i);
    slots_[i].key = key;
    slots_[i].value = std::move(value);
  }

  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (Slot& slot : old) {
      if (slot.key != nullptr) Place(slot.key, std::move(slot.value));
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace memory
}  // namespace tessera

#endif  // TESSERA_CORE_MEMORY_POINTER_MAP_H_
