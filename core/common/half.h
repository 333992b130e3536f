// The two 2-byte floating types, f16 (IEEE 754 binary16) and bf16 (bfloat16: f32's
// top half), as storage types: a tensor holds their bits, arithmetic converts them to
// float, computes in float, and rounds the result back on store. That is what the CPU
// and CUDA kernels do with them (docs/dtypes.md).
//
// Conversions:
//   * to float is exact (every f16 and bf16 value is a float);
//   * from float rounds to nearest, ties to even; values past the largest finite value
//     by at least half an ulp become +-inf; a NaN stays a NaN (quiet, sign and the top
//     payload bits kept); float values below the smallest normal become subnormals (or
//     +-0), rounded the same way.
// Conversion from double goes through float (double rounding: within an ulp of f32 of
// a half-way point the result may differ from rounding the double directly).
//
// The bit functions are constexpr and branch on integers only, so they compile as
// host and device code; Float16/BFloat16 are __host__ __device__ under nvcc.
#ifndef TESSERA_CORE_COMMON_HALF_H_
#define TESSERA_CORE_COMMON_HALF_H_

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#ifndef TESS_HOST_DEVICE
#if defined(__CUDACC__)
#define TESS_HOST_DEVICE __host__ __device__
#else
#define TESS_HOST_DEVICE
#endif
#endif

namespace tessera {

// f32 bits -> f16 bits, round to nearest even.
TESS_HOST_DEVICE constexpr uint16_t F32BitsToF16Bits(uint32_t f) {
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t abs = f & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | (abs >> 13));  // NaN
  if (abs >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 2^16: inf
  if (abs < 0x38800000u) {
    // Below 2^-14 (f16's smallest normal): an f16 subnormal q * 2^-24. At most 2^-25
    // (half of the smallest subnormal, the tie rounding to even 0) it is +-0.
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);
    const uint32_t e = abs >> 23;                      // 102..112
    const uint32_t m = (abs & 0x7fffffu) | 0x800000u;  // value = m * 2^(e - 150)
    const uint32_t shift = 126 - e;                    // 14..24: q = m * 2^(e - 126)
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1u))) ++q;  // may carry into 2^-14: fine
    return static_cast<uint16_t>(sign | q);
  }
  // Normal: rebias the exponent (127 -> 15) and drop 13 mantissa bits. A carry out of
  // the mantissa bumps the exponent, and out of the largest one gives 0x7c00, inf.
  const uint32_t v = abs - 0x38000000u;
  uint32_t q = v >> 13;
  const uint32_t rem = v & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) ++q;
  return static_cast<uint16_t>(sign | q);
}

// f16 bits -> f32 bits, exact.
TESS_HOST_DEVICE constexpr uint32_t F16BitsToF32Bits(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  uint32_t m = h & 0x3ffu;
  if (e == 0x1f) return sign | 0x7f800000u | (m << 13);  // inf, NaN (payload kept)
  if (e == 0) {
    if (m == 0) return sign;
    // Subnormal m * 2^-24: shift the leading one up to bit 10 to make it normal.
    uint32_t shift = 0;
    while ((m & 0x400u) == 0) {
      m <<= 1;
      ++shift;
    }
    return sign | ((113 - shift) << 23) | ((m & 0x3ffu) << 13);
  }
  return sign | ((e + 112) << 23) | (m << 13);
}

// f32 bits -> bf16 bits, round to nearest even (overflow carries into inf).
TESS_HOST_DEVICE constexpr uint16_t F32BitsToBF16Bits(uint32_t f) {
  if ((f & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((f >> 16) | 0x40u);
  const uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);
  return static_cast<uint16_t>((f + rounding) >> 16);
}

TESS_HOST_DEVICE constexpr uint32_t BF16BitsToF32Bits(uint16_t b) {
  return static_cast<uint32_t>(b) << 16;
}

TESS_HOST_DEVICE inline uint32_t FloatToBits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
#endif
}

TESS_HOST_DEVICE inline float BitsToFloat(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
#endif
}

