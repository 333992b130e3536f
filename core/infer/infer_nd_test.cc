// Inference on N-d placements. Candidates are the product of the per-axis 1-d lists,
// axis 0 varying slowest, so candidate index = i0 * |list| + i1 on a 2-d placement.
// f32 tensors, T = 4 * elements; costs follow cost_model.h's per-axis steps.
#include <gtest/gtest.h>

#include "core/infer/explain.h"
#include "core/infer/infer.h"
#include "core/infer/infer_test_util.h"

namespace tessera {
namespace infer {
namespace {

constexpr const char* k2x2 = "cpu:[[0,1],[2,3]]";

InferResult MustInfer(const char* op, const std::vector<TensorMeta>& in,
                      const op::AttrMap& attrs = {}) {
  Result<InferResult> r = InferSignature(Op(op), in, attrs);
  EXPECT_TRUE(r.ok()) << op << ": " << r.status().ToString();
  return r.ok() ? *r : InferResult{};
}

TEST(InferNdTest, MatmulRowsByColumns) {
  // matmul list: #0 (S0,B)->S0, #1 (B,S1)->S1, #2 (S1,S0)->P, #3 (P,B)->P,
  // #4 (B,P)->P, #5 (B,B)->B. a (S0,B) and b (B,S1) are exactly axis 0 = #0 and
  // axis 1 = #1: candidate 0*6 + 1 = 1, nothing moves, out (S0,S1).
  InferResult r =
      MustInfer("matmul", {Meta({4, 6}, k2x2, "(S(0), B)"), Meta({6, 8}, k2x2, "(B, S(1))")});
  EXPECT_EQ(r.num_candidates, 36);
  EXPECT_EQ(r.signature_index, 1);
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("(S(0), S(1))"));
  EXPECT_EQ(r.outputs[0].shape, Shape({4, 8}));
  EXPECT_EQ(r.total_cost, 0);
  EXPECT_EQ(r.needs_boxing, (std::vector<bool>{false, false}));
}

TEST(InferNdTest, SplitPlusBroadcastSlicesLocally) {
  // add list: #0 (S0,S0), #1 (S1,S1), #2 (P,P), #3-#6 max/min with B, #7 (B,B).
  // x (S0,S1) is axis 0 = #0, axis 1 = #1 -> candidate 1; y (B,B) -> (S0,S1) is two
  // local slices (cost 0). Only x matches; no candidate matches both at cost 0.
  InferResult r =
      MustInfer("add", {Meta({4, 6}, k2x2, "(S(0), S(1))"), Meta({4, 6}, k2x2, "(B, B)")});
  EXPECT_EQ(r.num_candidates, 64);
  EXPECT_EQ(r.signature_index, 1);
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("(S(0), S(1))"));
  EXPECT_EQ(r.input_nd_sbps[1], Nd("(S(0), S(1))"));
  EXPECT_EQ(r.needs_boxing, (std::vector<bool>{false, true}));
  EXPECT_EQ(r.total_cost, 0);
}

TEST(InferNdTest, CrossedSplitsTieBreakByDeclaredOrder) {
  // x (S0,S1), y (S1,S0), [4,8], T = 128.
  // Candidate 1 = (#0,#1) -> (S0,S1): x matches; y (S1,S0)->(S0,S1): axis 1 S0->S1
  //   in 2 groups holding T/2 (axis 0 split): 2 * 64 * 1/2 = 64; then axis 0 S1->S0,
  //   axis 1 now split: 64. Cost 128, 1 match.
  // Candidate 8 = (#1,#0) -> (S1,S0): symmetric, cost 128, 1 match.
  // Candidate 0 = (#0,#0) -> (S0,S0): x axis 1 S1->S0 = 64, y axis 0 S1->S0 = 64:
  //   cost 128 but no match. Candidate 9 (S1,S1) likewise.
  // All-B candidates cost more (288 each, see cost_model_test). -> candidate 1.
  InferResult r =
      MustInfer("add", {Meta({4, 8}, k2x2, "(S(0), S(1))"), Meta({4, 8}, k2x2, "(S(1), S(0))")});
  EXPECT_EQ(r.signature_index, 1);
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("(S(0), S(1))"));
  EXPECT_EQ(r.total_cost, 128);
  Result<Explanation> e = Explain(
      Op("add"), {Meta({4, 8}, k2x2, "(S(0), S(1))"), Meta({4, 8}, k2x2, "(S(1), S(0))")}, {});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->candidates[8].cost, 128);
  EXPECT_EQ(e->candidates[0].cost, 128);
  EXPECT_EQ(e->candidates[0].matching_inputs, 0);
  EXPECT_EQ(e->candidates[8].rank, 1);
  EXPECT_EQ(e->oneflow_choice, -1);  // OneFlow's 1-d rule does not apply on 2-d
}

