#include "core/plan/register_lifetime.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace tessera::plan {
namespace {

TEST(LifetimeTest, OverlapsLengthAndText) {
  const Lifetime a{2, 5};
  EXPECT_EQ(a.length(), 4);
  EXPECT_EQ(a.ToString(), "[2,5]");
  EXPECT_TRUE(a.Overlaps(Lifetime{5, 7}));  // both inclusive: step 5 is shared
  EXPECT_TRUE(a.Overlaps(Lifetime{0, 2}));
  EXPECT_TRUE(a.Overlaps(Lifetime{3, 3}));
  EXPECT_FALSE(a.Overlaps(Lifetime{6, 9}));
  EXPECT_FALSE(a.Overlaps(Lifetime{0, 1}));
}

TEST(LifetimeTest, CheckLifetimeRejectsEndBeforeStartAndNegativeStart) {
  EXPECT_TRUE(CheckLifetime(Lifetime{3, 3}, "x").ok());
  const Status reversed = CheckLifetime(Lifetime{4, 2}, "PlanMemory: register \"h\" (#1)");
  EXPECT_EQ(reversed.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(reversed.message(),
            "PlanMemory: register \"h\" (#1): lifetime [4,2] ends (step 2) before it starts "
            "(step 4)");
  const Status negative = CheckLifetime(Lifetime{-1, 2}, "x");
  EXPECT_EQ(negative.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(negative.message().find("[-1,2] starts at a negative step"), std::string::npos);
}

// x -> matmul -> h1 -> op with a tmp -> h2 -> residual(h2, h1) -> out -> pull.
TEST(ComputeLifetimesTest, SmallStepList) {
  const std::vector<PlanStep> steps = {
      {{}, {0}},      // 0: push x
      {{0}, {1}},     // 1: h1 = f(x)
      {{1}, {2, 3}},  // 2: h2 = g(h1), with a scratch tmp (#3) never read
      {{2, 1}, {4}},  // 3: out = h2 + h1
      {{4}, {}},      // 4: pull out
  };
  Result<std::vector<Lifetime>> lifetimes = ComputeLifetimes(5, steps);
  ASSERT_TRUE(lifetimes.ok()) << lifetimes.status().ToString();
  // Derived by hand: [first write, last read (or write)].
  const std::vector<Lifetime> expected = {{0, 1}, {1, 3}, {2, 3}, {2, 2}, {3, 4}};
  EXPECT_EQ(*lifetimes, expected);
  EXPECT_TRUE(CheckUsesWithinLifetimes(*lifetimes, steps).ok());
}

TEST(ComputeLifetimesTest, WriteAfterLastReadExtendsTheLifetime) {
  // Register 0 is written at 0, read at 1 and written again at 3: its memory is still
  // written at step 3, so the lifetime runs to 3.
  const std::vector<PlanStep> steps = {{{}, {0}}, {{0}, {1}}, {{1}, {}}, {{}, {0}}};
  Result<std::vector<Lifetime>> lifetimes = ComputeLifetimes(2, steps);
  ASSERT_TRUE(lifetimes.ok());
  EXPECT_EQ((*lifetimes)[0], (Lifetime{0, 3}));
  EXPECT_EQ((*lifetimes)[1], (Lifetime{1, 2}));
}

TEST(ComputeLifetimesTest, NoRegistersAndNoSteps) {
  Result<std::vector<Lifetime>> lifetimes = ComputeLifetimes(0, {});
  ASSERT_TRUE(lifetimes.ok());
  EXPECT_TRUE(lifetimes->empty());
}

// Random step lists: each lifetime starts at a write, ends at a use, and contains every use.
TEST(ComputeLifetimesTest, RandomStepListsAgreeWithAPlainScan) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 8);
    const int num_steps = n + 1 + static_cast<int>(rng() % 6);
    std::vector<PlanStep> steps(num_steps);
    for (int r = 0; r < n; ++r) {
      const int w = static_cast<int>(rng() % (num_steps - 1));  // leave room for a read
      steps[w].writes.push_back(r);
      for (int t = w + 1; t < num_steps; ++t) {
        if (rng() % 3 == 0) steps[t].reads.push_back(r);
      }
    }
    Result<std::vector<Lifetime>> lifetimes = ComputeLifetimes(n, steps);
    ASSERT_TRUE(lifetimes.ok()) << lifetimes.status().ToString();
    for (int r = 0; r < n; ++r) {
      int64_t first = -1;
      int64_t last = -1;
      for (int t = 0; t < num_steps; ++t) {
        for (int64_t id : steps[t].writes) {
          if (id == r && first < 0) first = t;
          if (id == r) last = std::max<int64_t>(last, t);
        }
        for (int64_t id : steps[t].reads) {
          if (id == r) last = std::max<int64_t>(last, t);
        }
      }
      EXPECT_EQ((*lifetimes)[r], (Lifetime{first, last})) << "register " << r;
    }
    EXPECT_TRUE(CheckUsesWithinLifetimes(*lifetimes, steps).ok());
  }
}

