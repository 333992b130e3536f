#include "core/common/double_text.h"

#include <gtest/gtest.h>

#include <limits>

namespace tessera {
namespace {

TEST(DoubleTextTest, ShortestRoundTrip) {
  EXPECT_EQ(DoubleText(0.1), "0.1");
  EXPECT_EQ(DoubleText(0.5), "0.5");
  EXPECT_EQ(DoubleText(10), "10");
  EXPECT_EQ(DoubleText(-2.5), "-2.5");
  EXPECT_EQ(DoubleText(1e-9), "1e-09");
  EXPECT_EQ(DoubleText(1e308), "1e+308");
  EXPECT_EQ(DoubleText(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(DoubleText(-std::numeric_limits<double>::denorm_min()), "-5e-324");
  EXPECT_EQ(DoubleText(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(DoubleText(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(DoubleText(std::numeric_limits<double>::quiet_NaN()), "nan");
}

}  // namespace
}  // namespace tessera
