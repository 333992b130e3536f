// Multi-rank tests of Box (the planner path), run under mpirun with 1..4 ranks:
// every pair of 2-d nd-sbps over {S(0), S(1), B, P, P(max), P(min)} on
// cpu:[[0,1],[2,3]]; 1-d placements of 2 and 3 ranks; placements that are disjoint,
// overlapping, nested, or of another hierarchy; argument errors; and a steady state
// that allocates nothing (alloc_counter.h).
//
// Oracle (oracle.h): every rank builds the same logical tensor from a closed form,
// derives its source piece from it, boxes, and then all ranks gather every
// destination piece and rebuild the logical tensor from them by plain loops (for
// non-partial destinations each rank also compares its own piece with the slice).
#include "core/boxing/boxing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/boxing/axis_move.h"
#include "core/boxing/boxing_workspace.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_world.h"
#include "core/common/shape.h"
#include "core/memory/heap_counter.h"
#include "core/placement/placement.h"
#include "core/sbp/physical_layout.h"
#include "core/sbp/sbp.h"
#include "tests/boxing/box_check.h"
#include "tests/boxing/oracle.h"

namespace tessera::boxing {
namespace {

using oracle::CheckBoxing;
using oracle::Compare;
using oracle::LocalCount;
using oracle::LocalOf;
using oracle::Logical;
using oracle::Me;
using oracle::Reconstruct;

int32_t WorldSize() { return comm::WorldSize().value(); }
Placement P(const std::string& text) { return Placement::Parse(text).value(); }
NdSbp Nd(const std::string& text) { return NdSbp::Parse(text).value(); }

// Box on host memory, checked by CheckBoxing (box_check.h).
template <typename T>
std::string BoxAndCheck(const Shape& shape, const Placement& src_p, const NdSbp& src,
                        const Placement& dst_p, const NdSbp& dst, BoxingWorkspace* workspace) {
  return CheckBoxing<T>(shape, src_p, src, dst_p, dst,
                        [&](const std::vector<T>& input, std::vector<T>& output) {
                          return Box(input.empty() ? nullptr : input.data(), output.data(), shape,
                                     DTypeOf<T>::value, src_p, src, dst_p, dst, workspace);
                        });
}

std::string Describe(const Shape& shape, const Placement& src_p, const NdSbp& src,
                     const Placement& dst_p, const NdSbp& dst) {
  auto plan = PlanBoxing(shape, DType::kF32, src_p, src, dst_p, dst);
  return shape.ToString() + " " + src_p.ToString() + " " + src.ToString() + " -> " +
         dst_p.ToString() + " " + dst.ToString() + "\n" +
         (plan.ok() ? (*plan)->ToString() : plan.status().ToString());
}

const char* const kOneD[] = {"S(0)", "S(1)", "B", "P", "P(max)", "P(min)"};

std::vector<NdSbp> TwoDNdSbps() {
  std::vector<NdSbp> all;
  for (const char* a : kOneD) {
    for (const char* b : kOneD) all.push_back(Nd(std::string("(") + a + ", " + b + ")"));
  }
  return all;
}

TEST(BoxTest, EveryTwoDPairOnTwoByTwo) {
  if (WorldSize() < 4) GTEST_SKIP() << "needs 4 ranks";
  const Placement grid = P("cpu:[[0,1],[2,3]]");
  const Shape shape{5, 7, 3};
  const std::vector<NdSbp> all = TwoDNdSbps();
  BoxingWorkspace workspace;
  int failures = 0;
  for (const NdSbp& src : all) {
    for (const NdSbp& dst : all) {
      std::string error = BoxAndCheck<float>(shape, grid, src, grid, dst, &workspace);
      EXPECT_EQ(error, "") << Describe(shape, grid, src, grid, dst);
      if (!error.empty() && ++failures > 5) FAIL() << "stopping after 5 failures";
    }
  }
}

TEST(BoxTest, TwoDPairsInIntegers) {
  if (WorldSize() < 4) GTEST_SKIP() << "needs 4 ranks";
  const Placement grid = P("cpu:[[0,1],[2,3]]");
  const Shape shape{3, 6, 5};
  const char* const nds[] = {"(S(0), S(1))", "(S(1), S(1))", "(P, P)",   "(P(max), B)",
                             "(B, P(min))",  "(P(min), P)",  "(S(2), P)"};
  for (const char* s : nds) {
    for (const char* d : nds) {
      EXPECT_EQ(BoxAndCheck<int32_t>(shape, grid, Nd(s), grid, Nd(d), nullptr), "")
          << Describe(shape, grid, Nd(s), grid, Nd(d));
      EXPECT_EQ(BoxAndCheck<int64_t>(shape, grid, Nd(s), grid, Nd(d), nullptr), "")
          << Describe(shape, grid, Nd(s), grid, Nd(d));
    }
  }
}

// Every 1-d pair on the first `ranks` ranks, in every dtype.
template <typename T>
void OneDPairs(int32_t ranks) {
  const Placement placement = P("cpu:0-" + std::to_string(ranks - 1));
  const char* const sbps[] = {"S(0)", "S(1)", "S(2)", "B", "P", "P(max)", "P(min)"};
  BoxingWorkspace workspace;
  for (const Shape& shape : {Shape{5, 7, 2}, Shape{2, 1, 3}, Shape{0, 3, 4}}) {
    for (const char* s : sbps) {
      for (const char* d : sbps) {
        EXPECT_EQ(BoxAndCheck<T>(shape, placement, Nd(s), placement, Nd(d), &workspace), "")
            << DTypeName(DTypeOf<T>::value) << " "
            << Describe(shape, placement, Nd(s), placement, Nd(d));
      }
    }
  }
}

TEST(BoxTest, OneDPairsOnTwoRanks) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs 2 ranks";
  OneDPairs<float>(2);
  OneDPairs<int64_t>(2);
}

TEST(BoxTest, OneDPairsOnThreeRanks) {
  if (WorldSize() < 3) GTEST_SKIP() << "needs 3 ranks";
  OneDPairs<double>(3);
  OneDPairs<int32_t>(3);
}

// f16 and bf16 (small integers: exact in both, so every reduction order agrees):
// S -> B, P -> B, P -> S and every other 1-d pair, P(sum) through the float-computing
// MPI ops and shm_reduction.
TEST(BoxTest, OneDPairsInHalfTypes) {
  const int32_t ranks = WorldSize() >= 3 ? 3 : 1;
  OneDPairs<Float16>(ranks);
  OneDPairs<BFloat16>(ranks);
}

TEST(BoxTest, OneDPairsOnOneRank) {
  // Every world has rank 0: a one-rank placement with every other rank outside it.
  const Placement placement = P("cpu:[0]");
  const char* const sbps[] = {"S(0)", "S(2)", "B", "P", "P(max)"};
  for (const char* s : sbps) {
    for (const char* d : sbps) {
      EXPECT_EQ(BoxAndCheck<float>(Shape{4, 3, 2}, placement, Nd(s), placement, Nd(d), nullptr), "")
          << s << " -> " << d;
    }
  }
}

struct CrossCase {
  int min_ranks;
  const char* src;
  const char* dst;
};

// Placements that share no rank, share some, nest, or differ in hierarchy.
const CrossCase kCrossCases[] = {
    {2, "cpu:[0]", "cpu:[1]"},         {3, "cpu:[0]", "cpu:[1,2]"},
    {3, "cpu:[0,1]", "cpu:[1,2]"},     {3, "cpu:[0,1,2]", "cpu:[1]"},
    {3, "cpu:[2,0]", "cpu:[0,1,2]"},   {4, "cpu:[0,1]", "cpu:[2,3]"},
    {4, "cpu:[0,1,2]", "cpu:[1,2,3]"}, {4, "cpu:[0,1,2,3]", "cpu:[1]"},
    {4, "cpu:[3,1]", "cpu:[0,1,2,3]"},
};

TEST(BoxTest, AcrossOneDPlacements) {
  BoxingWorkspace workspace;
  for (const CrossCase& c : kCrossCases) {
    if (WorldSize() < c.min_ranks) continue;
    const Placement src_p = P(c.src), dst_p = P(c.dst);
    for (const Shape& shape : {Shape{5, 7, 3}, Shape{2, 3, 1}}) {
      for (const char* s : kOneD) {
        for (const char* d : kOneD) {
          EXPECT_EQ(BoxAndCheck<float>(shape, src_p, Nd(s), dst_p, Nd(d), &workspace), "")
              << Describe(shape, src_p, Nd(s), dst_p, Nd(d));
        }
      }
    }
  }
}

TEST(BoxTest, AcrossHierarchies) {
  const CrossCase pairs[] = {
      {4, "cpu:[[0,1],[2,3]]", "cpu:[0,1,2]"},       {4, "cpu:[0,1,2]", "cpu:[[0,1],[2,3]]"},
      {4, "cpu:[[0,1],[2,3]]", "cpu:[[3,2],[1,0]]"}, {3, "cpu:[[0],[1],[2]]", "cpu:[[2,1]]"},
      {4, "cpu:[[0,1]]", "cpu:[[2],[3]]"},
  };
  const char* const nds[] = {"(S(0), S(1))", "(S(1), S(1))", "(B, S(2))", "(P, S(0))",
                             "(B, B)",       "(P(max), B)",  "(S(0), P)", "(P(min), P(min))"};
  const char* const one_d[] = {"S(0)", "S(1)", "B", "P", "P(max)"};
  BoxingWorkspace workspace;
  for (const CrossCase& pair : pairs) {
    if (WorldSize() < pair.min_ranks) continue;
    const Placement src_p = P(pair.src), dst_p = P(pair.dst);
    std::vector<NdSbp> src_nds, dst_nds;
    for (const char* t : nds) (src_p.num_axes() == 2 ? src_nds : dst_nds).push_back(Nd(t));
    for (const char* t : one_d) (src_p.num_axes() == 2 ? dst_nds : src_nds).push_back(Nd(t));
    if (src_p.num_axes() == dst_p.num_axes()) dst_nds = src_nds;
    for (const NdSbp& s : src_nds) {
      for (const NdSbp& d : dst_nds) {
        EXPECT_EQ(BoxAndCheck<float>(Shape{5, 7, 3}, src_p, s, dst_p, d, &workspace), "")
            << Describe(Shape{5, 7, 3}, src_p, s, dst_p, d);
      }
    }
  }
}

// Whether the plan for the conversion has a step that `pred` accepts.
template <typename Pred>
bool PlanHas(const Shape& shape, const Placement& src_p, const NdSbp& src, const Placement& dst_p,
             const NdSbp& dst, Pred pred) {
  auto plan = PlanBoxing(shape, DType::kF32, src_p, src, dst_p, dst);
  if (!plan.ok()) return false;
  for (const BoxingStep& step : (*plan)->steps()) {
    if (pred(step)) return true;
  }
  return false;
}

bool Flattened(const BoxingStep& step) {
  return step.kind == BoxingStep::Kind::kAxis && (step.axes & (step.axes - 1)) != 0;
}

// Every pair of nd-sbps holding one sbp on all axes, on grids of 2, 3 and 4 ranks,
// even and uneven: the planner flattens axes where that is cheaper, and the result
// must be the logical value either way. The large shape must make it flatten.
TEST(BoxTest, FlattenedAxesOnEveryRankCount) {
  struct Grid {
    int32_t ranks;
    const char* placement;
  };
  const Grid grids[] = {{2, "cpu:[[0],[1]]"},
                        {3, "cpu:[[0],[1],[2]]"},
                        {4, "cpu:[[0,1],[2,3]]"},
                        {4, "cpu:[[[0,1]],[[2,3]]]"}};
  const char* const sbps[] = {"S(0)", "S(1)", "B", "P", "P(max)"};
  BoxingWorkspace workspace;
  for (const Grid& grid : grids) {
    if (WorldSize() < grid.ranks) continue;
    const Placement p = P(grid.placement);
    auto uniform = [&](const char* sbp) {
      std::string text = "(";
      for (int a = 0; a < p.num_axes(); ++a) text += std::string(a ? ", " : "") + sbp;
      return Nd(text + ")");
    };
    for (const Shape& shape : {Shape{7, 5}, Shape{6, 6}}) {
      for (const char* s : sbps) {
        for (const char* d : sbps) {
          EXPECT_EQ(BoxAndCheck<float>(shape, p, uniform(s), p, uniform(d), &workspace), "")
              << Describe(shape, p, uniform(s), p, uniform(d));
        }
      }
    }
    // Large enough for flattening to pay on 4 ranks (small tensors keep per-axis
    // collectives, which take fewer rounds); uneven on both dims.
    if (grid.ranks < 4) continue;
    const Shape large{300, 301};
    for (const char* d : {"B", "S(1)"}) {
      EXPECT_TRUE(PlanHas(large, p, uniform("P"), p, uniform(d), Flattened))
          << Describe(large, p, uniform("P"), p, uniform(d));
      EXPECT_EQ(BoxAndCheck<float>(large, p, uniform("P"), p, uniform(d), &workspace), "")
          << Describe(large, p, uniform("P"), p, uniform(d));
    }
  }
  if (WorldSize() < 4) return;
  // A subset: axes 0 and 2 of 2 x 1 x 2, around axis 1's split; int64 sums too.
  const Placement cube = P("cpu:[[[0,1]],[[2,3]]]");
  const NdSbp src = Nd("(P, S(1), P)"), dst = Nd("(B, S(1), B)");
  for (const Shape& shape : {Shape{300, 301}, Shape{5, 7}}) {
    EXPECT_EQ(BoxAndCheck<float>(shape, cube, src, cube, dst, &workspace), "")
        << Describe(shape, cube, src, cube, dst);
    EXPECT_EQ(BoxAndCheck<int64_t>(shape, cube, src, cube, dst, &workspace), "")
        << Describe(shape, cube, src, cube, dst);
  }
  EXPECT_TRUE(PlanHas(Shape{300, 301}, cube, src, cube, dst, [](const BoxingStep& step) {
    return step.axes == (AxisBit(0) | AxisBit(2));
  })) << Describe(Shape{300, 301}, cube, src, cube, dst);
}

// Between a 1-d placement and grids of the same ranks in the same order: relabels
// where every rank holds the same box, partial values included.
TEST(BoxTest, RelabelsBetweenHierarchiesOfTheSameRanks) {
  const CrossCase pairs[] = {{2, "cpu:[0,1]", "cpu:[[0],[1]]"},
                             {3, "cpu:[0,1,2]", "cpu:[[0,1,2]]"},
                             {3, "cpu:[0,1,2]", "cpu:[[0],[1],[2]]"},
                             {4, "cpu:[0,1,2,3]", "cpu:[[0,1],[2,3]]"}};
  const char* const one_d[] = {"S(0)", "S(1)", "B", "P", "P(max)", "P(min)"};
  const char* const two_d[] = {"(S(0), S(0))",     "(S(1), S(1))",     "(B, B)",    "(P, P)",
                               "(P(max), P(max))", "(P(min), P(min))", "(P, S(0))", "(S(1), B)"};
  BoxingWorkspace workspace;
  int relabels = 0;
  for (const CrossCase& pair : pairs) {
    if (WorldSize() < pair.min_ranks) continue;
    const Placement line = P(pair.src), grid = P(pair.dst);
    // On 2 x 2, 8 x 12 and 7 x 5 split alike nested and flat; 6 x 10 does not. 3 x 2
    // leaves some ranks an empty piece (a NULL buffer) that a relabel still carries.
    for (const Shape& shape : {Shape{8, 12}, Shape{7, 5}, Shape{6, 10}, Shape{3, 2}}) {
      for (const char* a : one_d) {
        for (const char* b : two_d) {
          EXPECT_EQ(BoxAndCheck<float>(shape, line, Nd(a), grid, Nd(b), &workspace), "")
              << Describe(shape, line, Nd(a), grid, Nd(b));
          EXPECT_EQ(BoxAndCheck<int32_t>(shape, grid, Nd(b), line, Nd(a), &workspace), "")
              << Describe(shape, grid, Nd(b), line, Nd(a));
          auto relabel = [](const BoxingStep& step) {
            return step.kind == BoxingStep::Kind::kRelabel;
          };
          relabels += PlanHas(shape, line, Nd(a), grid, Nd(b), relabel) ? 1 : 0;
        }
      }
    }
  }
  if (WorldSize() >= 2) {
    EXPECT_GT(relabels, 0);
  }
}

TEST(BoxTest, SameLayoutCopiesOrRunsInPlace) {
  const Placement placement = P("cpu:0-" + std::to_string(WorldSize() - 1));
  const Shape shape{4, 3};
  const NdSbp nd = Nd("S(1)");
  const int64_t count = LocalCount(shape, placement, nd);
  std::vector<float> in(count, 2.5f), out(count, 0.0f);
  ASSERT_TRUE(Box(in.data(), out.data(), shape, DType::kF32, placement, nd, placement, nd).ok());
  EXPECT_EQ(out, in);
  EXPECT_TRUE(Box(in.data(), in.data(), shape, DType::kF32, placement, nd, placement, nd).ok());
  EXPECT_EQ(out, in);
}

TEST(BoxTest, RanksOutsideBothPlacementsReturnAtOnce) {
  // Only rank 0 takes part; the others pass NULL buffers and must not be asked for data.
  const Placement only0 = P("cpu:[0]");
  std::vector<float> in(6, 1.0f), out(6, 0.0f);
  const bool mine = Me() == 0;
  Status s = Box(mine ? in.data() : nullptr, mine ? out.data() : nullptr, Shape{2, 3}, DType::kF32,
                 only0, Nd("B"), only0, Nd("S(1)"));
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(BoxTest, ArgumentErrors) {
  const int32_t n = WorldSize();
  const Placement world = P("cpu:0-" + std::to_string(n - 1));
  const Shape shape{4, 3, 2};
  std::vector<float> a(24), b(24);
  auto box = [&](const void* in, void* out, const Placement& sp, const char* s, const Placement& dp,
                 const char* d, DType dtype = DType::kF32, BoxingWorkspace* ws = nullptr) {
    return Box(in, out, shape, dtype, sp, Nd(s), dp, Nd(d), ws);
  };

  Status s = box(a.data(), b.data(), world, "S(3)", world, "B");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "Box: src nd-sbp S(3) splits tensor axis 3 but the tensor of shape [4,3,2] has 3 axes");
  s = box(a.data(), b.data(), world, "B", world, "(B, S(0))");
  EXPECT_EQ(s.message(), "Box: dst nd-sbp (B, S(0)) has 2 axes but placement " + world.ToString() +
                             " has a 1-axis hierarchy");
  s = box(a.data(), b.data(), world, "B", world, "P", static_cast<DType>(42));
  EXPECT_EQ(s.message(),
            "Box: dtype value 42 is not supported (supported: f32, f64, f16, bf16, i32, i64, "
            "bool)");

  NdSbp bad_kind;
  bad_kind.Append(Sbp{static_cast<SbpKind>(9), 0});
  s = Box(a.data(), b.data(), shape, DType::kF32, world, bad_kind, world, Nd("B"));
  EXPECT_EQ(s.message(), "Box: src nd-sbp axis 0 has sbp kind value 9, which is not an SBP kind");

  const Placement beyond = P("cpu:[0," + std::to_string(n) + "]");
  s = box(a.data(), b.data(), world, "B", beyond, "B");
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "Box: dst placement " + beyond.ToString() + " names rank " +
                             std::to_string(n) + " but the world has " + std::to_string(n) +
                             " ranks");

