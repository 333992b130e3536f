// tess_boxing_run, tess_boxing_plan_*, tess_comm_allreduce, tess_bucketed_allreducer_run and the
// collective timeout under mpirun with 1..4 ranks (3 is the uneven case; 4 adds the
// 2-d placement [[0,1],[2,3]]), through tessera.h only.
//
// Oracles are plain loops over logical values every rank builds itself. A rank's
// source piece is cut from the logical tensor with tess_layout_create's ranges; on
// partial axes the piece of the first rank of each partial group carries the value
// and the others carry terms that cancel (sum) or never win (max, min). A
// destination piece is compared with its slice of the logical tensor, or, when the
// destination is partial, boxed on to broadcast first. Values are multiples of 1/4
// with small magnitudes, so float sums are exact in any order.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/tessera.h"
#include "tests/capi/world_test_util.h"

namespace tessera::capi_test {
namespace {

const std::vector<int64_t> kShape = {7, 5};
constexpr int64_t kElements = 35;

// Multiples of 1/4 for floating types, whole numbers for integer ones.
template <typename T>
std::vector<T> Logical(int salt) {
  std::vector<T> v(kElements);
  for (int64_t i = 0; i < kElements; ++i) {
    const int64_t whole = (i * 7 + salt) % 23 - 11;
    v[i] = std::is_integral<T>::value ? static_cast<T>(whole) : static_cast<T>(whole / 4.0);
  }
  return v;
}

struct Piece {
  bool held = false;
  std::vector<int64_t> begin, end;  // logical ranges per dim
};

// Where `rank` sits in (placement, nd_sbp): its ranges, and its place in the group of
// ranks that share them along the partial axes (index 0 = the one that carries the
// value), with the partial kind.
struct PartialPlace {
  int64_t index = 0, size = 1;
  tess_sbp_kind kind = TESS_SBP_BROADCAST;
};

Piece RangesOf(const std::string& placement, const std::string& sbp, int rank) {
  PlacementPtr p = Placement(placement);
  NdSbpPtr s = NdSbp(sbp);
  Piece piece;
  int32_t holds = 0;
  EXPECT_EQ(tess_placement_contains(&holds, p.get(), rank), TESS_OK);
  if (!holds) return piece;
  tess_layout* layout = nullptr;
  EXPECT_EQ(tess_layout_create(&layout, p.get(), s.get(), kShape.data(), kShape.size(), rank),
            TESS_OK)
      << LastError();
  piece.held = true;
  for (size_t d = 0; d < kShape.size(); ++d) {
    int64_t b = 0, e = 0;
    EXPECT_EQ(tess_layout_range(&b, &e, layout, d), TESS_OK);
    piece.begin.push_back(b);
    piece.end.push_back(e);
  }
  tess_layout_destroy(layout);
  return piece;
}

PartialPlace PartialPlaceOf(const std::string& placement, const std::string& sbp, int rank) {
  PlacementPtr p = Placement(placement);
  NdSbpPtr s = NdSbp(sbp);
  size_t axes = 0;
  EXPECT_EQ(tess_placement_num_axes(&axes, p.get()), TESS_OK);
  int64_t index = 0;
  EXPECT_EQ(tess_placement_index_of(&index, p.get(), rank), TESS_OK);
  std::vector<int64_t> dims(axes), coords(axes);
  for (size_t a = 0; a < axes; ++a) {
    EXPECT_EQ(tess_placement_hierarchy_dim(&dims[a], p.get(), a), TESS_OK);
  }
  for (size_t a = axes; a-- > 0;) {  // row-major: the last axis varies fastest
    coords[a] = index % dims[a];
    index /= dims[a];
  }
  PartialPlace place;
  for (size_t a = 0; a < axes; ++a) {
    tess_sbp_kind kind = 0;
    int32_t split = 0;
    EXPECT_EQ(tess_nd_sbp_get(&kind, &split, s.get(), a), TESS_OK);
    if (kind == TESS_SBP_PARTIAL_SUM || kind == TESS_SBP_PARTIAL_MAX ||
        kind == TESS_SBP_PARTIAL_MIN) {
      place.index = place.index * dims[a] + coords[a];
      place.size *= dims[a];
      place.kind = kind;  // the cases never mix partial kinds
    }
  }
  return place;
}

// A term that is not the value's, for partial member `q` > 0 at element `i`.
double Noise(int64_t i, int64_t q) { return static_cast<double>((i + 3 * q) % 5 - 2); }

// This rank's piece of `logical` held as `sbp` on `placement` (empty outside it).
template <typename T>
std::vector<T> PieceOf(const std::vector<T>& logical, const std::string& placement,
                       const std::string& sbp, int rank) {
  const Piece piece = RangesOf(placement, sbp, rank);
  std::vector<T> out;
  if (!piece.held) return out;
  const PartialPlace place = PartialPlaceOf(placement, sbp, rank);
  for (int64_t r = piece.begin[0]; r < piece.end[0]; ++r) {
    for (int64_t c = piece.begin[1]; c < piece.end[1]; ++c) {
      const int64_t i = r * kShape[1] + c;
      double v = static_cast<double>(logical[i]);
      if (place.kind == TESS_SBP_PARTIAL_SUM) {
        if (place.index == 0) {
          for (int64_t q = 1; q < place.size; ++q) v -= Noise(i, q);
        } else {
          v = Noise(i, place.index);
        }
      } else if (place.kind == TESS_SBP_PARTIAL_MAX && place.index > 0) {
        v -= 1 + (i + place.index) % 3;
      } else if (place.kind == TESS_SBP_PARTIAL_MIN && place.index > 0) {
        v += 1 + (i + place.index) % 3;
      }
      out.push_back(static_cast<T>(v));
    }
  }
  return out;
}

bool IsPartial(const std::string& sbp) { return sbp.find('P') != std::string::npos; }

// "B" or "(B, B)": broadcast on every axis of `placement`.
std::string AllBroadcast(const std::string& placement) {
  return placement.find("[[") == std::string::npos ? "B" : "(B, B)";
}

// tess_boxing_run of this rank's buffers; false (with a gtest failure) when it fails.
template <typename T>
bool Box(std::vector<T>* out, const std::vector<T>& in, const std::string& src_p,
         const std::string& src, const std::string& dst_p, const std::string& dst) {
  PlacementPtr from = Placement(src_p), to = Placement(dst_p);
  NdSbpPtr s = NdSbp(src), d = NdSbp(dst);
  const tess_status st = tess_boxing_run(out->data(), out->size() * sizeof(T), in.data(),
                                         in.size() * sizeof(T), kShape.data(), kShape.size(),
                                         DTypeOf<T>::value, from.get(), s.get(), to.get(), d.get());
  EXPECT_EQ(st, TESS_OK) << LastError();
  return st == TESS_OK;
}

// Boxes `logical`'s pieces from (src_p, src) to (dst_p, dst) on every rank and checks
// this rank's result against the oracle.
template <typename T>
void CheckBox(const std::string& src_p, const std::string& src, const std::string& dst_p,
              const std::string& dst, int salt) {
  SCOPED_TRACE(src_p + " " + src + " -> " + dst_p + " " + dst);
  const int me = WorldRank();
  const std::vector<T> logical = Logical<T>(salt);
  const std::vector<T> in = PieceOf(logical, src_p, src, me);
  const Piece out_piece = RangesOf(dst_p, dst, me);
  int64_t out_elements = 0;
  if (out_piece.held) {
    out_elements =
        (out_piece.end[0] - out_piece.begin[0]) * (out_piece.end[1] - out_piece.begin[1]);
  }
  std::vector<T> out(static_cast<size_t>(out_elements), T(-99));
  if (!Box(&out, in, src_p, src, dst_p, dst)) return;
  if (!IsPartial(dst)) {
    EXPECT_EQ(out, PieceOf(logical, dst_p, dst, me));
    return;
  }
  // A partial piece is one term of the value: box on to broadcast to see the value.
  const std::string all_b = AllBroadcast(dst_p);
  std::vector<T> whole(out_piece.held ? kElements : 0, T(-99));
  if (!Box(&whole, out, dst_p, dst, dst_p, all_b)) return;
  if (out_piece.held) {
    EXPECT_EQ(whole, logical);
  }
}

// The plan's text names the conversion and every step, and ends with the total.
void CheckPlan(const std::string& src_p, const std::string& src, const std::string& dst_p,
               const std::string& dst) {
  PlacementPtr from = Placement(src_p), to = Placement(dst_p);
  NdSbpPtr s = NdSbp(src), d = NdSbp(dst);
  tess_boxing_plan* plan = nullptr;
  ASSERT_EQ(tess_boxing_plan_create(&plan, kShape.data(), kShape.size(), TESS_DTYPE_F32, from.get(),
                                    s.get(), to.get(), d.get()),
            TESS_OK)
      << LastError();
  const std::string text = tess_boxing_plan_string(plan);
  EXPECT_EQ(text.rfind("boxing f32[7,5]: " + src_p + " " + src + " -> " + dst_p + " " + dst, 0), 0u)
      << text;
  size_t steps = 0;
  EXPECT_EQ(tess_boxing_plan_num_steps(&steps, plan), TESS_OK);
  if (src_p != dst_p || src != dst) {
    EXPECT_GT(steps, 0u) << text;
  }
  for (size_t i = 0; i < steps; ++i) {
    const std::string step = tess_boxing_plan_step_string(plan, i);
    EXPECT_FALSE(step.empty());
    EXPECT_NE(text.find(std::to_string(i + 1) + ". " + step + "\n"), std::string::npos) << text;
  }
  EXPECT_NE(text.find("total: " + std::to_string(steps) + (steps == 1 ? " step" : " steps")),
            std::string::npos)
      << text;
  tess_boxing_plan_destroy(plan);
}

const char* const kOneD[] = {"S(0)", "S(1)", "B", "P", "P(max)", "P(min)"};

TEST(BoxCapiMpiTest, EveryOneDPairOnTheWorld) {
  const std::string world = CpuOf(WorldRanks());
  int salt = 0;
  for (const char* src : kOneD) {
    for (const char* dst : kOneD) {
      CheckBox<float>(world, src, world, dst, ++salt);
      CheckPlan(world, src, world, dst);
    }
  }
  CheckBox<int64_t>(world, "P", world, "S(1)", 1);
  CheckBox<double>(world, "S(1)", world, "P(max)", 2);
  CheckBox<int32_t>(world, "P(min)", world, "S(0)", 3);
}

TEST(BoxCapiMpiTest, TwoDPairsOnTheGrid) {
  if (WorldSize() != 4) GTEST_SKIP() << "needs 4 ranks";
  const std::string grid = "cpu:[[0,1],[2,3]]";
  const char* two_d[] = {"(S(0), S(1))",   "(S(1), S(0))", "(P, S(0))", "(B, P(max))",
                         "(S(0), P(min))", "(P, P)",       "(B, B)",    "(S(1), B)"};
  int salt = 0;
  for (const char* src : two_d) {
    for (const char* dst : two_d) CheckBox<float>(grid, src, grid, dst, ++salt);
  }
  CheckPlan(grid, "(P, S(0))", grid, "(S(1), B)");
  // The same four ranks as a 1-d placement: a different hierarchy.
  CheckBox<float>(grid, "(S(0), S(1))", "cpu:[0,1,2,3]", "S(1)", 1);
  CheckBox<int64_t>("cpu:[0,1,2,3]", "P", grid, "(S(1), P(max))", 2);
}

TEST(BoxCapiMpiTest, AcrossPlacements) {
  const int n = WorldSize();
  std::vector<int> reversed = WorldRanks();
  std::reverse(reversed.begin(), reversed.end());
  const std::string world = CpuOf(WorldRanks()), backwards = CpuOf(reversed);
  CheckBox<float>(world, "S(0)", backwards, "S(1)", 1);
  CheckPlan(world, "S(0)", backwards, "S(1)");
  CheckBox<float>(world, "P", backwards, "B", 2);
  if (n >= 2) {
    const std::vector<int> all = WorldRanks();
    const std::vector<int> rest(all.begin() + 1, all.end());
    // Rank 0 only sends; the others only receive.
    CheckBox<float>("cpu:[0]", "B", CpuOf(rest), "S(0)", 3);
    CheckBox<int32_t>(CpuOf(rest), "S(1)", "cpu:[0]", "B", 4);
    CheckPlan("cpu:[0]", "B", CpuOf(rest), "S(0)");
  }
  if (n >= 3) {
    // Rank 2 is in neither placement: it returns at once, with nothing to pass.
    CheckBox<double>("cpu:[0]", "S(1)", "cpu:[1]", "B", 5);
    std::vector<float> none;
    if (WorldRank() == 2) {
      EXPECT_TRUE(Box(&none, none, "cpu:[0]", "B", "cpu:[1]", "B"));
    }
    if (WorldRank() == 0) {
      std::vector<float> in = Logical<float>(6);
      EXPECT_TRUE(Box(&none, in, "cpu:[0]", "B", "cpu:[1]", "B"));
    }
    if (WorldRank() == 1) {
      std::vector<float> out(kElements, -99);
      EXPECT_TRUE(Box(&out, none, "cpu:[0]", "B", "cpu:[1]", "B"));
      EXPECT_EQ(out, Logical<float>(6));
    }
  }
  if (n == 4) {
    CheckBox<float>("cpu:[[0,1],[2,3]]", "(S(0), S(1))", "cpu:[1,3]", "B", 7);
    CheckBox<float>("cpu:[[0,1],[2,3]]", "(P, S(1))", "cpu:[3,0]", "S(0)", 8);
    CheckBox<int64_t>("cpu:[2,1]", "S(0)", "cpu:[[3,2],[1,0]]", "(B, P)", 9);
    CheckPlan("cpu:[[0,1],[2,3]]", "(P, S(1))", "cpu:[3,0]", "S(0)");
  }
}

// Element k of tensor i on rank r: multiples of 1/4.
double Input(int r, int64_t i, int64_t k) {
  return static_cast<double>((r * 5 + i * 3 + k * 7) % 17 - 8) / 4;
}

// op over `ranks` of element k of tensor i, each rank's element converted to T as the
// ranks convert theirs.
template <typename T>
T Reduced(tess_reduce_op op, const std::vector<int>& ranks, int64_t i, int64_t k) {
  T acc = static_cast<T>(Input(ranks[0], i, k));
  for (size_t j = 1; j < ranks.size(); ++j) {
    const T v = static_cast<T>(Input(ranks[j], i, k));
    acc = op == TESS_REDUCE_SUM   ? acc + v
          : op == TESS_REDUCE_MAX ? std::max(acc, v)
                                  : std::min(acc, v);
  }
  return acc;
}

bool Holds(const std::vector<int>& ranks, int rank) {
  return std::find(ranks.begin(), ranks.end(), rank) != ranks.end();
}

template <typename T>
void CheckAllReduce(const std::vector<int>& ranks, const tess_placement* placement, int64_t count,
                    tess_allreduce_algorithm algorithm) {
  const int me = WorldRank();
  for (tess_reduce_op op : {TESS_REDUCE_SUM, TESS_REDUCE_MAX, TESS_REDUCE_MIN}) {
    SCOPED_TRACE("op " + std::to_string(op) + ", algorithm " + std::to_string(algorithm) +
                 ", count " + std::to_string(count));
    std::vector<T> v(static_cast<size_t>(count));
    for (int64_t k = 0; k < count; ++k) v[k] = static_cast<T>(Input(me, 0, k));
    const std::vector<T> before = v;
    ASSERT_EQ(tess_comm_allreduce(v.data(), count, DTypeOf<T>::value, op, placement, algorithm),
              TESS_OK)
        << LastError();
    if (!Holds(ranks, me)) {
      EXPECT_EQ(v, before) << "a rank outside the placement must leave its buffer alone";
      continue;
    }
    for (int64_t k = 0; k < count; ++k) {
      ASSERT_EQ(v[k], Reduced<T>(op, ranks, 0, k)) << "element " << k;
    }
  }
}

TEST(CollectivesCapiMpiTest, AllReduceEveryAlgorithm) {
  const std::vector<int> world = WorldRanks();
  // 300k floats: over the 1 MiB point where auto goes host by host.
  for (int64_t count : {int64_t{1}, int64_t{37}, int64_t{300000}}) {
    for (tess_allreduce_algorithm algorithm :
         {TESS_ALLREDUCE_FLAT, TESS_ALLREDUCE_AUTO, TESS_ALLREDUCE_HIERARCHICAL}) {
      CheckAllReduce<float>(world, nullptr, count, algorithm);
    }
  }
  std::vector<int> sub = WorldSize() >= 3 ? std::vector<int>{2, 0} : world;
  PlacementPtr p = Placement(CpuOf(sub));
  for (tess_allreduce_algorithm algorithm :
       {TESS_ALLREDUCE_FLAT, TESS_ALLREDUCE_AUTO, TESS_ALLREDUCE_HIERARCHICAL}) {
    CheckAllReduce<int64_t>(sub, p.get(), 1001, algorithm);
    CheckAllReduce<double>(sub, p.get(), 5, algorithm);
  }
}

TEST(CollectivesCapiMpiTest, BucketedAllReduceOfAHundredBuffers) {
  tess_bucketed_allreducer* reducer = nullptr;
  tess_bucketed_allreducer_options options = TESS_BUCKETED_ALLREDUCER_OPTIONS_INIT;
  options.bucket_bytes = 4096;
  ASSERT_EQ(tess_bucketed_allreducer_create(&reducer, &options), TESS_OK) << LastError();
  const int me = WorldRank();
  // Mixed sizes: empty, small, and bigger than a 4 KiB bucket (f32: 1024 elements).
  std::vector<int64_t> counts;
  for (int i = 0; i < 100; ++i)
    counts.push_back(i % 10 == 0 ? 0 : i % 13 == 0 ? 1500 : (i * 29) % 300);
  const std::vector<int> world = WorldRanks();
  const std::vector<int> sub = WorldSize() >= 3 ? std::vector<int>{2, 0} : world;
  PlacementPtr sub_p = Placement(CpuOf(sub));
  struct Case {
    const std::vector<int>* ranks;
    const tess_placement* placement;
  };
  int64_t calls_here = 0;  // the calls this rank took part in (it is in the placement)
  for (const Case& c : {Case{&world, nullptr}, Case{&sub, sub_p.get()}}) {
    for (tess_reduce_op op : {TESS_REDUCE_SUM, TESS_REDUCE_MAX, TESS_REDUCE_MIN}) {
      calls_here += Holds(*c.ranks, me) ? 1 : 0;
      std::vector<std::vector<float>> data(100);
      std::vector<void*> buffers(100);
      for (int i = 0; i < 100; ++i) {
        for (int64_t k = 0; k < counts[i]; ++k)
          data[i].push_back(static_cast<float>(Input(me, i, k)));
        buffers[i] = data[i].empty() ? nullptr : data[i].data();
      }
      const std::vector<std::vector<float>> before = data;
      ASSERT_EQ(tess_bucketed_allreducer_run(reducer, buffers.data(), counts.data(), 100,
                                             TESS_DTYPE_F32, op, c.placement),
                TESS_OK)
          << LastError();
      for (int i = 0; i < 100; ++i) {
        if (!Holds(*c.ranks, me)) {
          ASSERT_EQ(data[i], before[i]) << "buffer " << i << " of a rank outside the placement";
          continue;
        }
        for (int64_t k = 0; k < counts[i]; ++k) {
          ASSERT_EQ(data[i][k], Reduced<float>(op, *c.ranks, i, k))
              << "op " << op << ", buffer " << i << ", element " << k;
        }
      }
    }
  }
  tess_bucketed_allreducer_stats stats = TESS_BUCKETED_ALLREDUCER_STATS_INIT;
  ASSERT_EQ(tess_bucketed_allreducer_get_stats(&stats, reducer), TESS_OK) << LastError();
  const int64_t calls = stats.calls, plans = stats.plans_built, buckets = stats.buckets,
                in_place = stats.in_place_buckets;
  EXPECT_EQ(calls, calls_here) << "ranks outside a placement return before the reducer";
  EXPECT_EQ(plans, 1) << "one list of counts, one plan";
  EXPECT_GT(buckets, in_place);
  EXPECT_GT(in_place, 0);
  tess_bucketed_allreducer_destroy(reducer);
}

// Last: it leaves a communicator of ranks [1,0] unusable on rank 0. The timeout is
// set after that communicator exists, so it shows that existing ones take it.
TEST(CollectivesCapiMpiTest, TimeoutReachesExistingCommunicators) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs 2 ranks";
  const int me = WorldRank();
  PlacementPtr pair = Placement("cpu:[1,0]");
  int64_t x = me + 1;
  ASSERT_EQ(
      tess_comm_allreduce(&x, 1, TESS_DTYPE_I64, TESS_REDUCE_SUM, pair.get(), TESS_ALLREDUCE_FLAT),
      TESS_OK)
      << LastError();
  if (me < 2) {
    EXPECT_EQ(x, 3);
  }
  int64_t sync = 0;
  ASSERT_EQ(
      tess_comm_allreduce(&sync, 1, TESS_DTYPE_I64, TESS_REDUCE_SUM, nullptr, TESS_ALLREDUCE_FLAT),
      TESS_OK);

