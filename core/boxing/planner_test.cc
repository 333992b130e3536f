// The planner and the plan cache, in one process (no MPI): path choice, validity of
// every step, the cache, ToString's format and the argument errors.
#include "core/boxing/planner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/boxing/axis_move.h"
#include "core/boxing/boxing.h"
#include "core/boxing/boxing_cost.h"
#include "core/boxing/host_links.h"
#include "core/boxing/plan_cache.h"
#include "core/sbp/physical_layout.h"

namespace tessera::boxing {
namespace {

Placement P(const std::string& text) { return Placement::Parse(text).value(); }
NdSbp Nd(const std::string& text) { return NdSbp::Parse(text).value(); }

std::shared_ptr<const BoxingPlan> Plan(const Shape& shape, const std::string& src_p,
                                       const std::string& src, const std::string& dst_p,
                                       const std::string& dst, DType dtype = DType::kF32) {
  auto plan = PlanBoxing(shape, dtype, P(src_p), Nd(src), P(dst_p), Nd(dst));
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? *plan : nullptr;
}

bool HasPartial(const NdSbp& nd) {
  for (int i = 0; i < nd.num_axes(); ++i) {
    if (nd[i].is_partial()) return true;
  }
  return false;
}

// The steps chain from src to dst, each one a valid move.
void CheckChain(const BoxingPlan& plan) {
  SCOPED_TRACE(plan.ToString());
  Side side = Side::kSrc;
  NdSbp state = plan.src();
  for (const BoxingStep& step : plan.steps()) {
    EXPECT_EQ(step.from_side, side);
    EXPECT_EQ(step.from, state);
    if (step.kind == BoxingStep::Kind::kAxis) {
      EXPECT_EQ(step.to_side, step.from_side);
      EXPECT_EQ(step.axis, FirstAxis(step.axes));
      const Placement& placement = plan.placement(step.from_side);
      Status valid =
          CheckGroupMove(plan.shape(), placement, step.from, step.axes, step.to[step.axis]);
      EXPECT_TRUE(valid.ok()) << valid.ToString();
      if (AxisCount(step.axes) == 1) {
        EXPECT_TRUE(CheckAxisMove(step.from, step.axis, step.to[step.axis]).ok());
      }
      EXPECT_EQ(step.ranks, GroupSize(placement, step.axes));
      for (int k = 0; k < step.from.num_axes(); ++k) {
        EXPECT_EQ(step.to[k], (step.axes & AxisBit(k)) != 0 ? step.to[step.axis] : step.from[k]);
      }
    } else if (step.kind == BoxingStep::Kind::kRelabel) {
      EXPECT_EQ(step.from_side, Side::kSrc);
      EXPECT_EQ(step.to_side, Side::kDst);
      EXPECT_EQ(plan.src_placement().ranks(), plan.dst_placement().ranks());
      for (int64_t i = 0; i < plan.src_placement().parallel_num(); ++i) {
        const PhysicalLayout a =
            PhysicalLayoutAt(plan.shape(), plan.src_placement(), step.from, i).value();
        const PhysicalLayout b =
            PhysicalLayoutAt(plan.shape(), plan.dst_placement(), step.to, i).value();
        EXPECT_EQ(a.RangesToString(), b.RangesToString()) << "index " << i;
      }
      for (int k = 1; k < step.from.num_axes(); ++k) EXPECT_EQ(step.from[k], step.from[0]);
      for (int k = 0; k < step.to.num_axes(); ++k) EXPECT_EQ(step.to[k], step.from[0]);
    } else {
      EXPECT_FALSE(HasPartial(step.from));
      EXPECT_FALSE(HasPartial(step.to));
    }
    EXPECT_GE(step.seconds, 0);
    side = step.to_side;
    state = step.to;
  }
  EXPECT_EQ(plan.placement(side), plan.dst_placement());
  EXPECT_EQ(state, plan.dst());
}

TEST(PlannerTest, PlansAHugeBroadcastToManyRanks) {
  // 2^62 bytes from one rank to each of eight: the reshard's per-rank byte total is past
  // int64 and saturates (reshard_test.cc); the plan is found with a finite cost
  // (fuzz/corpus/boxing_plan/regression_reshard_load_overflow was signed overflow).
  auto plan = Plan(Shape{int64_t{1} << 60}, "cpu:[0]", "B", "cpu:[1,2,3,4,5,6,7,8]", "B");
  ASSERT_NE(plan, nullptr);
  CheckChain(*plan);
  EXPECT_TRUE(std::isfinite(plan->total_seconds())) << plan->ToString();
  EXPECT_GT(plan->total_seconds(), 0) << plan->ToString();
}

TEST(PlannerTest, BroadcastToSplitOnOneAxisIsOneLocalSlice) {
  auto plan =
      Plan(Shape{5, 7, 3}, "cpu:[[0,1],[2,3]]", "(S(0), B)", "cpu:[[0,1],[2,3]]", "(S(0), S(1))");
  ASSERT_EQ(plan->steps().size(), 1u);
  const BoxingStep& step = plan->steps()[0];
  EXPECT_EQ(step.kind, BoxingStep::Kind::kAxis);
  EXPECT_EQ(step.axis, 1);
  EXPECT_EQ(step.collective, Collective::kLocalSlice);
  EXPECT_EQ(step.wire_bytes, 0);
}

TEST(PlannerTest, OneAxisMovesUseTheirCollective) {
  const std::string grid = "cpu:[[0,1],[2,3]]";
  auto gather = Plan(Shape{8, 8}, grid, "(S(0), S(1))", grid, "(S(0), B)");
  ASSERT_EQ(gather->steps().size(), 1u);
  EXPECT_EQ(gather->steps()[0].collective, Collective::kAllGather);
  EXPECT_EQ(gather->steps()[0].axis, 1);
  auto scatter = Plan(Shape{8, 8}, grid, "(P, B)", grid, "(S(0), B)");
  ASSERT_EQ(scatter->steps().size(), 1u);
  EXPECT_EQ(scatter->steps()[0].collective, Collective::kReduceScatter);
  auto all_to_all = Plan(Shape{64, 64}, "cpu:[0,1]", "S(0)", "cpu:[0,1]", "S(1)");
  ASSERT_EQ(all_to_all->steps().size(), 1u);
  EXPECT_EQ(all_to_all->steps()[0].collective, Collective::kAllToAll);
}

TEST(PlannerTest, OneCollectiveBeatsTwoThatMoveTheSameBytes) {
  // A reduce-scatter plus an all-gather moves what an all-reduce moves; the step
  // cost makes the single collective win, even and uneven.
  for (int64_t side : {4096, 4097}) {
    auto plan = Plan(Shape{side, side}, "cpu:[0,1]", "P", "cpu:[0,1]", "B");
    ASSERT_EQ(plan->steps().size(), 1u) << plan->ToString();
    EXPECT_EQ(plan->steps()[0].collective, Collective::kAllReduce);
  }
}

TEST(PlannerTest, PartialToBroadcastIsOneAllReduceBelowTheTwoStepPath) {
  // The MPI backend runs a large all-reduce as its reduce-scatter plus an all-gather
  // (mpi_communicator.h), so the one-step plan must cost less than the two-step path
  // through S(0), whose steps the planner prices separately here: 1-64 MB of f32 on
  // 2-4 ranks, even and uneven, as bench/boxing/partial_to_broadcast_bench measures.
  for (int n = 2; n <= 4; ++n) {
    const std::string world = "cpu:0-" + std::to_string(n - 1);
    for (int64_t mb : {1, 4, 16, 64}) {
      for (int64_t extra : {0, 1}) {
        const Shape shape{mb * (1 << 18) + extra};
        auto direct = Plan(shape, world, "P", world, "B");
        ASSERT_EQ(direct->steps().size(), 1u) << direct->ToString();
        EXPECT_EQ(direct->steps()[0].collective, Collective::kAllReduce);
        auto scatter = Plan(shape, world, "P", world, "S(0)");
        auto gather = Plan(shape, world, "S(0)", world, "B");
        EXPECT_LT(direct->total_seconds(), scatter->total_seconds() + gather->total_seconds())
            << "np " << n << ", " << shape.ToString();
      }
    }
  }
}

TEST(PlannerTest, PartialSourceElsewhereIsReducedToSplitFirst) {
  // Reduce-scatter on the source, then each source rank moves its half: cheaper than
  // an all-reduce (twice the traffic) before the move.
  auto plan = Plan(Shape{64, 32}, "cpu:[0,1]", "P", "cpu:[2,3]", "S(0)");
  ASSERT_EQ(plan->steps().size(), 2u);
  EXPECT_EQ(plan->steps()[0].collective, Collective::kReduceScatter);
  EXPECT_EQ(plan->steps()[0].from_side, Side::kSrc);
  EXPECT_EQ(plan->steps()[1].kind, BoxingStep::Kind::kReshard);
  EXPECT_EQ(plan->steps()[1].ranks, 4);
  // Each source sends its 32 rows x 32 f32 to one destination.
  EXPECT_EQ(plan->steps()[1].wire_bytes, 32 * 32 * 4);
  CheckChain(*plan);
}

TEST(PlannerTest, PartialDestinationElsewhereIsFilledLocallyAtTheEnd) {
  auto plan = Plan(Shape{64, 32}, "cpu:[0,1]", "B", "cpu:[2,3]", "P(max)");
  ASSERT_EQ(plan->steps().size(), 2u);
  EXPECT_EQ(plan->steps()[0].kind, BoxingStep::Kind::kReshard);
  EXPECT_EQ(plan->steps()[1].collective, Collective::kLocalFill);
  EXPECT_EQ(plan->steps()[1].from_side, Side::kDst);
  CheckChain(*plan);
}

TEST(PlannerTest, NestedPartialsReduceTheInnerAxisFirst) {
  auto plan =
      Plan(Shape{16, 16}, "cpu:[[0,1],[2,3]]", "(P, P(max))", "cpu:[[0,1],[2,3]]", "(B, B)");
  ASSERT_FALSE(plan->steps().empty());
  EXPECT_EQ(plan->steps()[0].axis, 1);
  CheckChain(*plan);
}

TEST(PlannerTest, NotAFixedAxisOrder) {
  // Axis 0 of (S(0), S(0)) cannot move while axis 1 splits dim 0 too, so a greedy
  // first-axis-first order fails; the planner either moves axis 1 out of the way or
  // reshards in one exchange.
  auto plan =
      Plan(Shape{6, 6}, "cpu:[[0,1],[2,3]]", "(S(0), S(0))", "cpu:[[0,1],[2,3]]", "(S(1), S(1))");
  ASSERT_FALSE(plan->steps().empty());
  const BoxingStep& first = plan->steps()[0];
  EXPECT_TRUE(first.kind == BoxingStep::Kind::kReshard || first.axis == 1);
  CheckChain(*plan);
}

TEST(PlannerTest, LargeTensorsAcrossPlacementsGatherOnTheDestination) {
  // Two source ranks, four destination ranks that all need everything: sending each
  // destination a quarter and all-gathering there beats every destination fetching all.
  auto plan = Plan(Shape{1024, 1024}, "cpu:[0,1]", "S(0)", "cpu:[[2,3],[4,5]]", "(B, B)");
  ASSERT_GE(plan->steps().size(), 2u);
  EXPECT_EQ(plan->steps()[0].kind, BoxingStep::Kind::kReshard);
  EXPECT_LT(plan->steps()[0].wire_bytes, 1024 * 1024 * 4);
  CheckChain(*plan);
}

TEST(PlannerTest, EveryTwoDPairHasAValidPlan) {
  const char* const one_d[] = {"S(0)", "S(1)", "B", "P", "P(max)", "P(min)"};
  std::vector<std::string> all;
  for (const char* a : one_d) {
    for (const char* b : one_d) all.push_back(std::string("(") + a + ", " + b + ")");
  }
  for (const std::string& src : all) {
    for (const std::string& dst : all) {
      auto plan = Plan(Shape{5, 7, 3}, "cpu:[[0,1],[2,3]]", src, "cpu:[[0,1],[2,3]]", dst);
      ASSERT_NE(plan, nullptr);
      CheckChain(*plan);
      if (src == dst) {
        EXPECT_TRUE(plan->steps().empty());
      }
    }
  }
}

TEST(PlannerTest, AcrossPlacementsEveryPairHasAValidPlan) {
  const char* const one_d[] = {"S(0)", "S(1)", "B", "P", "P(max)", "P(min)"};
  const char* const pairs[][2] = {
      {"cpu:[0,1]", "cpu:[2,3]"}, {"cpu:[0,1,2]", "cpu:[1,2,3]"}, {"cpu:[0,1,2,3]", "cpu:[1]"}};
  for (const auto& pair : pairs) {
    for (const char* src : one_d) {
      for (const char* dst : one_d) {
        auto plan = Plan(Shape{5, 7, 3}, pair[0], src, pair[1], dst);
        ASSERT_NE(plan, nullptr);
        CheckChain(*plan);
      }
    }
  }
}

TEST(PlannerTest, ToStringFormat) {
  auto plan =
      Plan(Shape{5, 7, 3}, "cpu:[[0,1],[2,3]]", "(S(0), B)", "cpu:[[0,1],[2,3]]", "(S(0), S(1))");
  // Index 0's group holds 3 of the 5 rows: 3x7x3 f32 = 252 bytes, of which the
  // slice keeps half.
  char cost[32];
  std::snprintf(cost, sizeof(cost), "%.1e", kStepSeconds + kGammaSecondsPerByte * 252 / 2);
  EXPECT_EQ(plan->ToString(),
            "boxing f32[5,7,3]: cpu:[[0,1],[2,3]] (S(0), B) -> cpu:[[0,1],[2,3]] (S(0), S(1))\n"
            "1. axis 1: B -> S(1)  local slice over 2 ranks  cost " +
                std::string(cost) + " s\ntotal: 1 step, cost " + cost + " s");

  auto across = Plan(Shape{4, 2}, "cpu:[0,1]", "S(0)", "cpu:[2,3]", "S(0)");
  std::snprintf(cost, sizeof(cost), "%.1e",
                kStepSeconds + 2 * kAlphaSeconds + kBetaSecondsPerByte * 16);
  EXPECT_EQ(across->StepToString(0),
            "reshard cpu:[0,1] S(0) -> cpu:[2,3] S(0)  reshard all-to-all-v over 4 ranks, busiest "
            "rank moves 16 B  cost " +
                std::string(cost) + " s");

  auto same = Plan(Shape{4}, "cpu:[0,1]", "B", "cpu:[0,1]", "B");
  EXPECT_EQ(same->ToString(),
            "boxing f32[4]: cpu:[0,1] B -> cpu:[0,1] B\n(nothing to do: the layouts are the "
            "same)\ntotal: 0 steps, cost 0.0e+00 s");

  auto reduce_first = Plan(Shape{8, 2}, "cpu:[0,1]", "P", "cpu:[2,3]", "B");
  EXPECT_EQ(reduce_first->StepToString(0).substr(0, 44),
            "cpu:[0,1] axis 0: P -> S(0)  reduce-scatter-");
}

TEST(PlannerTest, PlansAreCachedAndShared) {
  PlanCache::Global().Clear();
  auto a = Plan(Shape{6, 4}, "cpu:[0,1]", "S(0)", "cpu:[0,1]", "S(1)");
  auto b = Plan(Shape{6, 4}, "cpu:[0,1]", "S(0)", "cpu:[0,1]", "S(1)");
  EXPECT_EQ(a.get(), b.get());
  auto other_dtype = Plan(Shape{6, 4}, "cpu:[0,1]", "S(0)", "cpu:[0,1]", "S(1)", DType::kF64);
  EXPECT_NE(a.get(), other_dtype.get());
  auto other_shape = Plan(Shape{6, 5}, "cpu:[0,1]", "S(0)", "cpu:[0,1]", "S(1)");
  EXPECT_NE(a.get(), other_shape.get());
  auto other_placement = Plan(Shape{6, 4}, "cpu:[0,2]", "S(0)", "cpu:[0,2]", "S(1)");
  EXPECT_NE(a.get(), other_placement.get());
  PlanCache::Stats stats = PlanCache::Global().stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 4u);
  EXPECT_EQ(stats.size, 4u);
  PlanCache::Global().Clear();
  auto again = Plan(Shape{6, 4}, "cpu:[0,1]", "S(0)", "cpu:[0,1]", "S(1)");
  EXPECT_NE(again.get(), a.get());  // a fresh plan after Clear
  EXPECT_EQ(again->ToString(), a->ToString());
}

TEST(PlanCacheTest, EvictsTheLeastRecentlyUsed) {
  PlanCache cache(2);
  const Placement p = P("cpu:[0,1]");
  const NdSbp s0 = Nd("S(0)"), b = Nd("B");
  const Shape shapes[] = {Shape{1}, Shape{2}, Shape{3}};
  auto key = [&](int i) { return PlanKeyRef{shapes[i], DType::kF32, p, s0, p, b}; };
  CachedBoxing values[3];
  for (int i = 0; i < 3; ++i) {
    values[i].plan = FindBoxingPlan(shapes[i], DType::kF32, p, s0, p, b).value();
  }
  cache.Put(key(0), key(0).Hash(), values[0]);
  cache.Put(key(1), key(1).Hash(), values[1]);
  CachedBoxing got;
  ASSERT_TRUE(cache.Find(key(0), key(0).Hash(), &got));  // 0 is now the most recent
  EXPECT_EQ(got.plan, values[0].plan);
  cache.Put(key(2), key(2).Hash(), values[2]);  // evicts 1
  EXPECT_TRUE(cache.Find(key(0), key(0).Hash(), &got));
  EXPECT_FALSE(cache.Find(key(1), key(1).Hash(), &got));
  EXPECT_TRUE(cache.Find(key(2), key(2).Hash(), &got));
  EXPECT_EQ(got.plan, values[2].plan);
  PlanCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.evictions, 1u);
  EXPECT_EQ(stats.size, 2u);
  EXPECT_EQ(stats.capacity, 2u);
  const uint64_t generation = cache.generation();
  cache.SetCapacity(0);  // clamps to 1 and drops everything
  EXPECT_EQ(cache.stats().capacity, 1u);
  EXPECT_EQ(cache.stats().size, 0u);
  EXPECT_NE(cache.generation(), generation);
}