  s = box(a.data(), b.data(), P("cuda:0-" + std::to_string(n - 1)), "B", world, "B");
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(),
            "Box: boxing between device types cuda and cpu (src cuda:" +
                world.ToString().substr(4) + ", dst " + world.ToString() +
                ") is not implemented; to_global stages such moves through host memory");

  s = box(nullptr, b.data(), world, "B", world, "S(0)");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "Box: in_local is NULL but this rank's B piece holds 24 elements");
  s = box(a.data(), nullptr, world, "S(0)", world, "B");
  EXPECT_EQ(s.message(), "Box: out_local is NULL but this rank's B piece holds 24 elements");
  s = box(a.data(), a.data() + 1, world, "B", world, "P");
  EXPECT_EQ(s.message(),
            "Box: in_local and out_local overlap (96 and 96 bytes); they may only coincide when "
            "src and dst are the same");

  // A buffer inside the workspace's staging would be overwritten mid-boxing.
  BoxingWorkspace ws;
  void* staging = ws.Staging(BoxingWorkspace::kFirstIntermediateSlot, 96).value();
  s = box(a.data(), staging, world, "B", world, "P", DType::kF32, &ws);
  EXPECT_EQ(s.message(),
            "Box: in_local or out_local lies inside the workspace's staging buffers, which the "
            "boxing overwrites; pass a different workspace or buffer");
}