// The two formats: their conversions and the bits of their limits.
struct F16Format {
  TESS_HOST_DEVICE static constexpr uint16_t FromF32(uint32_t f) { return F32BitsToF16Bits(f); }
  TESS_HOST_DEVICE static constexpr uint32_t ToF32(uint16_t h) { return F16BitsToF32Bits(h); }
  static constexpr int kDigits = 11;
  static constexpr uint16_t kMin = 0x0400, kMax = 0x7bff, kEpsilon = 0x1400, kInf = 0x7c00,
                            kNaN = 0x7e00;
};
struct BF16Format {
  TESS_HOST_DEVICE static constexpr uint16_t FromF32(uint32_t f) { return F32BitsToBF16Bits(f); }
  TESS_HOST_DEVICE static constexpr uint32_t ToF32(uint16_t b) { return BF16BitsToF32Bits(b); }
  static constexpr int kDigits = 8;
  static constexpr uint16_t kMin = 0x0080, kMax = 0x7f7f, kEpsilon = 0x3c00, kInf = 0x7f80,
                            kNaN = 0x7fc0;
};

// A 2-byte value that converts implicitly to and from float, so a kernel templated on
// its element type computes `T(a * b + c)` in float and rounds once on store. There
// are no arithmetic operators of its own on purpose: `h + h` is float + float.
// Compound assignment (`acc += x`) does not compile, which keeps accumulators out of the
// 2-byte type (kernels accumulate in Acc<T>, kernels/common/arith.h).
template <typename Format>
struct HalfFloat {
  uint16_t bits;

  HalfFloat() = default;
  TESS_HOST_DEVICE HalfFloat(float f) : bits(Format::FromF32(FloatToBits(f))) {}  // NOLINT
  TESS_HOST_DEVICE operator float() const {                                       // NOLINT
    return BitsToFloat(Format::ToF32(bits));
  }

  TESS_HOST_DEVICE static constexpr HalfFloat FromBits(uint16_t b) {
    HalfFloat h{};
    h.bits = b;
    return h;
  }
};

using Float16 = HalfFloat<F16Format>;
using BFloat16 = HalfFloat<BF16Format>;
static_assert(sizeof(Float16) == 2 && sizeof(BFloat16) == 2, "2-byte storage");
static_assert(std::is_trivially_copyable_v<Float16>, "memcpy-able");

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// Floating types for the kernels' `if constexpr`: float, double, f16, bf16.
template <typename T>
inline constexpr bool kIsFloating = std::is_floating_point_v<T> || kIsHalf<T>;

}  // namespace tessera

// numeric_limits for the two, so generic code (Lowest/Highest, epsilon, NaN) works.
namespace std {
template <typename Format>
class numeric_limits<tessera::HalfFloat<Format>> {
  using H = tessera::HalfFloat<Format>;

 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  // IEEE 754 semantics (signed zeros, infinities, NaN, nearest-even rounding); bf16 is
  // not an IEEE interchange format, but follows the same rules with fewer bits.
  static constexpr bool is_iec559 = true;
  static constexpr int digits = Format::kDigits;
  static constexpr int radix = 2;
  TESS_HOST_DEVICE static constexpr H min() { return H::FromBits(Format::kMin); }
  TESS_HOST_DEVICE static constexpr H max() { return H::FromBits(Format::kMax); }
  TESS_HOST_DEVICE static constexpr H lowest() { return H::FromBits(Format::kMax | 0x8000); }
  TESS_HOST_DEVICE static constexpr H epsilon() { return H::FromBits(Format::kEpsilon); }
  TESS_HOST_DEVICE static constexpr H infinity() { return H::FromBits(Format::kInf); }
  TESS_HOST_DEVICE static constexpr H quiet_NaN() { return H::FromBits(Format::kNaN); }
  TESS_HOST_DEVICE static constexpr H denorm_min() { return H::FromBits(0x0001); }
};
}  // namespace std

#endif  // TESSERA_CORE_COMMON_HALF_H_