TEST(PlannerTest, PartialGridReducesOverTheWholeGridAtOnce) {
  // (P, P) -> (B, B): one all-reduce over all 4 ranks (the same wire bytes as a
  // reduce-scatter, all-reduce and all-gather along the axes, in fewer collectives),
  // even and uneven.
  const std::string grid = "cpu:[[0,1],[2,3]]";
  for (int64_t side : {4096, 4097}) {
    auto plan = Plan(Shape{side, side}, grid, "(P, P)", grid, "(B, B)");
    ASSERT_EQ(plan->steps().size(), 1u) << plan->ToString();
    const BoxingStep& step = plan->steps()[0];
    EXPECT_EQ(step.collective, Collective::kAllReduce);
    EXPECT_EQ(step.axes, AxisBit(0) | AxisBit(1));
    EXPECT_EQ(step.ranks, 4);
    CheckChain(*plan);
  }
  // Into splits: one reduce-scatter over the grid first.
  auto scatter = Plan(Shape{4096, 4096}, grid, "(P, P)", grid, "(S(0), S(1))");
  ASSERT_FALSE(scatter->steps().empty());
  EXPECT_EQ(scatter->steps()[0].collective, Collective::kReduceScatter);
  EXPECT_EQ(scatter->steps()[0].ranks, 4);
  CheckChain(*scatter);
  // Tiny tensors: latency decides, and two 2-rank all-reduces take fewer rounds.
  auto tiny = Plan(Shape{4, 4}, grid, "(P, P)", grid, "(B, B)");
  for (const BoxingStep& step : tiny->steps()) EXPECT_EQ(step.ranks, 2) << tiny->ToString();
}

