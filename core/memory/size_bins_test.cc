#include "core/memory/size_bins.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace tessera {
namespace memory {
namespace {

TEST(SizeBinsTest, RoundRequestIsTheNext512Multiple) {
  for (size_t bytes = 0; bytes <= 5000; ++bytes) {
    size_t expected = 512;
    while (expected < bytes) expected += 512;
    ASSERT_EQ(RoundRequest(bytes), expected) << "bytes=" << bytes;
  }
  EXPECT_EQ(RoundRequest(kMaxRequestBytes), kMaxRequestBytes);
}

TEST(SizeBinsTest, SmallLargeBoundaryIsOneMiB) {
  EXPECT_TRUE(IsSmallRequest(RoundRequest(1 << 20)));
  EXPECT_FALSE(IsSmallRequest(RoundRequest((1 << 20) + 1)));
}

TEST(SizeBinsTest, SegmentBytes) {
  const size_t mib = 1 << 20;
  for (size_t rounded = 512; rounded <= 9 * mib; rounded += 512 * 37) {
    size_t expected;
    if (rounded <= mib) {
      expected = 2 * mib;
    } else {
      expected = 0;
      while (expected < rounded) expected += 2 * mib;
    }
    ASSERT_EQ(SegmentBytes(rounded), expected) << "rounded=" << rounded;
  }
}

TEST(SizeBinsTest, BinIndexIsFloorLog2OfBlocks) {
  for (size_t bytes = 512; bytes <= (size_t{1} << 24); bytes += 512) {
    int expected = 0;
    while ((size_t{512} << (expected + 1)) <= bytes) ++expected;
    ASSERT_EQ(BinIndex(bytes), expected) << "bytes=" << bytes;
  }
  EXPECT_EQ(BinIndex(kMaxRequestBytes), 51);
  EXPECT_LT(BinIndex(SIZE_MAX - 511), kNumBins);
}

TEST(SizeBinsTest, SplitThresholds) {
  EXPECT_FALSE(ShouldSplit(true, 0));
  EXPECT_TRUE(ShouldSplit(true, 512));
  EXPECT_FALSE(ShouldSplit(false, 512));
  EXPECT_FALSE(ShouldSplit(false, 1 << 20));
  EXPECT_TRUE(ShouldSplit(false, (1 << 20) + 512));
}

}  // namespace
}  // namespace memory
}  // namespace tessera
