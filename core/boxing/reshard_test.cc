// ForEachTransfer and LoadOfReshard without MPI: coverage, sender choice and load.
// (Running a reshard needs ranks: tests/boxing/boxing_test.cc.)
#include "core/boxing/reshard.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/sbp/physical_layout.h"

namespace tessera::boxing {
namespace {

Placement P(const std::string& text) { return Placement::Parse(text).value(); }
NdSbp Nd(const std::string& text) { return NdSbp::Parse(text).value(); }

bool Inside(const Region& inner, const PhysicalLayout& outer) {
  for (int d = 0; d < inner.ndim; ++d) {
    if (inner.ranges[d].begin < outer.ranges[d].begin ||
        inner.ranges[d].end > outer.ranges[d].end) {
      return false;
    }
  }
  return true;
}

// Every destination element arrives exactly once, from a source that holds it.
void CheckCoverage(const Shape& shape, const Placement& src_p, const NdSbp& src,
                   const Placement& dst_p, const NdSbp& dst) {
  SCOPED_TRACE(src_p.ToString() + " " + src.ToString() + " -> " + dst_p.ToString() + " " +
               dst.ToString() + " of " + shape.ToString());
  std::vector<std::vector<int>> hits(dst_p.parallel_num(),
                                     std::vector<int>(shape.num_elements(), 0));
  ForEachTransfer(shape, src_p, src, dst_p, dst, [&](const Transfer& t) {
    PhysicalLayout from = PhysicalLayoutAt(shape, src_p, src, t.src_index).value();
    PhysicalLayout to = PhysicalLayoutAt(shape, dst_p, dst, t.dst_index).value();
    EXPECT_TRUE(Inside(t.region, from));
    EXPECT_TRUE(Inside(t.region, to));
    EXPECT_EQ(t.local, src_p.rank_at(t.src_index) == dst_p.rank_at(t.dst_index));
    // Every logical element of the region, by a plain odometer.
    std::vector<int64_t> idx(shape.ndim());
    for (int d = 0; d < shape.ndim(); ++d) idx[d] = t.region.ranges[d].begin;
    for (int64_t e = 0; e < t.region.num_elements(); ++e) {
      int64_t flat = 0;
      for (int d = 0; d < shape.ndim(); ++d) flat = flat * shape.dim(d) + idx[d];
      ++hits[t.dst_index][flat];
      for (int d = shape.ndim() - 1; d >= 0; --d) {
        if (++idx[d] < t.region.ranges[d].end) break;
        idx[d] = t.region.ranges[d].begin;
      }
    }
  });
  for (int64_t i = 0; i < dst_p.parallel_num(); ++i) {
    PhysicalLayout layout = PhysicalLayoutAt(shape, dst_p, dst, i).value();
    for (int64_t k = 0; k < shape.num_elements(); ++k) {
      int64_t rest = k;
      bool held = true;
      for (int d = shape.ndim() - 1; d >= 0; --d) {
        const int64_t x = rest % shape.dim(d);
        rest /= shape.dim(d);
        held = held && x >= layout.ranges[d].begin && x < layout.ranges[d].end;
      }
      EXPECT_EQ(hits[i][k], held ? 1 : 0) << "dst index " << i << " element " << k;
    }
  }
}

TEST(ReshardTest, EveryDestinationElementArrivesOnce) {
  const char* const one_d[] = {"S(0)", "S(1)", "S(2)", "B"};
  const char* const two_d[] = {"(S(0), S(1))", "(S(0), S(0))", "(B, S(2))", "(S(1), B)", "(B, B)"};
  const Shape shapes[] = {Shape{5, 7, 3}, Shape{2, 1, 3}};
  const char* const line_placements[] = {"cpu:[0,1]", "cpu:[1,2,3]", "cpu:[3]", "cpu:[2,0,1]"};
  const char* const grid_placements[] = {"cpu:[[0,1],[2,3]]", "cpu:[[3],[1],[0]]"};
  std::vector<std::pair<Placement, NdSbp>> layouts;
  for (const char* p : line_placements) {
    for (const char* nd : one_d) layouts.push_back({P(p), Nd(nd)});
  }
  for (const char* p : grid_placements) {
    for (const char* nd : two_d) layouts.push_back({P(p), Nd(nd)});
  }
  for (const Shape& shape : shapes) {
    for (const auto& [src_p, src] : layouts) {
      for (const auto& [dst_p, dst] : layouts) CheckCoverage(shape, src_p, src, dst_p, dst);
    }
  }
}

TEST(ReshardTest, DestinationThatHoldsTheDataCopiesLocally) {
  // cpu:[0,1,2] B -> cpu:[1,2,3] S(0): ranks 1 and 2 slice their own copy; only
  // rank 3 receives, from one holder.
  const Shape shape{6, 2};
  int wire = 0, local = 0;
  ForEachTransfer(shape, P("cpu:[0,1,2]"), Nd("B"), P("cpu:[1,2,3]"), Nd("S(0)"),
                  [&](const Transfer& t) { (t.local ? local : wire) += 1; });
  EXPECT_EQ(local, 2);
  EXPECT_EQ(wire, 1);
}

TEST(ReshardTest, BroadcastCopiesShareTheSending) {
  // Four holders of the whole tensor, four new ranks that each need a quarter: each
  // holder should send one quarter rather than one holder sending all.
  const Shape shape{8, 3};
  std::map<int64_t, int64_t> sent_by;
  ForEachTransfer(shape, P("cpu:[0,1,2,3]"), Nd("B"), P("cpu:[4,5,6,7]"), Nd("S(0)"),
                  [&](const Transfer& t) { sent_by[t.src_index] += t.region.num_elements(); });
  ASSERT_EQ(sent_by.size(), 4u);
  for (const auto& [index, elements] : sent_by) EXPECT_EQ(elements, 6) << "holder " << index;
}

TEST(ReshardTest, LoadSaturatesWhereOneRankSendsMoreThanInt64Bytes) {
  // One rank holds a [2^60] f32 (2^62 bytes) and sends all of it to each of 8 others:
  // 8 x 2^62 = 2^65 bytes, past int64 (found by fuzz/boxing_plan_fuzzer.cc; the sum
  // overflowed). Each receiver gets its 2^62 bytes exactly; the sender's total
  // saturates.
  const int64_t n = int64_t{1} << 60;
  const Placement to8 = P("cpu:[1,2,3,4,5,6,7,8]");
  ReshardLoad load = LoadOfReshard(Shape{n}, 4, P("cpu:[0]"), Nd("B"), to8, Nd("B"));
  EXPECT_EQ(load.ranks, 9);
  EXPECT_EQ(load.max_peers, 8);
  EXPECT_EQ(load.max_wire_bytes, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(load.max_local_bytes, 0);
  std::map<int64_t, int64_t> received;
  ForEachTransfer(Shape{n}, P("cpu:[0]"), Nd("B"), to8, Nd("B"), [&](const Transfer& t) {
    EXPECT_EQ(t.src_index, 0);
    received[t.dst_index] += t.region.num_elements();
  });
  ASSERT_EQ(received.size(), 8u);
  for (const auto& [index, elements] : received) EXPECT_EQ(elements, n) << "destination " << index;
}

TEST(ReshardTest, LoadOfADisjointMove) {
  // cpu:[0,1] S(0) -> cpu:[2,3] S(0) of [4,2] f32: each source sends its 2x2 block
  // (16 bytes) to one peer, contiguous, nothing local.
  ReshardLoad load =
      LoadOfReshard(Shape{4, 2}, 4, P("cpu:[0,1]"), Nd("S(0)"), P("cpu:[2,3]"), Nd("S(0)"));
  EXPECT_EQ(load.ranks, 4);
  EXPECT_EQ(load.max_peers, 1);
  EXPECT_EQ(load.max_wire_bytes, 16);
  EXPECT_EQ(load.max_local_bytes, 0);
  // S(1) -> S(0) across: rank 2 needs rows 0-1 of both sources' columns. Each piece
  // (2 rows of a 4x1 column) is one run of its source and lands strided in the
  // receiver's 2x2 block, written in place: still nothing copied locally.
  load = LoadOfReshard(Shape{4, 2}, 4, P("cpu:[0,1]"), Nd("S(1)"), P("cpu:[2,3]"), Nd("S(0)"));
  EXPECT_EQ(load.max_peers, 2);
  EXPECT_EQ(load.max_wire_bytes, 16);
  EXPECT_EQ(load.max_local_bytes, 0);
  // Ranks in both placements copy what they already hold: B -> S(0) onto the same
  // ranks in another order moves nothing and copies each rank's half (16 bytes).
  load = LoadOfReshard(Shape{4, 2}, 4, P("cpu:[0,1]"), Nd("B"), P("cpu:[1,0]"), Nd("S(0)"));
  EXPECT_EQ(load.max_wire_bytes, 0);
  EXPECT_EQ(load.max_local_bytes, 16);
}

TEST(ReshardTest, UnionRanksAreSortedAndUnique) {
  EXPECT_EQ(UnionRanks(P("cpu:[3,1]"), P("cpu:[[1,2],[0,3]]")), (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(UnionRanks(P("cpu:[5]"), P("cpu:[2]")), (std::vector<int32_t>{2, 5}));
}

}  // namespace
}  // namespace tessera::boxing
