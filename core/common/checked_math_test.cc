#include "core/common/checked_math.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace tessera {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(CheckedMathTest, MulAndAdd) {
  int64_t v = 0;
  EXPECT_TRUE(CheckedMul<int64_t>(int64_t{1} << 31, int64_t{1} << 31, &v));
  EXPECT_EQ(v, int64_t{1} << 62);
  EXPECT_FALSE(CheckedMul<int64_t>((int64_t{1} << 62) + 1, 4, &v));
  EXPECT_FALSE(CheckedMul<int64_t>(kMax, 2, &v));
  EXPECT_TRUE(CheckedAdd<int64_t>(kMax - 1, 1, &v));
  EXPECT_EQ(v, kMax);
  EXPECT_FALSE(CheckedAdd<int64_t>(kMax, 1, &v));
  size_t z = 0;
  EXPECT_FALSE(CheckedMul<size_t>(SIZE_MAX, 2, &z));
  EXPECT_FALSE(CheckedAdd<size_t>(SIZE_MAX, 1, &z));
}

TEST(CheckedMathTest, Product) {
  int64_t p = 0;
  EXPECT_TRUE(CheckedProduct(nullptr, 0, &p));
  EXPECT_EQ(p, 1);
  const int64_t fits[] = {4, 5, 6};
  EXPECT_TRUE(CheckedProduct(fits, 3, &p));
  EXPECT_EQ(p, 120);
  const int64_t hierarchy[] = {4, (int64_t{1} << 62) + 1};  // wraps to 4 unchecked
  EXPECT_FALSE(CheckedProduct(hierarchy, 2, &p));
  const int64_t zero_after[] = {int64_t{1} << 62, 4, 0};
  EXPECT_FALSE(CheckedProduct(zero_after, 3, &p));
}

}  // namespace
}  // namespace tessera
