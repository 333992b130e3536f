#include "core/infer/cost_model.h"

#include <gtest/gtest.h>

#include "core/infer/infer_test_util.h"

namespace tessera {
namespace infer {
namespace {

// T = 96 bytes throughout (e.g. a [4,6] f32 tensor).
constexpr double kT = 96;

double Cost1d(const char* from, const char* to, int64_t n) {
  return SbpCopyCost(*Sbp::Parse(from), *Sbp::Parse(to), kT, n);
}

TEST(CostModelTest, OneDimensionalTable) {
  // n = 2: T(n-1)/n = 48, T(n-1) = 96, 2T(n-1) = 192, penalty 4T(2+2) = 1536.
  EXPECT_EQ(Cost1d("S(0)", "S(0)", 2), 0);
  EXPECT_EQ(Cost1d("B", "S(1)", 2), 0);
  EXPECT_EQ(Cost1d("S(0)", "S(1)", 2), 48);
  EXPECT_EQ(Cost1d("P", "S(0)", 2), 96);
  EXPECT_EQ(Cost1d("P(max)", "S(0)", 2), 96);
  EXPECT_EQ(Cost1d("S(0)", "B", 2), 96);
  EXPECT_EQ(Cost1d("P", "B", 2), 192);
  EXPECT_EQ(Cost1d("P(min)", "B", 2), 192);
  EXPECT_EQ(Cost1d("S(0)", "P", 2), 1536);
  EXPECT_EQ(Cost1d("B", "P(max)", 2), 1536);
  // A different partial kind is reduced first: 2T(n-1) + penalty = 192 + 1536.
  EXPECT_EQ(Cost1d("P(max)", "P", 2), 1728);
  // n = 3: T(n-1)/n = 64, T(n-1) = 192, 2T(n-1) = 384.
  EXPECT_EQ(Cost1d("S(0)", "S(1)", 3), 64);
  EXPECT_EQ(Cost1d("S(1)", "B", 3), 192);
  EXPECT_EQ(Cost1d("P", "B", 3), 384);
  // One rank: every SBP is the same local tensor.
  EXPECT_EQ(Cost1d("P", "B", 1), 0);
  EXPECT_EQ(Cost1d("S(0)", "P", 1), 0);
}

TEST(CostModelTest, NdSteps) {
  const std::vector<int64_t> h22 = {2, 2};
  // (S0,B) -> (S0,S1): only axis 1 changes, B -> S is a local slice.
  EXPECT_EQ(NdSbpCopyCost(Nd("(S(0), B)"), Nd("(S(0), S(1))"), h22, kT), 0);
  // (S0,S1) -> (B,B): axis 1 first, inside 2 groups holding T/2 each: 2 * (T/2)(2-1)
  // = 96; then axis 0, 2 groups holding T: 2 * T(2-1) = 192. Total 288 = 3T, which is
  // what an all-gather moves: each of 4 ranks receives 3T/4.
  EXPECT_EQ(NdSbpCopyCost(Nd("(S(0), S(1))"), Nd("(B, B)"), h22, kT), 288);
  // (P,B) -> (B,B): 2 groups each all-reduce T over 2 ranks: 2 * 2T(2-1) = 384.
  EXPECT_EQ(NdSbpCopyCost(Nd("(P, B)"), Nd("(B, B)"), h22, kT), 384);
  // A size-1 hierarchy axis changes nothing: [1,2] behaves like [2].
  EXPECT_EQ(NdSbpCopyCost(Nd("(S(0), S(0))"), Nd("(B, B)"), {1, 2}, kT),
            SbpCopyCost(Sbp::Split(0), Sbp::Broadcast(), kT, 2));
  EXPECT_EQ(NdSbpCopyCost(Nd("S(0)"), Nd("S(1)"), {3}, kT), 64);
}

TEST(CostModelTest, DifferentPlacements) {
  Placement p01 = *Placement::Parse("cpu:[0,1]");
  Placement p23 = *Placement::Parse("cpu:[2,3]");
  Placement p234 = *Placement::Parse("cpu:[2,3,4]");
  // T + [to B] T(n_c - 1) = 96 + 96.
  EXPECT_EQ(CopyCost(p01, Nd("S(0)"), p23, Nd("B"), kT), 192);
  // T + [from P] T(n_p - 1) = 96 + 96.
  EXPECT_EQ(CopyCost(p01, Nd("P"), p23, Nd("S(0)"), kT), 192);
  // T + penalty 4T(2 + 3) = 96 + 1920.
  EXPECT_EQ(CopyCost(p01, Nd("B"), p234, Nd("P(max)"), kT), 2016);
  // Same placement falls back to the same-placement model.
  EXPECT_EQ(CopyCost(p01, Nd("S(0)"), p01, Nd("B"), kT), 96);
}

}  // namespace
}  // namespace infer
}  // namespace tessera
