// Order-preserving integer keys of floats, so that an integer max / min computes
// ExactMax / ExactMin (exact_minmax.h) of the floats: for backends whose own float max
// and min drop NaN. NCCL's ncclMax / ncclMin on floats are IEEE 754-2008 maxNum / minNum
// (fmaxf / fminf): a NaN survives only when every operand is NaN. Its integer max and
// min are exact, so the NCCL backend reduces these keys instead (docs/numerics.md).
//
// The key of a float with bits b (read as a signed integer of the same width) is b for
// b >= 0 (+0.0 up to +inf: larger floats, larger bits) and b ^ 0x7f..f for b < 0 (-0.0
// down to -inf: flipping the magnitude bits reverses their order and keeps them
// negative). So -0.0 (key -1) sorts below +0.0 (key 0), every other non-NaN float keeps
// its order, and the keys of non-NaN floats lie strictly between the integer type's
// lowest and highest values. A NaN becomes the highest key for a max and the lowest for
// a min, so it wins either way; both extremes map back to a NaN. The map is its own
// inverse on non-NaN floats: FromOrderedKey(OrderedKey(x)) has x's bits.
//
// Host and device code (TESS_HOST_DEVICE); no branches a GPU would mind.
#ifndef TESSERA_CORE_COMMON_ORDERED_KEY_H_
#define TESSERA_CORE_COMMON_ORDERED_KEY_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/common/exact_minmax.h"  // TESS_HOST_DEVICE

namespace tessera {

// The signed integer of a float's width: int32_t for float, int64_t for double.
template <typename Float>
using OrderedKeyOf = std::conditional_t<sizeof(Float) == 4, int32_t, int64_t>;

// The key type's extremes, as constants: device code cannot call numeric_limits'
// constexpr functions without nvcc's --expt-relaxed-constexpr.
template <typename Key>
struct OrderedKeyRange;
template <>
struct OrderedKeyRange<int32_t> {
  static constexpr int32_t kHighest = INT32_MAX;
  static constexpr int32_t kLowest = INT32_MIN;
};
template <>
struct OrderedKeyRange<int64_t> {
  static constexpr int64_t kHighest = INT64_MAX;
  static constexpr int64_t kLowest = INT64_MIN;
};

// Which way a NaN goes: the highest key (it wins a max) or the lowest (it wins a min).
enum class NanKey { kHighest, kLowest };

template <typename Float>
TESS_HOST_DEVICE inline OrderedKeyOf<Float> OrderedKey(Float x, NanKey nan) {
  static_assert(std::is_floating_point_v<Float>, "keys are of floats");
  using Key = OrderedKeyOf<Float>;
  if (x != x) {
    return nan == NanKey::kHighest ? OrderedKeyRange<Key>::kHighest : OrderedKeyRange<Key>::kLowest;
  }
  Key bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits >= 0 ? bits : bits ^ OrderedKeyRange<Key>::kHighest;
}

template <typename Float>
TESS_HOST_DEVICE inline Float FromOrderedKey(OrderedKeyOf<Float> key) {
  using Key = OrderedKeyOf<Float>;
  const Key bits = key >= 0 ? key : key ^ OrderedKeyRange<Key>::kHighest;
  Float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

}  // namespace tessera

#endif  // TESSERA_CORE_COMMON_ORDERED_KEY_H_