// With hosts known (host_links.h), a grid whose groups along one axis span hosts
// reduces host by host: reduce-scatter within hosts, all-reduce across them, all-gather
// within hosts, which crosses each host link with a third of the flat all-reduce's
// bytes (boxing_cost.h, "Across hosts"). Without hosts, or on one host, or for a
// placement with ranks the hosts do not cover: the one all-reduce over the grid.
TEST(PlannerTest, AcrossHostsTheGridReducesHostByHost) {
  struct ForgetLinks {
    ~ForgetLinks() { EXPECT_TRUE(SetHostLinks(nullptr).ok()); }
  } forget;
  const std::string grid = "cpu:[[0,1],[2,3]]";
  auto plan = [&](const std::vector<int32_t>& host_of, const std::string& placement,
                  const std::string& from = "(P, P)", const std::string& to = "(B, B)") {
    std::shared_ptr<HostLinks> links;
    if (!host_of.empty()) {
      links = std::make_shared<HostLinks>();
      links->host_of = host_of;
      links->bytes_per_second = 1.25e8;  // 1 Gbit/s
    }
    EXPECT_TRUE(SetHostLinks(links).ok());
    auto found = FindBoxingPlan(Shape{4096, 4096}, DType::kF32, P(placement), Nd(from),
                                P(placement), Nd(to));
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    CheckChain(**found);
    return *found;
  };
  // (collective, axis, ranks) of each step.
  auto steps = [](const BoxingPlan& p) {
    std::vector<std::tuple<Collective, int, int64_t>> out;
    for (const BoxingStep& s : p.steps()) out.emplace_back(s.collective, s.axis, s.ranks);
    return out;
  };
  using Steps = std::vector<std::tuple<Collective, int, int64_t>>;
  // Hosts along axis 0 (rows {0,1} and {2,3}): the inter-host all-reduce is along axis 0.
  auto rows = plan({0, 0, 1, 1}, grid);
  EXPECT_EQ(steps(*rows), (Steps{{Collective::kReduceScatter, 1, 2},
                                 {Collective::kAllReduce, 0, 2},
                                 {Collective::kAllGather, 1, 2}}))
      << rows->ToString();
  // Hosts along axis 1 (columns {0,2} and {1,3}): the same along the other axis.
  auto columns = plan({0, 1, 0, 1}, grid);
  EXPECT_EQ(steps(*columns), (Steps{{Collective::kReduceScatter, 0, 2},
                                    {Collective::kAllReduce, 1, 2},
                                    {Collective::kAllGather, 0, 2}}))
      << columns->ToString();
  const Steps one_all_reduce = {{Collective::kAllReduce, 0, 4}};
  EXPECT_EQ(steps(*plan({0, 0, 0, 0}, grid)), one_all_reduce);  // one host
  EXPECT_EQ(steps(*plan({}, grid)), one_all_reduce);            // hosts unknown
  EXPECT_EQ(steps(*plan({0, 0, 1}, grid)), one_all_reduce);     // rank 3 not covered
  // A 1-d placement has no other path: one all-reduce, priced higher across hosts.
  auto line = plan({0, 0, 1, 1}, "cpu:[0,1,2,3]", "P", "B");
  EXPECT_EQ(steps(*line), one_all_reduce);
  const double across = line->total_seconds();
  EXPECT_GT(across, plan({}, "cpu:[0,1,2,3]", "P", "B")->total_seconds());

  // Bad links are refused, naming what is wrong.
  auto bad = std::make_shared<HostLinks>();
  EXPECT_EQ(SetHostLinks(bad).message(), "SetHostLinks: host_of is empty");
  bad->host_of = {0, -1};
  bad->bytes_per_second = 1;
  EXPECT_EQ(SetHostLinks(bad).message(), "SetHostLinks: host_of[1] is -1; hosts are >= 0");
  bad->host_of = {0, 1};
  for (double speed : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    bad->bytes_per_second = speed;
    EXPECT_EQ(SetHostLinks(bad).code(), StatusCode::kInvalidArgument) << speed;
  }
}

