#include "core/common/exact_minmax.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace tessera {
namespace {

template <typename T>
bool NegZero(T v) {
  return v == 0 && std::signbit(v);
}

template <typename T>
void CheckType() {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T inf = std::numeric_limits<T>::infinity();
  const T sub = std::numeric_limits<T>::denorm_min();
  // Any NaN operand, either side, gives NaN.
  for (T x : {T(1), -inf, inf, T(0), -T(0), sub, nan}) {
    EXPECT_TRUE(std::isnan(ExactMax(nan, x))) << x;
    EXPECT_TRUE(std::isnan(ExactMax(x, nan))) << x;
    EXPECT_TRUE(std::isnan(ExactMin(nan, x))) << x;
    EXPECT_TRUE(std::isnan(ExactMin(x, nan))) << x;
  }
  // -0.0 < +0.0, in either order.
  EXPECT_FALSE(std::signbit(ExactMax(-T(0), T(0))));
  EXPECT_FALSE(std::signbit(ExactMax(T(0), -T(0))));
  EXPECT_TRUE(NegZero(ExactMin(-T(0), T(0))));
  EXPECT_TRUE(NegZero(ExactMin(T(0), -T(0))));
  EXPECT_TRUE(NegZero(ExactMax(-T(0), -T(0))));
  EXPECT_TRUE(NegZero(ExactMax(-T(0), -sub)));
  // Ordinary values, infinities and subnormals.
  EXPECT_EQ(ExactMax(T(2), T(-3)), T(2));
  EXPECT_EQ(ExactMin(T(2), T(-3)), T(-3));
  EXPECT_EQ(ExactMax(-inf, sub), sub);
  EXPECT_EQ(ExactMin(inf, -sub), -sub);
  EXPECT_EQ(ExactMax(-inf, -inf), -inf);
}

TEST(ExactMinMaxTest, Float) { CheckType<float>(); }
TEST(ExactMinMaxTest, Double) { CheckType<double>(); }

TEST(ExactMinMaxTest, Integers) {
  EXPECT_EQ(ExactMax<int32_t>(-5, 3), 3);
  EXPECT_EQ(ExactMin<int64_t>(-5, 3), -5);
  EXPECT_EQ(ExactMax<int64_t>(std::numeric_limits<int64_t>::lowest(), 0), 0);
}

// Whatever the order of a reduction, the bits are the same.
TEST(ExactMinMaxTest, OrderIndependent) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<std::vector<float>> sets = {{-0.0f, 0.0f, -1.0f}, {1.0f, nan, 2.0f}};
  for (const std::vector<float>& s : sets) {
    float fwd = s[0], bwd = s.back();
    for (size_t i = 1; i < s.size(); ++i) fwd = ExactMax(fwd, s[i]);
    for (size_t i = s.size() - 1; i-- > 0;) bwd = ExactMax(bwd, s[i]);
    if (std::isnan(fwd)) {
      EXPECT_TRUE(std::isnan(bwd));
    } else {
      EXPECT_EQ(std::signbit(fwd), std::signbit(bwd));
      EXPECT_EQ(fwd, bwd);
    }
  }
}

}  // namespace
}  // namespace tessera
