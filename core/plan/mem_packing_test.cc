#include "core/plan/mem_packing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "core/plan/mem_test_util.h"

namespace tessera::plan {
namespace {

constexpr int64_t kUnit = 512;

PackItem Item(int64_t units, int64_t first, int64_t last) {
  return PackItem{units * kUnit, Lifetime{first, last}};
}

TEST(PackStrategyTest, TenDistinctNamedStrategies) {
  const std::vector<PackStrategy> all = AllPackStrategies();
  ASSERT_EQ(all.size(), 10u);
  std::set<std::string> names;
  for (const PackStrategy& s : all) names.insert(s.Name());
  EXPECT_EQ(names.size(), 10u);
  EXPECT_EQ((PackStrategy{PackOrder::kStartDesc, PackFit::kFirstFit}).Name(),
            "start-desc(timeline)/first-fit");
  EXPECT_EQ((PackStrategy{PackOrder::kSizeDesc, PackFit::kBestFit}).Name(), "size-desc/best-fit");
  // Out-of-range enums still print (PackWith rejects them).
  EXPECT_EQ((PackStrategy{static_cast<PackOrder>(9), static_cast<PackFit>(3)}).Name(),
            "order9/fit3");
}

// Optimal blocks derived by hand. In each case the lower bound (the most bytes live at one
// step) is reached by an explicit placement, so that placement is optimal.
TEST(PackBestTest, HandDerivedOptimalBlocks) {
  struct Case {
    const char* what;
    std::vector<PackItem> items;
    int64_t optimal_units;
  };
  const std::vector<Case> cases = {
      // A[0,1] 4u, B[1,2] 2u, C[2,3] 4u. Live: t0 {A}=4, t1 {A,B}=6, t2 {B,C}=6, t3 {C}=4,
      // so >= 6; A@0, C@0 (A and C never live together), B@4 reaches 6.
      {"chain", {Item(4, 0, 1), Item(2, 1, 2), Item(4, 2, 3)}, 6},
      // All live at steps 0..5: nothing can share, 3 + 1 + 2 = 6.
      {"all overlap", {Item(3, 0, 5), Item(1, 0, 5), Item(2, 0, 5)}, 6},
      // Pairwise disjoint lifetimes: everything at 0, block = the largest = 5.
      {"disjoint", {Item(3, 0, 0), Item(5, 1, 1), Item(2, 2, 2)}, 5},
      // Live: t0 {P,Q}=3+1, t1 {Q,R}=1+2, t2 {R,S}=2+2, t3 {S}=2, so >= 4. P@0 Q@3;
      // R@0 (P gone, Q at 3); S@2 (R at [0,2)) reaches 4.
      {"staircase", {Item(3, 0, 0), Item(1, 0, 1), Item(2, 1, 2), Item(2, 2, 3)}, 4},
      // Two long registers X[0,4] 1u, Y[0,4] 1u, and at each step t one short 2u register:
      // live = 4u at every step, and X@0 Y@1 with every short one @2 reaches 4.
      {"long pair",
       {Item(1, 0, 4), Item(1, 0, 4), Item(2, 0, 0), Item(2, 1, 1), Item(2, 2, 2), Item(2, 3, 3),
        Item(2, 4, 4)},
       4},
  };
  for (const Case& c : cases) {
    Result<Packing> best = PackBest(c.items);
    ASSERT_TRUE(best.ok()) << c.what << ": " << best.status().ToString();
    EXPECT_EQ(best->block_size, c.optimal_units * kUnit) << c.what;
    EXPECT_EQ(*LiveLowerBound(c.items), c.optimal_units * kUnit) << c.what;
    EXPECT_TRUE(PaintedWithoutCollision(c.items, best->offsets, kUnit)) << c.what;
  }
}

TEST(PackWithTest, OrderingsPlaceInTheirOrder) {
  // A[0,5] 1u and B[1,2] 2u overlap; whichever goes first sits at 0.
  const std::vector<PackItem> items = {Item(1, 0, 5), Item(2, 1, 2)};
  auto offsets = [&](PackOrder order) {
    return PackWith(items, PackStrategy{order, PackFit::kBestFit})->offsets;
  };
  const std::vector<int64_t> a_first = {0, 1 * kUnit};
  const std::vector<int64_t> b_first = {2 * kUnit, 0};
  EXPECT_EQ(offsets(PackOrder::kSizeDesc), b_first);      // B is larger
  EXPECT_EQ(offsets(PackOrder::kLifetimeDesc), a_first);  // A lives 6 steps, B 2
  EXPECT_EQ(offsets(PackOrder::kStartAsc), a_first);      // A starts at 0
  EXPECT_EQ(offsets(PackOrder::kStartDesc), b_first);     // B starts later
  EXPECT_EQ(offsets(PackOrder::kVolumeDesc), a_first);    // 1 * 6 > 2 * 2
}

TEST(PackWithTest, BestFitTakesTheSmallestGapFirstFitTheLowest) {
  // In start order (all start at 0, ties by index): g1@[0,3) P@3 g2@4 Q@5. The last item
  // (1u, [1,9]) overlaps only P and Q: gaps [0,3) (3u, g1 is dead) and [4,5) (1u).
  const std::vector<PackItem> items = {Item(3, 0, 0), Item(1, 0, 9), Item(1, 0, 0), Item(1, 0, 9),
                                       PackItem{kUnit, Lifetime{1, 9}}};
  Result<Packing> first = PackWith(items, {PackOrder::kStartAsc, PackFit::kFirstFit});
  Result<Packing> best = PackWith(items, {PackOrder::kStartAsc, PackFit::kBestFit});
  ASSERT_TRUE(first.ok() && best.ok());
  EXPECT_EQ(first->offsets, (std::vector<int64_t>{0, 3 * kUnit, 4 * kUnit, 5 * kUnit, 0}));
  EXPECT_EQ(best->offsets, (std::vector<int64_t>{0, 3 * kUnit, 4 * kUnit, 5 * kUnit, 4 * kUnit}));
}

TEST(PackWithTest, ZeroSizeItemsSitAtZeroAndEmptyInputIsEmpty) {
  const std::vector<PackItem> items = {Item(2, 0, 3), PackItem{0, Lifetime{1, 2}}, Item(1, 1, 1)};
  for (const PackStrategy& s : AllPackStrategies()) {
    Result<Packing> p = PackWith(items, s);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->offsets[1], 0) << s.Name();
    EXPECT_EQ(p->block_size, 3 * kUnit) << s.Name();
  }
  Result<Packing> empty = PackBest({});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->block_size, 0);
  EXPECT_TRUE(empty->offsets.empty());
  EXPECT_EQ(*LiveLowerBound({}), 0);
}