TEST(PlannerTest, FlattensThreeAxesOrASubset) {
  // On a 2 x 1 x 2 hierarchy the flattened group of axes 0 and 2 skips axis 1.
  const std::string cube = "cpu:[[[0,1]],[[2,3]]]";
  auto all = Plan(Shape{512, 512}, cube, "(P, P, P)", cube, "(B, B, B)");
  ASSERT_EQ(all->steps().size(), 1u) << all->ToString();
  EXPECT_EQ(all->steps()[0].ranks, 4);
  CheckChain(*all);
  auto subset = Plan(Shape{512, 512}, cube, "(P, S(1), P)", cube, "(B, S(1), B)");
  ASSERT_EQ(subset->steps().size(), 1u) << subset->ToString();
  EXPECT_EQ(subset->steps()[0].axes, AxisBit(0) | AxisBit(2));
  CheckChain(*subset);
}

TEST(PlannerTest, RelabelsBetweenHierarchiesOfTheSameRanks) {
  const std::string line = "cpu:[0,1,2,3]", grid = "cpu:[[0,1],[2,3]]";
  // A partial 1-d value is (P, P) on the grid: no reduction before crossing.
  auto partial = Plan(Shape{4096, 4096}, line, "P", grid, "(P, S(0))");
  ASSERT_EQ(partial->steps().size(), 2u) << partial->ToString();
  EXPECT_EQ(partial->steps()[0].kind, BoxingStep::Kind::kRelabel);
  EXPECT_EQ(partial->steps()[0].to, Nd("(P, P)"));
  EXPECT_EQ(partial->steps()[1].collective, Collective::kReduceScatter);
  EXPECT_EQ(partial->steps()[1].ranks, 2);
  CheckChain(*partial);
  // The same boxes: a relabel alone.
  auto same = Plan(Shape{8, 4}, grid, "(S(0), S(0))", line, "S(0)");
  ASSERT_EQ(same->steps().size(), 1u);
  EXPECT_EQ(same->steps()[0].kind, BoxingStep::Kind::kRelabel);
  EXPECT_EQ(same->steps()[0].wire_bytes, 0);
  CheckChain(*same);
  // 6 rows nest as 2,1,2,1 but split as 2,2,1,1: the pieces differ, so no relabel.
  auto uneven = Plan(Shape{6, 4}, grid, "(S(0), S(0))", line, "S(0)");
  for (const BoxingStep& step : uneven->steps()) {
    EXPECT_NE(step.kind, BoxingStep::Kind::kRelabel) << uneven->ToString();
  }
  CheckChain(*uneven);
  // Other ranks, or the same ranks in another order, never relabel.
  for (const char* other : {"cpu:[[0,2],[1,3]]", "cpu:[[0,1],[2,4]]"}) {
    auto plan = Plan(Shape{8, 4}, line, "B", other, "(B, B)");
    for (const BoxingStep& step : plan->steps()) {
      EXPECT_NE(step.kind, BoxingStep::Kind::kRelabel) << plan->ToString();
    }
  }
}