  ASSERT_EQ(tess_comm_set_collective_timeout(0.5), TESS_OK) << LastError();
  if (me == 0) {
    // Rank 1 never joins. Static: MPI may write the abandoned all-reduce's result
    // whenever it makes progress, until the process ends.
    static int64_t lonely[2] = {1, 2};
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(tess_comm_allreduce(lonely, 2, TESS_DTYPE_I64, TESS_REDUCE_SUM, pair.get(),
                                  TESS_ALLREDUCE_FLAT),
              TESS_DEADLINE_EXCEEDED);
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(LastError(),
              "tess_comm_allreduce: AllReduce: not complete after the timeout of 0.5 s on a "
              "communicator of 2 ranks (this is rank 1); another member is late, hung or dead, "
              "and this communicator is now unusable");
    EXPECT_GE(waited, 0.5);
    EXPECT_LT(waited, 10.0);
    EXPECT_EQ(tess_comm_allreduce(lonely, 2, TESS_DTYPE_I64, TESS_REDUCE_SUM, pair.get(),
                                  TESS_ALLREDUCE_FLAT),
              TESS_FAILED_PRECONDITION);
    EXPECT_NE(LastError().find("this communicator is unusable after an earlier call timed out"),
              std::string::npos)
        << LastError();
  }
  ASSERT_EQ(tess_comm_set_collective_timeout(0), TESS_OK) << LastError();
  ASSERT_EQ(
      tess_comm_allreduce(&sync, 1, TESS_DTYPE_I64, TESS_REDUCE_SUM, nullptr, TESS_ALLREDUCE_FLAT),
      TESS_OK)
      << LastError();
}

}  // namespace
}  // namespace tessera::capi_test