TEST(BoxTest, SteadyStateAllocatesNothing) {
  if (WorldSize() < 4) GTEST_SKIP() << "needs 4 ranks";
  const Placement grid = P("cpu:[[0,1],[2,3]]");
  const Placement line = P("cpu:[1,2,3]");
  const Placement four = P("cpu:[0,1,2,3]");
  struct Conversion {
    Shape shape;
    const Placement& src_p;
    NdSbp src;
    const Placement& dst_p;
    NdSbp dst;
  };
  // Strided all-to-all blocks (MPI datatypes), a flattened reduce-scatter large
  // enough for the pairwise algorithm, a reshard, and a relabel.
  const Conversion conversions[] = {
      {Shape{9, 6, 5}, grid, Nd("(S(0), S(1))"), grid, Nd("(B, S(2))")},
      {Shape{9, 6, 5}, grid, Nd("(S(1), S(0))"), grid, Nd("(S(1), S(2))")},
      {Shape{9, 6, 5}, grid, Nd("(P, P)"), grid, Nd("(S(0), B)")},
      {Shape{9, 6, 5}, grid, Nd("(S(1), P)"), line, Nd("S(2)")},
      {Shape{256, 301}, grid, Nd("(P, P)"), grid, Nd("(S(1), S(1))")},
      {Shape{9, 6, 5}, four, Nd("P"), grid, Nd("(P, S(1))")},
  };
  std::vector<float> in(256 * 301, 1.0f), out(256 * 301);
  BoxingWorkspace workspace;
  auto run_all = [&] {
    for (const Conversion& c : conversions) {
      Status s = Box(in.data(), out.data(), c.shape, DType::kF32, c.src_p, c.src, c.dst_p, c.dst,
                     &workspace);
      if (!s.ok()) return s;
    }
    return Status::Ok();
  };
  ASSERT_TRUE(
      PlanHas(conversions[4].shape, grid, conversions[4].src, grid, conversions[4].dst, Flattened));
  ASSERT_TRUE(
      PlanHas(conversions[5].shape, four, conversions[5].src, grid, conversions[5].dst,
              [](const BoxingStep& step) { return step.kind == BoxingStep::Kind::kRelabel; }));
  ASSERT_TRUE(run_all().ok());  // plans, programs, communicators, staging
  ASSERT_TRUE(run_all().ok());
  const long before = memory::ThreadHeapAllocations();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(run_all().ok());
  EXPECT_EQ(memory::ThreadHeapAllocations() - before, 0);
}

}  // namespace
}  // namespace tessera::boxing
