// Float16/BFloat16 conversions against an independent reference: each format's values
// decoded with double arithmetic from the IEEE field definitions, and float -> 2-byte
// rounding found by searching the sorted list of those values for the nearest one
// (ties to the even encoding, past the largest finite value to inf as IEEE 754's
// "next value" 2^(emax+1)). Where the compiler has _Float16 (GCC/Clang on x86-64) its
// conversion is a third opinion for f16.
#include "core/common/half.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace tessera {
namespace {

struct Spec {
  int mantissa_bits;  // 10 (f16) or 7 (bf16)
  int exponent_bits;  // 5 or 8
};
constexpr Spec kF16Spec{10, 5};
constexpr Spec kBF16Spec{7, 8};

// The value of non-negative bits `b` (exponent not all ones), from the definition.
double Decode(const Spec& s, uint32_t b) {
  const int bias = (1 << (s.exponent_bits - 1)) - 1;
  const uint32_t m = b & ((1u << s.mantissa_bits) - 1);
  const int e = static_cast<int>(b >> s.mantissa_bits);
  if (e == 0) return std::ldexp(static_cast<double>(m), 1 - bias - s.mantissa_bits);
  return std::ldexp(static_cast<double>(m + (1u << s.mantissa_bits)), e - bias - s.mantissa_bits);
}

uint32_t InfBits(const Spec& s) { return ((1u << s.exponent_bits) - 1) << s.mantissa_bits; }

// Nearest-even rounding of the finite float x by search over the format's values.
uint16_t ReferenceRound(const Spec& s, const std::vector<double>& values, float x) {
  const uint32_t sign = std::signbit(x) ? 0x8000u : 0u;
  const double a = std::fabs(static_cast<double>(x));
  // values[i] is the value of bits i; values.back() is the inf stand-in 2^(emax+1).
  const auto it = std::lower_bound(values.begin(), values.end(), a);
  if (it == values.end()) return static_cast<uint16_t>(sign | InfBits(s));
  const uint32_t hi = static_cast<uint32_t>(it - values.begin());
  if (*it == a || hi == 0) return static_cast<uint16_t>(sign | hi);
  const uint32_t lo = hi - 1;
  const double dlo = a - values[lo], dhi = values[hi] - a;
  const uint32_t pick = dlo < dhi ? lo : dhi < dlo ? hi : (lo % 2 == 0 ? lo : hi);
  return static_cast<uint16_t>(sign | pick);
}

std::vector<double> Values(const Spec& s) {
  std::vector<double> v;
  for (uint32_t b = 0; b < InfBits(s); ++b) v.push_back(Decode(s, b));
  const int bias = (1 << (s.exponent_bits - 1)) - 1;
  v.push_back(std::ldexp(1.0, bias + 1));  // where inf sits for rounding
  return v;
}

float FloatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

template <typename H>
uint16_t Round(float f) {
  return H(f).bits;
}

// Floats to test: a spread of every exponent, and every value's neighbourhood in the
// format: its midpoint to the next value and the floats on either side of it.
std::vector<float> Probes(const std::vector<double>& values) {
  std::vector<float> p;
  for (uint64_t u = 0; u < 0x7f800000u; u += 4099) p.push_back(FloatOf(static_cast<uint32_t>(u)));
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    const float mid = static_cast<float>((values[i] + values[i + 1]) / 2);
    p.push_back(mid);
    p.push_back(std::nextafter(mid, 0.0f));
    p.push_back(std::nextafter(mid, std::numeric_limits<float>::infinity()));
    p.push_back(static_cast<float>(values[i]));
  }
  p.push_back(std::numeric_limits<float>::max());
  p.push_back(std::numeric_limits<float>::denorm_min());
  p.push_back(std::numeric_limits<float>::min());
  const size_t n = p.size();
  for (size_t i = 0; i < n; ++i) p.push_back(-p[i]);
  return p;
}

