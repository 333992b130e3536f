#include "core/sbp/physical_layout.h"

#include <gtest/gtest.h>

#include <vector>

namespace tessera {
namespace {

PhysicalLayout LayoutOf(const char* placement, const char* nd_sbp, Shape shape, int32_t rank) {
  Result<PhysicalLayout> r =
      PhysicalLayoutOfRank(shape, *Placement::Parse(placement), *NdSbp::Parse(nd_sbp), rank);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return *r;
}

TEST(PhysicalLayoutTest, IssueExampleSixByFiveOnTwoByTwo) {
  // (6,5) under (S(0), S(1)) on [[0,1],[2,3]]: rows split 3/3 by axis 0 of the
  // hierarchy, columns 3/2 by axis 1.
  const char* expected[] = {"[0,3)x[0,3)", "[0,3)x[3,5)", "[3,6)x[0,3)", "[3,6)x[3,5)"};
  const Shape local[] = {{3, 3}, {3, 2}, {3, 3}, {3, 2}};
  for (int rank = 0; rank < 4; ++rank) {
    PhysicalLayout l = LayoutOf("cpu:[[0,1],[2,3]]", "(S(0), S(1))", {6, 5}, rank);
    EXPECT_EQ(l.RangesToString(), expected[rank]) << rank;
    EXPECT_EQ(l.local_shape, local[rank]) << rank;
  }
}

TEST(PhysicalLayoutTest, NestedSplitsOfOneAxis) {
  // OneFlow's example: (S0, S0) on [2,2] over 6 rows gives 2,1,2,1 rows, while a
  // flat [4]:S0 gives 2,2,1,1.
  const int64_t nested[] = {2, 1, 2, 1};
  const int64_t flat[] = {2, 2, 1, 1};
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(LayoutOf("cpu:[[0,1],[2,3]]", "(S(0), S(0))", {6}, rank).local_shape.dim(0),
              nested[rank]);
    EXPECT_EQ(LayoutOf("cpu:[0,1,2,3]", "S(0)", {6}, rank).local_shape.dim(0), flat[rank]);
  }
  PhysicalLayout l = LayoutOf("cpu:[[0,1],[2,3]]", "(S(0), S(0))", {6}, 3);
  EXPECT_EQ(l.RangesToString(), "[5,6)");
}

TEST(PhysicalLayoutTest, BroadcastAndPartialHoldTheWholeRange) {
  for (const char* sbp : {"B", "P", "P(max)", "P(min)"}) {
    PhysicalLayout l = LayoutOf("cpu:[0,1,2]", sbp, {4, 7}, 2);
    EXPECT_EQ(l.local_shape, (Shape{4, 7})) << sbp;
    EXPECT_EQ(l.RangesToString(), "[0,4)x[0,7)");
  }
  PhysicalLayout l = LayoutOf("cpu:[[0,1],[2,3]]", "(B, S(1))", {4, 7}, 2);
  EXPECT_EQ(l.RangesToString(), "[0,4)x[0,4)");
  l = LayoutOf("cpu:[[0,1],[2,3]]", "(S(1), P)", {4, 7}, 2);
  EXPECT_EQ(l.RangesToString(), "[0,4)x[4,7)");
}

TEST(PhysicalLayoutTest, DimSmallerThanPartsGivesZeroSizedLocals) {
  // 2 rows over 3 ranks: 1, 1, 0.
  EXPECT_EQ(LayoutOf("cpu:[0,1,2]", "S(0)", {2, 3}, 0).local_shape, (Shape{1, 3}));
  EXPECT_EQ(LayoutOf("cpu:[0,1,2]", "S(0)", {2, 3}, 1).local_shape, (Shape{1, 3}));
  PhysicalLayout empty = LayoutOf("cpu:[0,1,2]", "S(0)", {2, 3}, 2);
  EXPECT_EQ(empty.local_shape, (Shape{0, 3}));
  EXPECT_EQ(empty.local_shape.num_elements(), 0);
  EXPECT_EQ(empty.RangesToString(), "[2,2)x[0,3)");
  EXPECT_EQ(LayoutOf("cpu:[0,1,2,3]", "S(0)", {0}, 3).local_shape, (Shape{0}));
}

TEST(PhysicalLayoutTest, RankOrderFollowsThePlacementNotRankNumbers) {
  // Rank 7 is index 0, so it holds the first rows.
  EXPECT_EQ(LayoutOf("cpu:[7,2,5]", "S(0)", {7}, 7).RangesToString(), "[0,3)");
  EXPECT_EQ(LayoutOf("cpu:[7,2,5]", "S(0)", {7}, 5).RangesToString(), "[5,7)");
}

// Every element of the logical tensor is held exactly once across the ranks of a
// fully split nd-sbp, and exactly parallel_num/split_parts times otherwise.
TEST(PhysicalLayoutTest, SplitsTileTheTensorForManyShapes) {
  Placement p = *Placement::Parse("cpu:[[0,1,2],[3,4,5]]");
  const char* sbps[] = {"(S(0), S(1))", "(S(1), S(0))", "(S(0), S(0))",
                        "(S(1), S(1))", "(S(0), B)",    "(P, S(1))"};
  const int copies[] = {1, 1, 1, 1, 3, 2};
  for (int s = 0; s < 6; ++s) {
    NdSbp nd = *NdSbp::Parse(sbps[s]);
    for (int64_t rows = 0; rows <= 8; ++rows) {
      for (int64_t cols = 0; cols <= 7; ++cols) {
        std::vector<int> held(rows * cols, 0);
        for (int64_t i = 0; i < p.parallel_num(); ++i) {
          PhysicalLayout l = *PhysicalLayoutAt(Shape{rows, cols}, p, nd, i);
          EXPECT_EQ(l.local_shape.num_elements(), l.ranges[0].size() * l.ranges[1].size());
          for (int64_t r = l.ranges[0].begin; r < l.ranges[0].end; ++r) {
            for (int64_t c = l.ranges[1].begin; c < l.ranges[1].end; ++c) ++held[r * cols + c];
          }
        }
        for (int h : held) ASSERT_EQ(h, copies[s]) << sbps[s] << " " << rows << "x" << cols;
      }
    }
  }
}

// The flat row-major indices a piece holds, enumerated box by box: the reference for
// ContiguousRunOffset.
std::vector<int64_t> FlatIndices(const PhysicalLayout& l, const Shape& shape) {
  std::vector<int64_t> out;
  if (l.local_shape.num_elements() == 0) return out;
  std::vector<int64_t> at(shape.ndim());
  for (int d = 0; d < shape.ndim(); ++d) at[d] = l.ranges[d].begin;
  while (true) {
    int64_t flat = 0;
    for (int d = 0; d < shape.ndim(); ++d) flat = flat * shape.dim(d) + at[d];
    out.push_back(flat);
    int d = shape.ndim() - 1;  // odometer: bump the last dim, carry into earlier ones
    for (; d >= 0; --d) {
      if (++at[d] < l.ranges[d].end) break;
      at[d] = l.ranges[d].begin;
    }
    if (d < 0) return out;
  }
}

TEST(PhysicalLayoutTest, ContiguousRunOffsetAgreesWithEnumeration) {
  const char* placements[] = {"cpu:[0]", "cpu:[0,1,2]", "cpu:[[0,1],[2,3]]", "cpu:[[0],[1],[2]]"};
  const std::vector<const char*> one_axis = {"B", "S(0)", "S(1)", "S(2)", "P"};
  const std::vector<const char*> two_axes = {"(S(0), S(1))", "(S(1), S(0))", "(B, S(0))",
                                             "(S(0), S(0))", "(S(2), B)",    "(P, S(1))"};
  const Shape shapes[] = {{}, {7}, {1, 5}, {4, 1, 3}, {3, 5, 2}, {2, 1, 6}};
  int runs = 0, not_runs = 0;
  for (const char* text : placements) {
    const Placement p = *Placement::Parse(text);
    const bool two = p.hierarchy().size() == 2;
    for (const char* sbp : two ? two_axes : one_axis) {
      for (const Shape& shape : shapes) {
        Result<NdSbp> nd = NdSbp::Parse(sbp);
        if (!ValidateNdSbp(*nd, p, shape).ok()) continue;
        for (int64_t i = 0; i < p.parallel_num(); ++i) {
          const PhysicalLayout l = *PhysicalLayoutAt(shape, p, *nd, i);
          const std::vector<int64_t> flat = FlatIndices(l, shape);
          bool run = !flat.empty();
          for (size_t j = 1; j < flat.size(); ++j) run = run && flat[j] == flat[j - 1] + 1;
          const int64_t offset = ContiguousRunOffset(l, shape);
          EXPECT_EQ(offset, run ? flat[0] : -1) << text << " " << sbp << " " << shape.ToString()
                                                << " index " << i << " " << l.RangesToString();
          (run ? runs : not_runs)++;
        }
      }
    }
  }
  // Both answers occur, so neither can pass by always answering the same.
  EXPECT_GT(runs, 10);
  EXPECT_GT(not_runs, 10);
}

TEST(PhysicalLayoutTest, BadInput) {
  Placement p = *Placement::Parse("cpu:[[0,1],[2,3]]");
  Result<PhysicalLayout> r = PhysicalLayoutOfRank(Shape{6, 5}, p, *NdSbp::Parse("S(0)"), 0);
  EXPECT_NE(r.status().message().find("has 1 axes but placement"), std::string::npos);
  r = PhysicalLayoutOfRank(Shape{6, 5}, p, *NdSbp::Parse("(S(7), B)"), 0);
  EXPECT_NE(r.status().message().find("splits tensor axis 7"), std::string::npos);
  r = PhysicalLayoutOfRank(Shape{6, 5}, p, *NdSbp::Parse("(S(0), B)"), 4);
  EXPECT_EQ(r.status().message(), "rank 4 is not in placement cpu:[[0,1],[2,3]]");
  r = PhysicalLayoutAt(Shape{6, 5}, p, *NdSbp::Parse("(S(0), B)"), -1);
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
}

// The in-place form: fills every field (ranges past the shape's dims are reset, so a
// reused layout keeps nothing of a longer one) and leaves the caller's layout as it
// was on a bad input. Expected pieces worked out by hand: 7 rows split in 2 are [0,4)
// and [4,7), 5 columns [0,3) and [3,5).
TEST(PhysicalLayoutTest, InPlaceForm) {
  const Placement p = *Placement::Parse("cpu:[[0,1],[2,3]]");
  PhysicalLayout layout;
  ASSERT_TRUE(PhysicalLayoutAt(Shape{2, 3, 4}, p, *NdSbp::Parse("(B, B)"), 0, &layout).ok());
  EXPECT_EQ(layout.RangesToString(), "[0,2)x[0,3)x[0,4)");
  ASSERT_TRUE(PhysicalLayoutAt(Shape{7, 5}, p, *NdSbp::Parse("(S(0), S(1))"), 3, &layout).ok());
  EXPECT_EQ(layout.local_shape, (Shape{3, 2}));
  EXPECT_EQ(layout.RangesToString(), "[4,7)x[3,5)");
  EXPECT_EQ(layout.ranges[2].begin, 0);
  EXPECT_EQ(layout.ranges[2].end, 0);

  Status s = PhysicalLayoutAt(Shape{7, 5}, p, *NdSbp::Parse("(S(0), S(1))"), 4, &layout);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_NE(s.message().find("parallel index 4"), std::string::npos);
  s = PhysicalLayoutAt(Shape{7, 5}, p, *NdSbp::Parse("S(0)"), 0, &layout);
  EXPECT_NE(s.message().find("has 1 axes but placement"), std::string::npos);
  EXPECT_EQ(layout.local_shape, (Shape{3, 2}));
  EXPECT_EQ(layout.RangesToString(), "[4,7)x[3,5)");
}

}  // namespace
}  // namespace tessera
