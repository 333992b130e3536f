// OrderedKey against ExactMax / ExactMin, which every other path uses: the max (min)
// of two keys must map back to the bits of ExactMax (ExactMin) of the floats, for
// NaN, infinities, signed zeros, subnormals and random bit patterns.
#include "core/common/ordered_key.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/common/exact_minmax.h"

namespace tessera {
namespace {

template <typename Float>
auto Bits(Float x) {
  OrderedKeyOf<Float> b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

template <typename Float>
std::vector<Float> Specials() {
  using L = std::numeric_limits<Float>;
  std::vector<Float> v = {0.0,
                          -0.0,
                          1.0,
                          -1.0,
                          L::infinity(),
                          -L::infinity(),
                          L::max(),
                          L::lowest(),
                          L::min(),
                          -L::min(),
                          L::denorm_min(),
                          -L::denorm_min(),
                          L::quiet_NaN(),
                          -L::quiet_NaN(),
                          L::signaling_NaN(),
                          0.5,
                          -0.5,
                          1e-30,
                          -1e-30};
  // Random bit patterns: every exponent, NaN payloads among them.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    OrderedKeyOf<Float> b = static_cast<OrderedKeyOf<Float>>(rng());
    Float x;
    std::memcpy(&x, &b, sizeof x);
    v.push_back(x);
  }
  return v;
}

// Same bits, except that any NaN matches any NaN (which NaN is unspecified).
template <typename Float>
bool SameValue(Float a, Float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return Bits(a) == Bits(b);
}

template <typename Float>
void CheckAgainstExactMinMax() {
  const std::vector<Float> values = Specials<Float>();
  for (Float x : values) {
    // Round trip: a non-NaN keeps its bits; a NaN stays NaN.
    const Float back_hi = FromOrderedKey<Float>(OrderedKey(x, NanKey::kHighest));
    const Float back_lo = FromOrderedKey<Float>(OrderedKey(x, NanKey::kLowest));
    ASSERT_TRUE(SameValue(back_hi, x)) << x;
    ASSERT_TRUE(SameValue(back_lo, x)) << x;
  }
  for (Float a : values) {
    for (size_t j = 0; j < 60; ++j) {
      const Float b = values[j];
      const Float max = FromOrderedKey<Float>(
          std::max(OrderedKey(a, NanKey::kHighest), OrderedKey(b, NanKey::kHighest)));
      const Float min = FromOrderedKey<Float>(
          std::min(OrderedKey(a, NanKey::kLowest), OrderedKey(b, NanKey::kLowest)));
      ASSERT_TRUE(SameValue(max, ExactMax(a, b))) << a << " " << b;
      ASSERT_TRUE(SameValue(min, ExactMin(a, b))) << a << " " << b;
    }
  }
}

TEST(OrderedKeyTest, FloatKeysReduceLikeExactMinMax) { CheckAgainstExactMinMax<float>(); }
TEST(OrderedKeyTest, DoubleKeysReduceLikeExactMinMax) { CheckAgainstExactMinMax<double>(); }

TEST(OrderedKeyTest, SignedZerosAndExtremes) {
  EXPECT_EQ(OrderedKey(-0.0f, NanKey::kHighest), -1);
  EXPECT_EQ(OrderedKey(0.0f, NanKey::kHighest), 0);
  EXPECT_EQ(OrderedKey(std::nanf(""), NanKey::kHighest), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(OrderedKey(-std::nanf(""), NanKey::kLowest), std::numeric_limits<int32_t>::lowest());
  // Non-NaN keys stay strictly inside, so a NaN's key always wins.
  EXPECT_GT(OrderedKey(-std::numeric_limits<float>::infinity(), NanKey::kLowest),
            std::numeric_limits<int32_t>::lowest());
  EXPECT_LT(OrderedKey(std::numeric_limits<double>::infinity(), NanKey::kHighest),
            std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(std::isnan(FromOrderedKey<double>(std::numeric_limits<int64_t>::lowest())));
  EXPECT_TRUE(std::isnan(FromOrderedKey<double>(std::numeric_limits<int64_t>::max())));
}

}  // namespace
}  // namespace tessera