template <typename H>
void CheckRounding(const Spec& s) {
  const std::vector<double> values = Values(s);
  size_t mismatches = 0;
  for (float x : Probes(values)) {
    const uint16_t want = ReferenceRound(s, values, x);
    const uint16_t got = Round<H>(x);
    if (got != want && ++mismatches <= 5) {
      ADD_FAILURE() << "float " << x << " (bits 0x" << std::hex << FloatToBits(x)
                    << ") rounds to 0x" << got << ", want 0x" << want;
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

template <typename H>
void CheckAllBitsToFloat(const Spec& s) {
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    const float f = H::FromBits(static_cast<uint16_t>(b));
    const uint32_t mag = b & 0x7fffu;
    const bool neg = (b & 0x8000u) != 0;
    if (mag > InfBits(s)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << b;
      EXPECT_EQ(std::signbit(f), neg) << std::hex << b;
      EXPECT_TRUE(std::isnan(static_cast<float>(H(f)))) << std::hex << b;  // stays NaN
      continue;
    }
    const double want =
        mag == InfBits(s) ? std::numeric_limits<double>::infinity() : Decode(s, mag);
    ASSERT_EQ(static_cast<double>(f), neg ? -want : want) << std::hex << b;
    ASSERT_EQ(H(f).bits, b) << std::hex << b;  // exact round trip, -0 and inf included
  }
}

TEST(HalfTest, F16ToFloatIsExactForAllBits) { CheckAllBitsToFloat<Float16>(kF16Spec); }
TEST(HalfTest, BF16ToFloatIsExactForAllBits) { CheckAllBitsToFloat<BFloat16>(kBF16Spec); }
TEST(HalfTest, F16RoundsToNearestEven) { CheckRounding<Float16>(kF16Spec); }
TEST(HalfTest, BF16RoundsToNearestEven) { CheckRounding<BFloat16>(kBF16Spec); }

TEST(HalfTest, HandPickedF16) {
  EXPECT_EQ(Float16(1.0f).bits, 0x3c00);
  EXPECT_EQ(Float16(-2.0f).bits, 0xc000);
  EXPECT_EQ(Float16(65504.0f).bits, 0x7bff);   // largest finite
  EXPECT_EQ(Float16(65519.99f).bits, 0x7bff);  // below the midpoint to 2^16
  EXPECT_EQ(Float16(65520.0f).bits, 0x7c00);   // the midpoint: ties to even = inf
  EXPECT_EQ(Float16(1e10f).bits, 0x7c00);      // overflow
  EXPECT_EQ(Float16(-1e10f).bits, 0xfc00);
  EXPECT_EQ(Float16(std::ldexp(1.0f, -24)).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(Float16(std::ldexp(1.0f, -25)).bits, 0x0000);  // its half: tie to even 0
  EXPECT_EQ(Float16(std::ldexp(1.5f, -25)).bits, 0x0001);  // above the tie
  EXPECT_EQ(Float16(std::ldexp(3.0f, -25)).bits, 0x0002);  // 1.5 ulp: tie to even 2
  EXPECT_EQ(Float16(std::ldexp(1.0f, -14)).bits, 0x0400);  // smallest normal
  EXPECT_EQ(Float16(-0.0f).bits, 0x8000);
  EXPECT_EQ(Float16(1.0f + std::ldexp(1.0f, -11)).bits, 0x3c00);      // tie between 1 and 1+2^-10
  EXPECT_EQ(Float16(1.0f + 3 * std::ldexp(1.0f, -11)).bits, 0x3c02);  // tie: to even
  EXPECT_EQ(Float16(std::numeric_limits<float>::infinity()).bits, 0x7c00);
  EXPECT_TRUE(std::isnan(static_cast<float>(Float16(std::nanf("")))));
  EXPECT_EQ(static_cast<float>(std::numeric_limits<Float16>::max()), 65504.0f);
  EXPECT_EQ(static_cast<float>(std::numeric_limits<Float16>::epsilon()), std::ldexp(1.0f, -10));
}

TEST(HalfTest, HandPickedBF16) {
  EXPECT_EQ(BFloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(BFloat16(FloatOf(0x3f808000u)).bits, 0x3f80);               // tie: to even
  EXPECT_EQ(BFloat16(FloatOf(0x3f818000u)).bits, 0x3f82);               // tie: to even (up)
  EXPECT_EQ(BFloat16(FloatOf(0x3f808001u)).bits, 0x3f81);               // past the tie
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::max()).bits, 0x7f80);  // overflow to inf
  EXPECT_EQ(BFloat16(FloatOf(0x7f7f7fffu)).bits, 0x7f7f);  // just below: largest finite
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::denorm_min()).bits, 0x0000);
  EXPECT_EQ(BFloat16(FloatOf(0x00008000u)).bits, 0x0000);  // tie at the subnormal bottom
  EXPECT_EQ(BFloat16(FloatOf(0x00018000u)).bits, 0x0002);
  EXPECT_EQ(BFloat16(-0.0f).bits, 0x8000);
  // A NaN whose payload lives only in the low 16 bits must not become inf.
  const float low_nan = FloatOf(0x7f800001u);
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(low_nan))));
  EXPECT_EQ(static_cast<float>(std::numeric_limits<BFloat16>::lowest()),
            -static_cast<float>(BFloat16::FromBits(0x7f7f)));
}

TEST(HalfTest, ArithmeticIsFloatAndRoundsOnStore) {
  const Float16 a(1.0f), b(std::ldexp(1.0f, -11));
  // a + b is computed in float (exactly 1 + 2^-11); storing it rounds (tie to even 1).
  EXPECT_EQ(a + b, 1.0f + std::ldexp(1.0f, -11));
  EXPECT_EQ(Float16(a + b).bits, 0x3c00);
  static_assert(kIsFloating<BFloat16> && kIsHalf<Float16> && !kIsHalf<float>, "traits");
}

#if defined(__FLT16_MAX__) && (defined(__x86_64__) || defined(__aarch64__))
TEST(HalfTest, F16AgreesWithCompilerFloat16) {
  for (uint64_t u = 0; u <= 0xffffffffu; u += 977) {
    const float x = FloatOf(static_cast<uint32_t>(u));
    if (std::isnan(x)) continue;
    const _Float16 h = static_cast<_Float16>(x);
    uint16_t bits;
    std::memcpy(&bits, &h, 2);
    ASSERT_EQ(Float16(x).bits, bits) << std::hex << u;
  }
}
#endif

}  // namespace
}  // namespace tessera