TEST(PlannerTest, FlattenedAndRelabelSteps) {
  auto flat = Plan(Shape{4096, 4096}, "cpu:[[0,1],[2,3]]", "(P, P)", "cpu:[[0,1],[2,3]]", "(B, B)");
  EXPECT_EQ(flat->StepToString(0).substr(0, 39), "axes 0,1: P -> B  all-reduce over 4 ran");
  auto relabel = Plan(Shape{8, 4}, "cpu:[[0,1],[2,3]]", "(S(0), S(0))", "cpu:[0,1,2,3]", "S(0)");
  // The last step copies the busiest rank's 2 x 4 f32 into the output.
  char cost[32];
  std::snprintf(cost, sizeof(cost), "%.1e", kStepSeconds + kGammaSecondsPerByte * 32);
  EXPECT_EQ(relabel->StepToString(0),
            "relabel cpu:[[0,1],[2,3]] (S(0), S(0)) -> cpu:[0,1,2,3] S(0)  relabel, nothing moves"
            "  cost " +
                std::string(cost) + " s");
}

TEST(PlannerTest, EveryPairAcrossHierarchiesOfTheSameRanksHasAValidPlan) {
  const char* const one_d[] = {"S(0)", "S(1)", "B", "P", "P(max)", "P(min)"};
  for (const Shape& shape : {Shape{8, 4}, Shape{6, 5}}) {
    for (const char* a : one_d) {
      for (const char* b : one_d) {
        for (const char* c : one_d) {
          const std::string two = std::string("(") + b + ", " + c + ")";
          auto down = Plan(shape, "cpu:[0,1,2,3]", a, "cpu:[[0,1],[2,3]]", two);
          ASSERT_NE(down, nullptr);
          CheckChain(*down);
          auto up = Plan(shape, "cpu:[[0,1],[2,3]]", two, "cpu:[0,1,2,3]", a);
          ASSERT_NE(up, nullptr);
          CheckChain(*up);
        }
      }
    }
  }
}