// The classic fragmentation trap for first fit in start order: k small short-lived registers
// interleaved with k small long-lived ones, then one large register once the short ones die.
// Start order puts them alternately at 0,1,2,...: the dead ones leave k holes of 1 unit and
// the large one (k units) goes on top, block 3k. The lower bound is 2k (k + k at step 0 and
// at step 2) and size order reaches it: large@0, long ones above it, short ones below.
TEST(PackBestTest, BeatsFirstFitOnFragmentingLifetimes) {
  for (int k : {4, 8, 16}) {
    std::vector<PackItem> items;
    for (int i = 0; i < k; ++i) {
      items.push_back(Item(1, 0, 1));  // short
      items.push_back(Item(1, 0, 9));  // long
    }
    items.push_back(Item(k, 2, 3));  // large
    const int64_t lower = *LiveLowerBound(items);
    ASSERT_EQ(lower, 2 * k * kUnit);
    Result<Packing> first_fit = PackWith(items, {PackOrder::kStartAsc, PackFit::kFirstFit});
    Result<Packing> best = PackBest(items);
    ASSERT_TRUE(first_fit.ok() && best.ok());
    EXPECT_EQ(first_fit->block_size, 3 * k * kUnit) << "k=" << k;
    EXPECT_LE(best->block_size, lower + lower / 10) << "k=" << k;  // <= 1.1 x lower bound
    EXPECT_LT(best->block_size, first_fit->block_size) << "k=" << k;
    EXPECT_TRUE(PaintedWithoutCollision(items, best->offsets, kUnit));
    std::printf("fragmenting k=%d: lower bound %lld, first-fit start order %lld, best %lld (%s)\n",
                k, static_cast<long long>(lower), static_cast<long long>(first_fit->block_size),
                static_cast<long long>(best->block_size), best->strategy.Name().c_str());
  }
}

