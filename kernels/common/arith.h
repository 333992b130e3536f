// Element arithmetic with defined results for every input, shared by the CPU and CUDA
// kernels (every function but IsExactInteger also compiles as device code under nvcc):
// integer add/sub/mul/neg wrap (two's complement, as NumPy), max/min propagate NaN (as
// NumPy's maximum/minimum) and order -0.0 below +0.0, and conversions saturate (float
// -> int truncates toward zero, NaN -> 0; int -> narrower int clamps). Saturation keeps
// every conversion non-decreasing, which cast's P(max)/P(min) signatures rely on.
// f16 and bf16 (Float16/BFloat16) compute in float and round to nearest even on store.
#ifndef TESSERA_KERNELS_COMMON_ARITH_H_
#define TESSERA_KERNELS_COMMON_ARITH_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

// TESS_HOST_DEVICE (__host__ __device__ under nvcc) comes from exact_minmax.h.
#include "core/common/exact_minmax.h"
#include "core/common/half.h"

namespace tessera {
namespace kernels {

// Sums of f32/f64 accumulate in double, of f16/bf16 in float (24 bits of mantissa
// against their 11 or 8: the rounding of the result dominates); integers accumulate
// (wrapping) in their own type.
template <typename T>
using Acc = std::conditional_t<std::is_floating_point_v<T>, double,
                               std::conditional_t<kIsHalf<T>, float, T>>;

// The type a kernel computes T in: float for f16/bf16, T otherwise.
template <typename T>
using Compute = std::conditional_t<kIsHalf<T>, float, T>;

template <typename T>
TESS_HOST_DEVICE inline T Add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <typename T>
TESS_HOST_DEVICE inline T Sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}

template <typename T>
TESS_HOST_DEVICE inline T Mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

template <typename T>
TESS_HOST_DEVICE inline T Neg(T a) {
  return Sub(T(0), a);
}

// Integer division truncates toward zero; the caller rules out b == 0. The one
// overflowing quotient, lowest / -1, wraps to lowest.
template <typename T>
TESS_HOST_DEVICE inline T Div(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return b == T(-1) ? Neg(a) : static_cast<T>(a / b);
  } else {
    return a / b;
  }
}

// NaN propagates and -0.0 < +0.0, so every combining order gives the same bits
// (core/common/exact_minmax.h).
template <typename T>
TESS_HOST_DEVICE inline T Max(T a, T b) {
  return ExactMax(a, b);
}

template <typename T>
TESS_HOST_DEVICE inline T Min(T a, T b) {
  return ExactMin(a, b);
}

// The identities of Max and Min: what an empty max (min) reduces to.
template <typename T>
TESS_HOST_DEVICE inline constexpr T Lowest() {
  if constexpr (kIsHalf<T>) return T::FromBits(std::numeric_limits<T>::infinity().bits | 0x8000);
  if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
  return std::numeric_limits<T>::lowest();
}
template <typename T>
TESS_HOST_DEVICE inline constexpr T Highest() {
  if constexpr (kIsFloating<T>) return std::numeric_limits<T>::infinity();
  return std::numeric_limits<T>::max();
}

// Saturating conversion (see the file comment).
template <typename To, typename From>
TESS_HOST_DEVICE inline To Convert(From v) {
  if constexpr (kIsHalf<From> && !std::is_same_v<To, From>) {
    return Convert<To>(static_cast<float>(v));  // exact; then as from float
  } else if constexpr (kIsHalf<To> && !std::is_same_v<To, From>) {
    return To(static_cast<float>(v));  // via float (integers: round twice past 2^24)
  } else if constexpr (std::is_same_v<To, From> || std::is_floating_point_v<To>) {
    return static_cast<To>(v);
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);  // NaN is true, as in numpy and torch
  } else if constexpr (std::is_floating_point_v<From>) {
    // -2^31 / -2^63 and their negations are exact in float and double.
    constexpr From kLo = static_cast<From>(std::numeric_limits<To>::lowest());
    constexpr From kHi = -kLo;
    if (v != v) return To(0);
    if (v <= kLo) return std::numeric_limits<To>::lowest();
    if (v >= kHi) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else if constexpr (sizeof(To) >= sizeof(From)) {
    return static_cast<To>(v);
  } else {
    if (v < static_cast<From>(std::numeric_limits<To>::lowest())) {
      return std::numeric_limits<To>::lowest();
    }
    if (v > static_cast<From>(std::numeric_limits<To>::max())) {
      return std::numeric_limits<To>::max();
    }
    return static_cast<To>(v);
  }
}

// The comparisons (equal ... greater_equal): IEEE 754 for floats (NaN unequal to
// everything), false < true for bool.
enum class Cmp { kEq, kNe, kLt, kLe, kGt, kGe };

template <Cmp kOp, typename T>
TESS_HOST_DEVICE inline bool Compare(T a, T b) {
  if constexpr (kOp == Cmp::kEq) return a == b;
  if constexpr (kOp == Cmp::kNe) return a != b;
  if constexpr (kOp == Cmp::kLt) return a < b;
  if constexpr (kOp == Cmp::kLe) return a <= b;
  if constexpr (kOp == Cmp::kGt) return a > b;
  if constexpr (kOp == Cmp::kGe) return a >= b;
}

// True when the double `v` is an integer that T holds exactly. Host only (std::floor).
template <typename T>
inline bool IsExactInteger(double v) {
  static_assert(std::is_integral_v<T>, "integer types only");
  constexpr double kLo = static_cast<double>(std::numeric_limits<T>::lowest());
  return v == std::floor(v) && v >= kLo && v < -kLo;
}

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_COMMON_ARITH_H_
