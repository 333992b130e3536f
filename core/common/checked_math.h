// Overflow-checked integer arithmetic for sizes, counts, offsets and products computed
// from input. Each helper stores the exact result and returns true, or returns false
// (leaving *out unspecified) when the result does not fit the type. Only arithmetic:
// safe on hot paths.
#ifndef TESSERA_CORE_COMMON_CHECKED_MATH_H_
#define TESSERA_CORE_COMMON_CHECKED_MATH_H_

#include <cstddef>
#include <cstdint>

namespace tessera {

// *out = a * b; false when it overflows T.
template <typename T>
[[nodiscard]] inline bool CheckedMul(T a, T b, T* out) {
  return !__builtin_mul_overflow(a, b, out);
}

// *out = a + b; false when it overflows T.
template <typename T>
[[nodiscard]] inline bool CheckedAdd(T a, T b, T* out) {
  return !__builtin_add_overflow(a, b, out);
}

// *out = the product of values[0..n) (1 for n == 0); false when a partial product
// overflows int64_t, even if a later factor is 0.
[[nodiscard]] inline bool CheckedProduct(const int64_t* values, size_t n, int64_t* out) {
  int64_t p = 1;
  for (size_t i = 0; i < n; ++i) {
    if (!CheckedMul(p, values[i], &p)) return false;
  }
  *out = p;
  return true;
}

}  // namespace tessera

#endif  // TESSERA_CORE_COMMON_CHECKED_MATH_H_