// Random instances: every strategy is collision-free by the painting oracle, never below
// the lower bound (which matches a per-step loop), aligned to the unit, and PackBest keeps
// the smallest of them.
TEST(PackWithTest, RandomInstancesAreValidAndAtLeastTheLowerBound) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 1000; ++trial) {
    const std::vector<PackItem> items =
        RandomItems(rng, 1 + static_cast<int>(rng() % 25), 8, kUnit, 12);
    Result<int64_t> lower = LiveLowerBound(items);
    ASSERT_TRUE(lower.ok());
    ASSERT_EQ(*lower, LowerBoundByLoop(items));
    int64_t smallest = std::numeric_limits<int64_t>::max();
    for (const PackStrategy& s : AllPackStrategies()) {
      Result<Packing> p = PackWith(items, s);
      ASSERT_TRUE(p.ok());
      ASSERT_TRUE(PaintedWithoutCollision(items, p->offsets, kUnit)) << s.Name();
      ASSERT_GE(p->block_size, *lower) << s.Name();
      int64_t top = 0;
      for (size_t i = 0; i < items.size(); ++i) {
        ASSERT_EQ(p->offsets[i] % kUnit, 0);
        top = std::max(top, p->offsets[i] + items[i].size);
      }
      ASSERT_EQ(p->block_size, top);
      smallest = std::min(smallest, p->block_size);
    }
    Result<Packing> best = PackBest(items);
    ASSERT_TRUE(best.ok());
    ASSERT_EQ(best->block_size, smallest);
  }
}

// The exhaustive optimum of tiny instances, as an independent yardstick for the heuristic.
bool Fits(const std::vector<PackItem>& items, std::vector<int64_t>* offsets, size_t i,
          int64_t block) {
  if (i == items.size()) return true;
  for (int64_t o = 0; o + items[i].size <= block; o += kUnit) {
    bool free = true;
    for (size_t j = 0; j < i && free; ++j) {
      free = !items[i].lifetime.Overlaps(items[j].lifetime) || o + items[i].size <= (*offsets)[j] ||
             (*offsets)[j] + items[j].size <= o;
    }
    if (!free) continue;
    (*offsets)[i] = o;
    if (Fits(items, offsets, i + 1, block)) return true;
  }
  return false;
}

TEST(PackBestTest, TinyInstancesAgainstExhaustiveSearch) {
  std::mt19937_64 rng(5);
  int optimal = 0;
  constexpr int kTrials = 300;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<PackItem> items = RandomItems(rng, 2 + static_cast<int>(rng() % 6), 4, kUnit, 6);
    Result<Packing> best = PackBest(items);
    ASSERT_TRUE(best.ok());
    int64_t opt = *LiveLowerBound(items);
    std::vector<int64_t> offsets(items.size());
    while (!Fits(items, &offsets, 0, opt)) opt += kUnit;
    ASSERT_GE(best->block_size, opt);
    if (best->block_size == opt) ++optimal;
  }
  std::printf("PackBest optimal on %d of %d tiny instances\n", optimal, kTrials);
  EXPECT_GE(optimal, kTrials * 9 / 10);
}

TEST(PackWithTest, BadInputs) {
  Result<Packing> p = PackWith({Item(1, 0, 1), PackItem{-5, Lifetime{0, 0}}}, {});
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message(), "PackWith: item 1 has size -5; sizes must be >= 0");
  p = PackWith({PackItem{kUnit, Lifetime{3, 1}}}, {});
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("item 0: lifetime [3,1] ends (step 1) before it starts"),
            std::string::npos);
  p = PackWith({Item(1, 0, 0)}, PackStrategy{static_cast<PackOrder>(9), PackFit::kBestFit});
  EXPECT_EQ(p.status().message(), "PackWith: unknown strategy (order 9, fit 0)");
  p = PackWith({Item(1, 0, 0)}, PackStrategy{PackOrder::kSizeDesc, static_cast<PackFit>(-1)});
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  const int64_t half = std::numeric_limits<int64_t>::max() / 2 + 1;
  const std::vector<PackItem> huge = {PackItem{half, Lifetime{0, 0}}, PackItem{half, {1, 1}}};
  EXPECT_EQ(PackWith(huge, {}).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(PackBest(huge).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(LiveLowerBound(huge).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(PackBest({PackItem{-1, {0, 0}}}).status().message(),
            "PackBest: item 0 has size -1; sizes must be >= 0");
  EXPECT_EQ(LiveLowerBound({PackItem{1, {-1, 0}}}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessera::plan
