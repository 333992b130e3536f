#include "core/boxing/axis_move.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace tessera::boxing {
namespace {

NdSbp Nd(const std::string& text) { return NdSbp::Parse(text).value(); }
Sbp S(const std::string& text) { return Sbp::Parse(text).value(); }

TEST(CheckAxisMoveTest, LaterSplitOfTheSameDimBreaksTheOneDView) {
  // Axis 0 of (S(0), S(0)) holds the rows that axis 1 cuts again.
  Status s = CheckAxisMove(Nd("(S(0), S(0))"), 0, S("S(1)"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "changing axis 0 of (S(0), S(0)) from S(0) to S(1) is not one 1-d boxing: the later "
            "axis 1 also splits tensor dim 0");
  // The new split counts too.
  EXPECT_FALSE(CheckAxisMove(Nd("(B, S(1))"), 0, S("S(1)")).ok());
  EXPECT_FALSE(CheckAxisMove(Nd("(P, B, S(2))"), 0, S("S(2)")).ok());
}

TEST(CheckAxisMoveTest, EarlierSplitsAndOtherDimsAreFine) {
  EXPECT_TRUE(CheckAxisMove(Nd("(S(0), S(0))"), 1, S("S(1)")).ok());
  EXPECT_TRUE(CheckAxisMove(Nd("(S(0), S(0))"), 1, S("B")).ok());
  EXPECT_TRUE(CheckAxisMove(Nd("(S(0), S(1))"), 0, S("B")).ok());
  EXPECT_TRUE(CheckAxisMove(Nd("(S(0), S(1))"), 0, S("S(2)")).ok());
  EXPECT_TRUE(CheckAxisMove(Nd("(B, S(1))"), 0, S("S(0)")).ok());
}

TEST(CheckAxisMoveTest, ReducingMustNotJumpALaterPartialOfAnotherKind) {
  Status s = CheckAxisMove(Nd("(P, P(max))"), 0, S("S(0)"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "changing axis 0 of (P, P(max)) from P to S(0) would reduce P before the later axis "
            "1's P(max), which the nested value reduces first");
  EXPECT_FALSE(CheckAxisMove(Nd("(P(min), B, P)"), 0, S("B")).ok());
  EXPECT_FALSE(CheckAxisMove(Nd("(P(min), P)"), 0, S("P(max)")).ok());
  // The inner axis first, and equal kinds in any order.
  EXPECT_TRUE(CheckAxisMove(Nd("(P, P(max))"), 1, S("B")).ok());
  EXPECT_TRUE(CheckAxisMove(Nd("(P(max), P(max))"), 0, S("S(1)")).ok());
  EXPECT_TRUE(CheckAxisMove(Nd("(P, P)"), 0, S("B")).ok());
}

TEST(CheckAxisMoveTest, SplitToMaxOrMinOverALaterSumIsRejected) {
  Status s = CheckAxisMove(Nd("(S(0), P)"), 0, S("P(max)"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "changing axis 0 of (S(0), P) from S(0) to P(max) would make the later axis 1's P "
            "sum copies of P(max)'s identity, which is not that identity");
  EXPECT_FALSE(CheckAxisMove(Nd("(S(0), P)"), 0, S("P(min)")).ok());
  // From B or another partial the members keep copies of the value, not an identity.
  EXPECT_TRUE(CheckAxisMove(Nd("(B, P)"), 0, S("P(max)")).ok());
  // Max and min reduce copies of any identity to itself; sum keeps 0.
  EXPECT_TRUE(CheckAxisMove(Nd("(B, P(max))"), 0, S("P")).ok());
  EXPECT_TRUE(CheckAxisMove(Nd("(B, P(min))"), 0, S("P(max)")).ok());
  EXPECT_TRUE(CheckAxisMove(Nd("(B, P)"), 0, S("P")).ok());
  // Creating on the inner axis under any outer partial is fine.
  EXPECT_TRUE(CheckAxisMove(Nd("(P, B)"), 1, S("P(max)")).ok());
}

TEST(AxisGroupShapeTest, NarrowsByTheOtherAxesSplitsOnly) {
  const Placement grid = Placement::Parse("cpu:[[0,1],[2,3]]").value();
  const Shape shape{5, 7, 3};
  // (S(0), S(1)): index 0 (coords 0,0). Along axis 0 the group keeps axis 1's cut of
  // dim 1 (7 -> 4 | 3); along axis 1, axis 0's cut of dim 0 (5 -> 3 | 2).
  EXPECT_EQ(AxisGroupShape(shape, grid, Nd("(S(0), S(1))"), 0, 0), (Shape{5, 4, 3}));
  EXPECT_EQ(AxisGroupShape(shape, grid, Nd("(S(0), S(1))"), 1, 0), (Shape{3, 7, 3}));
  // Index 3 (coords 1,1).
  EXPECT_EQ(AxisGroupShape(shape, grid, Nd("(S(0), S(1))"), 0, 3), (Shape{5, 3, 3}));
  EXPECT_EQ(AxisGroupShape(shape, grid, Nd("(S(0), S(1))"), 1, 3), (Shape{2, 7, 3}));
  // Nested: along axis 1 of (S(0), S(0)) the group holds axis 0's part of dim 0.
  EXPECT_EQ(AxisGroupShape(shape, grid, Nd("(S(0), S(0))"), 1, 2), (Shape{2, 7, 3}));
  EXPECT_EQ(AxisGroupShape(shape, grid, Nd("(B, P)"), 0, 1), shape);
}

Placement Pl(const std::string& text) { return Placement::Parse(text).value(); }

TEST(CheckGroupMoveTest, OneSbpOnEveryAxisOfTheSet) {
  const Placement grid = Pl("cpu:[[0,1],[2,3]]");
  const AxisSet both = AxisBit(0) | AxisBit(1);
  EXPECT_TRUE(CheckGroupMove(Shape{5, 7}, grid, Nd("(P, P)"), both, S("B")).ok());
  EXPECT_TRUE(CheckGroupMove(Shape{5, 7}, grid, Nd("(B, B)"), both, S("P(max)")).ok());
  Status s = CheckGroupMove(Shape{5, 7}, grid, Nd("(P, P(max))"), both, S("B"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "changing axes 0,1 of (P, P(max)) from P to B at once is not one flattened boxing: "
            "axis 1 holds P(max), not P");
  // One axis: the same verdicts as CheckAxisMove.
  EXPECT_EQ(CheckGroupMove(Shape{5, 7}, grid, Nd("(S(0), S(0))"), AxisBit(0), S("S(1)")).message(),
            CheckAxisMove(Nd("(S(0), S(0))"), 0, S("S(1)")).message());
  EXPECT_TRUE(IsGroupMoveValid(Shape{5, 7}, grid, Nd("(P, P(max))"), AxisBit(1), S("B")));
}

TEST(CheckGroupMoveTest, SplitsMustFlattenExactly) {
  const Placement grid = Pl("cpu:[[0,1],[2,3]]");
  const AxisSet both = AxisBit(0) | AxisBit(1);
  // 8 and 5 rows split alike nested (4 | 4 -> 2,2,2,2; 3 | 2 -> 2,1,1,1) and flat.
  EXPECT_TRUE(CheckGroupMove(Shape{8, 3}, grid, Nd("(S(0), S(0))"), both, S("B")).ok());
  EXPECT_TRUE(CheckGroupMove(Shape{5, 3}, grid, Nd("(S(0), S(0))"), both, S("S(1)")).ok());
  // 6 rows: nested 2,1,2,1, flat 2,2,1,1; as a source and as a target.
  Status s = CheckGroupMove(Shape{6, 3}, grid, Nd("(S(0), S(0))"), both, S("B"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "changing axes 0,1 of (S(0), S(0)) from S(0) to B at once is not one flattened "
            "boxing: the nested splits along the axes do not cut the tensor as one balanced "
            "split over their group does");
  EXPECT_FALSE(IsGroupMoveValid(Shape{3, 6}, grid, Nd("(P, P)"), both, S("S(1)")));
  EXPECT_TRUE(IsGroupMoveValid(Shape{3, 8}, grid, Nd("(P, P)"), both, S("S(1)")));
  // Group tensors narrowed by an axis outside the set, unevenly: 7 rows over axis 0
  // leave 4 and 3, which axes 1 and 2 (2 x 2) must both flatten exactly: 4 does
  // (1,1,1,1), 3 does (1,1,1,0).
  const Placement cube = Pl("cpu:[[[0,1],[2,3]],[[4,5],[6,7]]]");
  EXPECT_TRUE(IsGroupMoveValid(Shape{7, 2}, cube, Nd("(S(0), S(0), S(0))"), AxisBit(1) | AxisBit(2),
                               S("B")));
  // 14 rows leave 7 | 7: nested 2,2,2,1, flat 2,2,2,1; 12 leave 6 | 6: not exact.
  EXPECT_TRUE(IsGroupMoveValid(Shape{14, 2}, cube, Nd("(S(0), S(0), S(0))"),
                               AxisBit(1) | AxisBit(2), S("B")));
  EXPECT_FALSE(IsGroupMoveValid(Shape{12, 2}, cube, Nd("(S(0), S(0), S(0))"),
                                AxisBit(1) | AxisBit(2), S("B")));
}

TEST(CheckGroupMoveTest, LaterAxesAreThoseOutsideTheSetAfterItsFirstAxis) {
  const Placement cube = Pl("cpu:[[[0,1]],[[2,3]]]");  // 2 x 1 x 2
  const AxisSet outer = AxisBit(0) | AxisBit(2);
  // Axis 1 lies between the set's axes: it is later than axis 0.
  Status s = CheckGroupMove(Shape{4, 4}, cube, Nd("(P, P(max), P)"), outer, S("B"));
  EXPECT_EQ(s.message(),
            "changing axes 0,2 of (P, P(max), P) from P to B at once would reduce P before the "
            "later axis 1's P(max), which the nested value reduces first");
  s = CheckGroupMove(Shape{4, 4}, cube, Nd("(B, S(0), B)"), outer, S("S(0)"));
  EXPECT_EQ(s.message(),
            "changing axes 0,2 of (B, S(0), B) from B to S(0) at once is not one 1-d boxing: the "
            "later axis 1 also splits tensor dim 0");
  EXPECT_TRUE(CheckGroupMove(Shape{4, 4}, cube, Nd("(P, S(1), P)"), outer, S("S(0)")).ok());
  // An earlier axis outside the set of any kind is fine.
  const Placement wide = Pl("cpu:[[[0,1]],[[2,3]]]");
  EXPECT_TRUE(
      CheckGroupMove(Shape{4, 4}, wide, Nd("(P(max), P, P)"), AxisBit(1) | AxisBit(2), S("B"))
          .ok());
}

TEST(GroupTest, RanksShapeAndSize) {
  const Placement cube = Pl("cpu:[[[0,1],[2,3]],[[4,5],[6,7]]]");
  // Index 5 = coords (1, 0, 1): the group of axes 0 and 2 varies those, row-major.
  EXPECT_EQ(GroupRanks(cube, AxisBit(0) | AxisBit(2), 5), (std::vector<int32_t>{0, 1, 4, 5}));
  EXPECT_EQ(GroupRanks(cube, AxisBit(1), 5), (std::vector<int32_t>{5, 7}));
  EXPECT_EQ(GroupRanks(cube, AxisBit(0) | AxisBit(1) | AxisBit(2), 3).size(), 8u);
  EXPECT_EQ(GroupSize(cube, AxisBit(0) | AxisBit(2)), 4);
  const Placement reversed = Pl("cpu:[[3,2],[1,0]]");
  EXPECT_EQ(GroupRanks(reversed, AxisBit(0) | AxisBit(1), 0), (std::vector<int32_t>{3, 2, 1, 0}));
  // Narrowed only by the splits of axes outside the set.
  EXPECT_EQ(GroupShape(Shape{5, 7, 3}, cube, Nd("(S(0), S(1), S(2))"), AxisBit(0) | AxisBit(2), 3),
            (Shape{5, 3, 3}));
  EXPECT_EQ(FirstAxis(AxisBit(2) | AxisBit(5)), 2);
  EXPECT_EQ(AxisCount(AxisBit(2) | AxisBit(5)), 2);
}

TEST(CostOfAxisMoveTest, WireBytesPastInt64Saturate) {
  // [1.5 * 2^60] f32 is 1.5 * 2^62 bytes (fits int64); all-reducing it over 8 ranks moves
  // 2 * 7/8 of that, about 1.2e19 bytes, past int64 (fuzz/boxing_plan_fuzzer.cc found the
  // undefined double -> int64 conversion).
  const Shape group{(int64_t{1} << 60) + (int64_t{1} << 59)};
  AxisMoveCost cost = CostOfAxisMove(group, 4, 8, S("P"), S("B"));
  EXPECT_EQ(cost.collective, Collective::kAllReduce);
  EXPECT_EQ(cost.wire_bytes, std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(std::isfinite(cost.seconds));
  // Below the limit the figure stays exact: S -> B over 2 ranks of [2^20] f32 gathers
  // half of 4 MiB.
  EXPECT_EQ(CostOfAxisMove(Shape{int64_t{1} << 20}, 4, 2, S("S(0)"), S("B")).wire_bytes,
            int64_t{1} << 21);
}

TEST(CostOfAxisMoveTest, PicksBox1dsCollective) {
  const Shape group{4, 6};
  EXPECT_EQ(CostOfAxisMove(group, 4, 2, S("S(0)"), S("B")).collective, Collective::kAllGather);
  EXPECT_EQ(CostOfAxisMove(group, 4, 2, S("P"), S("B")).collective, Collective::kAllReduce);
  EXPECT_EQ(CostOfAxisMove(group, 4, 2, S("P"), S("S(1)")).collective, Collective::kReduceScatter);
  EXPECT_EQ(CostOfAxisMove(group, 4, 2, S("S(0)"), S("S(1)")).collective, Collective::kAllToAll);
  EXPECT_EQ(CostOfAxisMove(group, 4, 2, S("B"), S("S(1)")).collective, Collective::kLocalSlice);
  EXPECT_EQ(CostOfAxisMove(group, 4, 2, S("S(1)"), S("P")).collective, Collective::kLocalFill);
  // Into P(max) every rank keeps the value: an all-reduce; into P one rank does.
  EXPECT_EQ(CostOfAxisMove(group, 4, 2, S("P"), S("P(max)")).collective, Collective::kAllReduce);
  EXPECT_EQ(CostOfAxisMove(group, 4, 2, S("P(max)"), S("P")).collective, Collective::kReduce);
  EXPECT_EQ(CostOfAxisMove(group, 4, 1, S("P"), S("B")).collective, Collective::kLocalCopy);

  // 96 bytes over 2 ranks. S(1) -> B gathers parts that are not contiguous in the
  // output (dim 0 varies before them): received in place, but the own part (48
  // bytes) is copied locally.
  const double alpha = kAlphaSeconds, beta = kBetaSecondsPerByte, gamma = kGammaSecondsPerByte;
  const double step = kStepSeconds;
  AxisMoveCost gather0 = CostOfAxisMove(group, 4, 2, S("S(0)"), S("B"));
  EXPECT_DOUBLE_EQ(gather0.seconds, step + alpha + beta * 48);
  EXPECT_EQ(gather0.wire_bytes, 48);
  AxisMoveCost gather1 = CostOfAxisMove(group, 4, 2, S("S(1)"), S("B"));
  EXPECT_DOUBLE_EQ(gather1.seconds, step + alpha + beta * 48 + gamma * 48);
  AxisMoveCost allreduce = CostOfAxisMove(group, 4, 2, S("P"), S("B"));
  EXPECT_DOUBLE_EQ(allreduce.seconds, step + 2 * alpha + 2 * beta * 48 + gamma * 48);
  AxisMoveCost slice = CostOfAxisMove(group, 4, 2, S("B"), S("S(0)"));
  EXPECT_DOUBLE_EQ(slice.seconds, step + gamma * 48);
  EXPECT_EQ(slice.wire_bytes, 0);
}

}  // namespace
}  // namespace tessera::boxing
