#include "core/tensor/counter_rng.h"

#include <cmath>
#include <cstdint>

#include "gtest/gtest.h"

namespace tessera {
namespace tensor {
namespace {

constexpr int kN = 200000;

TEST(CounterRngTest, SameCounterSameValueOtherSeedOtherValue) {
  EXPECT_EQ(CounterBits(7, 123), CounterBits(7, 123));
  EXPECT_NE(CounterBits(7, 123), CounterBits(8, 123));
  EXPECT_NE(CounterBits(7, 123), CounterBits(7, 124));
}

// Mean and variance of U[0,1) are 1/2 and 1/12; the sample mean of kN draws has
// standard error sqrt(1/12/kN) ~ 6.5e-4, so 5 standard errors is 3.2e-3.
TEST(CounterRngTest, UniformMomentsMatchU01) {
  for (auto uniform : {&CounterUniform, &CounterUniformF32}) {
    double sum = 0, sum_sq = 0;
    for (int i = 0; i < kN; ++i) {
      const double u = uniform(42, static_cast<uint64_t>(i));
      ASSERT_GE(u, 0.0);
      ASSERT_LT(u, 1.0);
      sum += u;
      sum_sq += u * u;
    }
    const double mean = sum / kN;
    EXPECT_NEAR(mean, 0.5, 3.2e-3);
    EXPECT_NEAR(sum_sq / kN - mean * mean, 1.0 / 12, 3e-3);
  }
}

TEST(CounterRngTest, F32UniformNeverRoundsToOne) {
  for (int i = 0; i < kN; ++i) {
    EXPECT_LT(static_cast<float>(CounterUniformF32(3, static_cast<uint64_t>(i))), 1.0f);
  }
}

// N(0,1): sample mean standard error 1/sqrt(kN) ~ 2.2e-3; sample variance standard
// error sqrt(2/kN) ~ 3.2e-3.
TEST(CounterRngTest, NormalMomentsMatchStandardNormal) {
  double sum = 0, sum_sq = 0;
  int beyond_2sd = 0;
  for (int i = 0; i < kN; ++i) {
    const double z = CounterNormal(9, static_cast<uint64_t>(i));
    ASSERT_TRUE(std::isfinite(z));
    sum += z;
    sum_sq += z * z;
    beyond_2sd += std::fabs(z) > 2.0;
  }
  const double mean = sum / kN;
  EXPECT_NEAR(mean, 0.0, 0.011);
  EXPECT_NEAR(sum_sq / kN - mean * mean, 1.0, 0.016);
  // P(|Z| > 2) = 0.0455; its standard error over kN draws is ~4.7e-4.
  EXPECT_NEAR(static_cast<double>(beyond_2sd) / kN, 0.0455, 2.4e-3);
}

}  // namespace
}  // namespace tensor
}  // namespace tessera