TEST(PlannerTest, ArgumentErrors) {
  const Placement p = P("cpu:[0,1]");
  auto plan = [&](const Placement& sp, const std::string& s, const Placement& dp,
                  const std::string& d, DType dtype = DType::kF32) {
    return PlanBoxing(Shape{4, 3}, dtype, sp, Nd(s), dp, Nd(d)).status();
  };
  Status s = plan(p, "S(2)", p, "B");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "PlanBoxing: src nd-sbp S(2) splits tensor axis 2 but the tensor of shape [4,3] has 2 "
            "axes");
  s = plan(p, "B", P("cpu:[[0,1]]"), "B");
  EXPECT_EQ(s.message(),
            "PlanBoxing: dst nd-sbp B has 1 axes but placement cpu:[[0,1]] has a 2-axis hierarchy");
  EXPECT_TRUE(plan(p, "B", p, "B", DType::kF16).ok());
  s = plan(p, "B", p, "B", static_cast<DType>(42));
  EXPECT_EQ(s.message(),
            "PlanBoxing: dtype value 42 is not supported (supported: f32, f64, f16, bf16, i32, "
            "i64, bool)");
  // S(-k) counts from the end of the shape; past the first axis it is an error.
  NdSbp negative;
  negative.Append(Sbp{SbpKind::kSplit, -1});
  EXPECT_TRUE(PlanBoxing(Shape{4, 3}, DType::kF32, p, Nd("B"), p, negative).ok());
  s = PlanBoxing(Shape{4, 3}, DType::kF32, p, Nd("B"), p, Nd("S(-3)")).status();
  EXPECT_EQ(s.message(),
            "PlanBoxing: dst nd-sbp S(-3) splits axis -3 but the tensor of shape [4,3] has 2 axes "
            "(split axes -2..1)");

  s = plan(p, "B", P("cuda:[0,1]"), "B");
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(),
            "PlanBoxing: boxing between device types cpu and cuda (src cpu:[0,1], dst cuda:[0,1]) "
            "is not implemented; to_global stages such moves through host memory");
}