TEST(InferNdTest, NestedSplitsFilterSuccessively) {
  // relu list: #0 S0, #1 S1, #2 P(max), #3 P(min), #4 B. Two rows: (S0,S0) splits
  // them 1 + 1 on axis 0, then 1 row over 2 ranks on axis 1: dropped. x (B,B) matches
  // candidate 4*5 + 4 = 24 at cost 0; the free slicing candidates match nothing.
  Result<Explanation> e = Explain(Op("relu"), {Meta({2, 6}, k2x2, "(B, B)")}, {});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  ASSERT_EQ(e->candidates.size(), 25u);
  EXPECT_TRUE(e->candidates[0].filtered);
  EXPECT_EQ(e->candidates[0].filter_reason,
            "input \"x\": (S(0), S(0)) splits axis 0 of shape [2,6] (1 element after earlier "
            "splits) over 2 ranks on placement axis 1");
  EXPECT_FALSE(e->candidates[1].filtered);  // (S0,S1): 2 rows over 2, 6 columns over 2
  EXPECT_EQ(e->chosen, 24);
  EXPECT_EQ(e->outputs[0].nd_sbp, Nd("(B, B)"));
}

TEST(InferNdTest, SizeOneAxisBehavesLikeOneD) {
  // Hierarchy [1,2]: the size-1 axis only lists all-B, so the 8 candidates are add's
  // 1-d list on axis 1 and the seed example resolves as on [0,1]: candidate 0, y
  // S1->S0 costs T(n-1)/n = 32/2 = 16, out (B, S(0)).
  InferResult r = MustInfer(
      "add", {Meta({2, 4}, "cpu:[[0,1]]", "(B, S(0))"), Meta({2, 4}, "cpu:[[0,1]]", "(B, S(1))")});
  EXPECT_EQ(r.num_candidates, 8);
  EXPECT_EQ(r.signature_index, 0);
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("(B, S(0))"));
  EXPECT_EQ(r.total_cost, 16);
  // A non-B label on the size-1 axis is only a relabel: no data moves for x.
  r = MustInfer(
      "add", {Meta({2, 4}, "cpu:[[0,1]]", "(P, S(0))"), Meta({2, 4}, "cpu:[[0,1]]", "(B, S(1))")});
  EXPECT_EQ(r.input_nd_sbps[0], Nd("(B, S(0))"));
  EXPECT_EQ(r.needs_boxing, (std::vector<bool>{false, true}));
  EXPECT_EQ(r.total_cost, 16);
}

TEST(InferNdTest, OneRankTwoAxes) {
  InferResult r = MustInfer("relu", {Meta({2, 6}, "cpu:[[3]]", "(S(0), P)")});
  EXPECT_EQ(r.signature_index, -1);
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("(B, B)"));
  EXPECT_EQ(r.input_nd_sbps[0], Nd("(S(0), P)"));
}

TEST(InferNdTest, ReshapeUsesTheWholePlacementForEvenness) {
  // [6,4] -> [24] on 2x2: 6 is not divisible by the 4 ranks in all, so reshape lists
  // no split per axis: only the partial and B products remain, and a (B,B) input
  // stays (B,B).
  InferResult r =
      MustInfer("reshape", {Meta({6, 4}, k2x2, "(B, B)")}, {{"shape", op::AttrValue::Ints({24})}});
  EXPECT_EQ(r.num_candidates, 16);  // 4 x 4: P, P(max), P(min), B per axis
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("(B, B)"));
  // [8,4] -> [32]: 8 and 32 divide by 4, so S(0) -> S(0) is listed and a (S0,S0)
  // input keeps its layout.
  r = MustInfer("reshape", {Meta({8, 4}, k2x2, "(S(0), S(0))")},
                {{"shape", op::AttrValue::Ints({32})}});
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("(S(0), S(0))"));
  EXPECT_EQ(r.total_cost, 0);
}

}  // namespace
}  // namespace infer
}  // namespace tessera