TEST(ComputeLifetimesTest, BadInputs) {
  auto message = [](int64_t n, const std::vector<PlanStep>& steps) {
    Result<std::vector<Lifetime>> r = ComputeLifetimes(n, steps);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    return r.status().message();
  };
  EXPECT_EQ(message(-1, {}), "ComputeLifetimes: num_registers is -1; it must be >= 0");
  EXPECT_EQ(message(2, {{{}, {0}}, {{}, {2}}}),
            "ComputeLifetimes: step 1 writes register #2; ids are in [0, 2)");
  EXPECT_EQ(message(2, {{{-1}, {0}}}),
            "ComputeLifetimes: step 0 reads register #-1; ids are in [0, 2)");
  EXPECT_EQ(message(2, {{{1}, {0}}, {{}, {1}}}),
            "ComputeLifetimes: step 0 reads register #1 before any earlier step writes it (a "
            "step reads before it writes)");
  EXPECT_EQ(message(1, {{{0}, {0}}}),  // an in-place first write reads nothing
            "ComputeLifetimes: step 0 reads register #0 before any earlier step writes it (a "
            "step reads before it writes)");
  EXPECT_EQ(message(3, {{{}, {0, 1}}}),
            "ComputeLifetimes: register #2 is never written by any of the 1 steps");
}

TEST(CheckUsesWithinLifetimesTest, UsesOutsideTheLifetimeAreNamed) {
  const std::vector<PlanStep> steps = {{{}, {0}}, {{0}, {1}}, {{1}, {}}};
  EXPECT_TRUE(CheckUsesWithinLifetimes({{0, 1}, {1, 2}}, steps).ok());
  const Status late = CheckUsesWithinLifetimes({{0, 0}, {1, 2}}, steps);
  EXPECT_EQ(late.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(late.message(),
            "CheckUsesWithinLifetimes: step 1 reads register #0 outside its lifetime [0,0]");
  const Status early = CheckUsesWithinLifetimes({{0, 1}, {2, 2}}, steps);
  EXPECT_EQ(early.message(),
            "CheckUsesWithinLifetimes: step 1 writes register #1 outside its lifetime [2,2]");
  const Status reversed = CheckUsesWithinLifetimes({{0, 1}, {2, 1}}, steps);
  EXPECT_EQ(reversed.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(reversed.message().find("register #1: lifetime [2,1] ends (step 1) before it "
                                    "starts (step 2)"),
            std::string::npos);
  const Status unknown = CheckUsesWithinLifetimes({{0, 1}}, steps);
  EXPECT_EQ(unknown.message(),
            "CheckUsesWithinLifetimes: step 1 writes register #1; ids are in [0, 1)");
}

}  // namespace
}  // namespace tessera::plan
