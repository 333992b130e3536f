#include "core/checkpoint/shard_plan.h"

#include <gtest/gtest.h>

namespace tessera::checkpoint {
namespace {

Placement P(const char* text) { return Placement::Parse(text).value(); }
NdSbp N(const char* text) { return NdSbp::Parse(text).value(); }

TEST(ShardPlan, SplitsAreOneShardPerRank) {
  Result<std::vector<PlannedShard>> plan = PlanShards(Shape{7, 2}, P("cpu:[0,1,2]"), N("S(0)"));
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->size(), 3u);
  // Balanced: 3, 2, 2 rows.
  const int64_t begins[] = {0, 3, 5};
  const int64_t ends[] = {3, 5, 7};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ((*plan)[i].writer, i);
    EXPECT_EQ((*plan)[i].layout.ranges[0].begin, begins[i]);
    EXPECT_EQ((*plan)[i].layout.ranges[0].end, ends[i]);
  }
}

TEST(ShardPlan, BroadcastIsWrittenOnceByTheLowestRank) {
  Result<std::vector<PlannedShard>> plan = PlanShards(Shape{4}, P("cpu:[2,0,1]"), N("B"));
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->size(), 1u);
  EXPECT_EQ((*plan)[0].writer, 0);
  // (S(0), B) on 2x2: rows split over the first axis, each half held twice.
  plan = PlanShards(Shape{5, 3}, P("cpu:[[3,1],[2,0]]"), N("(S(0), B)"));
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->size(), 2u);
  EXPECT_EQ((*plan)[0].writer, 1);
  EXPECT_EQ((*plan)[0].layout.ranges[0].end, 3);
  EXPECT_EQ((*plan)[1].writer, 0);
  EXPECT_EQ((*plan)[1].layout.ranges[0].begin, 3);
}

TEST(ShardPlan, EmptyPiecesAreSkippedAndPartialIsRefused) {
  Result<std::vector<PlannedShard>> plan = PlanShards(Shape{2}, P("cpu:[0,1,2]"), N("S(0)"));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->size(), 2u);
  EXPECT_EQ(PlanShards(Shape{2}, P("cpu:[0,1]"), N("P")).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(WithoutPartial(N("(P, S(1), P(max))")), N("(B, S(1), B)"));
}

TEST(ShardPlan, Intersect) {
  const Range a[] = {{0, 4}, {2, 6}};
  const Range b[] = {{3, 8}, {0, 3}};
  std::vector<Range> both = Intersect(a, b, 2);
  EXPECT_EQ(both[0], (Range{3, 4}));
  EXPECT_EQ(both[1], (Range{2, 3}));
  const Range c[] = {{5, 8}, {0, 3}};
  EXPECT_EQ(Intersect(a, c, 2)[0].size(), 0);
}

}  // namespace
}  // namespace tessera::checkpoint
