#include "core/sbp/balanced_split.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

// OneFlow's own BalancedSplitter test: 20 over 6.
TEST(BalancedSplitTest, MatchesOneFlowExample) {
  const Range expected[] = {{0, 4}, {4, 8}, {8, 11}, {11, 14}, {14, 17}, {17, 20}};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(BalancedRange(20, 6, i), expected[i]) << i;
}

TEST(BalancedSplitTest, FewerItemsThanPartsGivesEmptyTails) {
  EXPECT_EQ(BalancedRange(2, 3, 0), (Range{0, 1}));
  EXPECT_EQ(BalancedRange(2, 3, 1), (Range{1, 2}));
  EXPECT_EQ(BalancedRange(2, 3, 2), (Range{2, 2}));
  EXPECT_EQ(BalancedRange(0, 4, 3), (Range{0, 0}));
}

// Property: parts tile [0, total) in order and differ in size by at most one,
// larger parts first.
TEST(BalancedSplitTest, PartsTileTheRange) {
  for (int64_t total = 0; total <= 40; ++total) {
    for (int64_t parts = 1; parts <= 9; ++parts) {
      int64_t next = 0;
      for (int64_t i = 0; i < parts; ++i) {
        Range r = BalancedRange(total, parts, i);
        EXPECT_EQ(r.begin, next);
        EXPECT_GE(r.size(), total / parts);
        EXPECT_LE(r.size(), total / parts + 1);
        if (i > 0) {
          EXPECT_LE(r.size(), BalancedRange(total, parts, i - 1).size());
        }
        next = r.end;
      }
      EXPECT_EQ(next, total);
    }
  }
}

}  // namespace
}  // namespace tessera
