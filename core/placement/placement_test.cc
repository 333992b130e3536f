#include "core/placement/placement.h"

#include <gtest/gtest.h>

#include "core/common/limits.h"

namespace tessera {
namespace {

Placement MustParse(const char* text) {
  Result<Placement> p = Placement::Parse(text);
  EXPECT_TRUE(p.ok()) << text << ": " << p.status().ToString();
  return *p;
}

std::string ParseError(const char* text) {
  Result<Placement> p = Placement::Parse(text);
  EXPECT_FALSE(p.ok()) << text << " parsed as " << (p.ok() ? p->ToString() : "");
  return p.ok() ? "" : p.status().message();
}

TEST(PlacementTest, ParsesOneDimensionalList) {
  Placement p = MustParse("cpu:[0,1,2,3]");
  EXPECT_EQ(p.device_type(), DeviceType::kCpu);
  EXPECT_EQ(p.hierarchy(), (std::vector<int64_t>{4}));
  EXPECT_EQ(p.parallel_num(), 4);
  EXPECT_EQ(p.ToString(), "cpu:[0,1,2,3]");
}

TEST(PlacementTest, ParsesNestedListsAndRanges) {
  Placement p = MustParse(" cuda : [ [0, 1], [2, 3] ] ");
  EXPECT_EQ(p.device_type(), DeviceType::kCuda);
  EXPECT_EQ(p.hierarchy(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(p.ToString(), "cuda:[[0,1],[2,3]]");
  EXPECT_EQ(MustParse("cpu:0-3"), MustParse("cpu:[0,1,2,3]"));
  EXPECT_EQ(MustParse("cpu:[0-1,4]").ToString(), "cpu:[0,1,4]");
  EXPECT_EQ(MustParse("cpu:5").ToString(), "cpu:[5]");
  Placement three = MustParse("cpu:[[[0,1],[2,3]],[[4,5],[6,7]]]");
  EXPECT_EQ(three.hierarchy(), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(MustParse("cpu:[[0-2],[3-5]]").hierarchy(), (std::vector<int64_t>{2, 3}));
}

TEST(PlacementTest, PrintParseRoundTrip) {
  for (const char* text : {"cpu:[3,1,2]", "cuda:[[0,1,2],[3,4,5]]", "cpu:[[7],[3]]"}) {
    Placement p = MustParse(text);
    EXPECT_EQ(p.ToString(), text);
    EXPECT_EQ(MustParse(p.ToString().c_str()), p);
  }
}

TEST(PlacementTest, RankQueries) {
  Placement p = MustParse("cpu:[[4,2],[9,0]]");
  EXPECT_EQ(p.rank_at(0), 4);
  EXPECT_EQ(p.rank_at(3), 0);
  EXPECT_EQ(p.index_of(9), 2);
  EXPECT_EQ(p.index_of(5), -1);
  EXPECT_EQ(p.index_of(-1), -1);
  EXPECT_TRUE(p.contains(2));
  EXPECT_FALSE(p.contains(1));
  EXPECT_EQ(*p.RankAt(1), 2);
  EXPECT_EQ(p.RankAt(4).status().message(),
            "parallel index 4 is outside cpu:[[4,2],[9,0]] (parallel_num 4)");
  EXPECT_EQ(p.IndexOf(7).status().message(), "rank 7 is not in placement cpu:[[4,2],[9,0]]");
  EXPECT_EQ(p.IndexOf(7).status().code(), StatusCode::kNotFound);
}

TEST(PlacementTest, CoordinatesAndAxisGroups) {
  Placement p = MustParse("cpu:[[0,1,2],[3,4,5]]");
  EXPECT_EQ(p.Coordinate(4, 0), 1);
  EXPECT_EQ(p.Coordinate(4, 1), 1);
  EXPECT_EQ(p.Coordinate(2, 1), 2);
  EXPECT_EQ(p.AxisGroup(0, 4)->ToString(), "cpu:[1,4]");
  EXPECT_EQ(p.AxisGroup(1, 4)->ToString(), "cpu:[3,4,5]");
  EXPECT_EQ(p.AxisGroup(1, 0)->ToString(), "cpu:[0,1,2]");
  EXPECT_EQ(p.AxisGroup(0, 2)->ToString(), "cpu:[2,5]");
  EXPECT_EQ(p.AxisGroup(2, 0).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(p.AxisGroup(-1, 0).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(p.AxisGroup(0, 6).status().code(), StatusCode::kNotFound);
}

TEST(PlacementTest, EqualityAndHash) {
  EXPECT_EQ(MustParse("cpu:[0,1]"), MustParse("cpu:0-1"));
  EXPECT_EQ(MustParse("cpu:[0,1]").Hash(), MustParse("cpu:0-1").Hash());
  EXPECT_NE(MustParse("cpu:[0,1]"), MustParse("cuda:[0,1]"));
  EXPECT_NE(MustParse("cpu:[0,1]"), MustParse("cpu:[1,0]"));
  EXPECT_NE(MustParse("cpu:[0,1,2,3]"), MustParse("cpu:[[0,1],[2,3]]"));
}

TEST(PlacementTest, LargeRankDoesNotAllocateByRank) {
  Placement p = MustParse("cpu:[2000000000,3]");
  EXPECT_EQ(p.index_of(2000000000), 0);
  EXPECT_EQ(p.index_of(3), 1);
}

TEST(PlacementTest, BadText) {
  EXPECT_NE(ParseError("cpu:[0,0]").find("lists rank 0 twice (at indices 0 and 1)"),
            std::string::npos);
  EXPECT_NE(ParseError("cpu:[[0,1],[2,1]]").find("rank 1 twice"), std::string::npos);
  EXPECT_NE(ParseError("cpu:[]").find("empty rank list"), std::string::npos);
  EXPECT_NE(ParseError("cpu:[[0,1],[2,3]").find("expected ']'"), std::string::npos);
  EXPECT_NE(ParseError("cpu:[0,1]]").find("expected end of text"), std::string::npos);
  EXPECT_NE(ParseError("cpu:[[0,1],[2]]").find("rectangular"), std::string::npos);
  EXPECT_NE(ParseError("cpu:[[0,1],2]").find("nested list"), std::string::npos);
  EXPECT_NE(ParseError("cpu:[0,[1,2]]").find("a rank, not a nested list"), std::string::npos);
  EXPECT_NE(ParseError("tpu:[0]").find("device type \"cpu\" or \"cuda\""), std::string::npos);
  EXPECT_NE(ParseError("cpu[0]").find("expected ':'"), std::string::npos);
  EXPECT_NE(ParseError("cpu:[-1]").find("non-negative integer"), std::string::npos);
  EXPECT_NE(ParseError("cpu:3-1").find("end is >= its start (3-1)"), std::string::npos);
  EXPECT_NE(ParseError("cpu:[3000000000]").find("below 2^31"), std::string::npos);
  EXPECT_NE(ParseError("").find("device type"), std::string::npos);
  EXPECT_NE(ParseError("cpu:").find("non-negative integer"), std::string::npos);
  EXPECT_NE(ParseError("cpu:[[[[[[[[[0]]]]]]]]]").find("at most 8 levels"), std::string::npos);
}

TEST(PlacementTest, MakeChecksArguments) {
  EXPECT_TRUE(Placement::Make(DeviceType::kCpu, {0, 1, 2, 3}, {2, 2}).ok());
  EXPECT_EQ(Placement::Make(DeviceType::kCpu, {0, 1, 2}, {2, 2}).status().message(),
            "placement hierarchy [2,2] does not hold 3 ranks");
  EXPECT_EQ(Placement::Make(DeviceType::kCpu, {}, {0}).status().message(),
            "placement has an empty rank list");
  EXPECT_EQ(Placement::Make(DeviceType::kCpu, {0}, {}).status().message(),
            "placement hierarchy has 0 axes; expected 1 to 8");
  EXPECT_EQ(Placement::Make(DeviceType::kCpu, {0, 1}, {2, 0}).status().message(),
            "placement hierarchy axis 1 is 0; axes must be >= 1");
  EXPECT_EQ(Placement::Make(DeviceType::kCpu, {0, -2}, {2}).status().message(),
            "placement rank -2 is negative");
  EXPECT_EQ(Placement::Make(static_cast<DeviceType>(7), {0}, {1}).status().message(),
            "placement device type 7 is not cpu (0) or cuda (1)");
}

TEST(PlacementTest, OverflowingHierarchyIsRefused) {
  // 4 * (2^62 + 1) wraps to 4 unchecked, which matched the 4 ranks.
  const int64_t big = (int64_t{1} << 62) + 1;
  Result<Placement> p = Placement::Make(DeviceType::kCpu, {0, 1, 2, 3}, {4, big});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message(),
            "placement hierarchy [4,4611686018427387905] does not hold 4 ranks");
  EXPECT_FALSE(Placement::Make(DeviceType::kCpu, {0, 1, 2, 3}, {big, 4}).ok());
  EXPECT_FALSE(
      Placement::Make(DeviceType::kCpu, {0}, {int64_t{1} << 32, int64_t{1} << 32, 1}).ok());
}

TEST(PlacementTest, ParsingBoundsItsWork) {
  // 844674408 ranks would be 3.4 GB of rank ids; refused before any is stored.
  EXPECT_EQ(ParseError("cpu:0-844674407"),
            "bad placement \"cpu:0-844674407\": expected at most 1048576 ranks in a placement "
            "(this range, 0-844674407, brings the count to 844674408) at position 15, found end "
            "of text");
  // Many ranges add up.
  EXPECT_NE(ParseError("cpu:[0-600000,600001-1200000]").find("brings the count to 1200001"),
            std::string::npos);
  EXPECT_TRUE(Placement::Parse("cpu:0-1048575").ok());
  EXPECT_NE(ParseError("cpu:0-1048576").find("at most 1048576 ranks"), std::string::npos);
  const std::string long_text = "cpu:[0" + std::string(70000, ' ') + "]";
  EXPECT_EQ(ParseError(long_text.c_str()),
            "placement text is 70007 characters long; at most 65536 are accepted");
  std::vector<int32_t> ranks(kMaxPlacementRanks + 1);
  for (size_t i = 0; i < ranks.size(); ++i) ranks[i] = static_cast<int32_t>(i);
  EXPECT_EQ(Placement::Make(DeviceType::kCpu, ranks, {kMaxPlacementRanks + 1}).status().message(),
            "placement has 1048577 ranks; at most 1048576 are supported");
}

}  // namespace
}  // namespace tessera