// BoxOnDevice runs the same planner on cuda placements: a cuda plan has the cpu plan's
// steps (the cost model does not depend on the device), and explain can print it.
TEST(PlannerTest, CudaPlacementsPlanLikeCpuOnes) {
  for (const auto& [from, to] : {std::pair<const char*, const char*>{"S(0)", "B"},
                                 {"(S(0), S(1))", "(S(1), S(0))"},
                                 {"(P, B)", "(S(0), S(1))"}}) {
    const bool two_d = from[0] == '(';
    const std::string layout = two_d ? "[[0,1],[2,3]]" : "[0,1,2]";
    auto cpu = PlanBoxing(Shape{6, 5}, DType::kF32, P("cpu:" + layout), Nd(from),
                          P("cpu:" + layout), Nd(to));
    auto cuda = PlanBoxing(Shape{6, 5}, DType::kF32, P("cuda:" + layout), Nd(from),
                           P("cuda:" + layout), Nd(to));
    ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
    ASSERT_TRUE(cuda.ok()) << cuda.status().ToString();
    ASSERT_EQ((*cuda)->steps().size(), (*cpu)->steps().size()) << from << " -> " << to;
    EXPECT_GT((*cuda)->steps().size(), 0u);
    for (size_t i = 0; i < (*cpu)->steps().size(); ++i) {
      EXPECT_EQ((*cuda)->steps()[i].kind, (*cpu)->steps()[i].kind);
      EXPECT_EQ((*cuda)->steps()[i].to, (*cpu)->steps()[i].to);
    }
    EXPECT_NE((*cuda)->ToString().find("cuda:"), std::string::npos) << (*cuda)->ToString();
  }
}

TEST(PlannerTest, BoxNeedsTheWorld) {
  // This binary never initialises MPI.
  float x = 0;
  Status s = Box(&x, &x, Shape{1}, DType::kF32, P("cpu:[0]"), Nd("B"), P("cpu:[0]"), Nd("S(0)"));
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "Box: the MPI world is not initialised: call tess_runtime_init first");
}

}  // namespace
}  // namespace tessera::boxing
