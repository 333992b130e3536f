// Inference on 1-d placements. Expected choices are derived in the comments from the
// cost table in cost_model.h; f32 tensors, so T = 4 * elements.
#include <gtest/gtest.h>

#include "core/infer/explain.h"
#include "core/infer/infer.h"
#include "core/infer/infer_test_util.h"

namespace tessera {
namespace infer {
namespace {

InferResult MustInfer(const char* op, const std::vector<TensorMeta>& in,
                      const op::AttrMap& attrs = {}, const std::vector<SbpConstraint>& cons = {}) {
  Result<InferResult> r = InferSignature(Op(op), in, attrs, cons);
  EXPECT_TRUE(r.ok()) << op << ": " << r.status().ToString();
  return r.ok() ? *r : InferResult{};
}

Explanation MustExplain(const char* op, const std::vector<TensorMeta>& in,
                        const op::AttrMap& attrs = {}) {
  Result<Explanation> r = Explain(Op(op), in, attrs);
  EXPECT_TRUE(r.ok()) << op << ": " << r.status().ToString();
  return r.ok() ? *r : Explanation{};
}

// The seed (000_*.txt): t1 S(0) + t2 S(1) on two ranks gives S(0).
TEST(Infer1dTest, SeedExampleSplitPlusSplit) {
  // T = 2*4*4 = 32. add's list: #0 (S0,S0)->S0, #1 (S1,S1)->S1, #2 (P,P)->P,
  // #3-#6 partial max/min with B, #7 (B,B)->B.
  // #0: t2 S1->S0 = T(n-1)/n = 16, one input matches. #1: t1 S0->S1 = 16, one
  // matches. #7: S->B twice = 2T = 64. #2..#6 pay penalties. #0 and #1 tie on cost
  // and matches; #0 is declared first.
  InferResult r =
      MustInfer("add", {Meta({2, 4}, "cpu:[0,1]", "S(0)"), Meta({2, 4}, "cpu:[0,1]", "S(1)")});
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("S(0)"));
  EXPECT_EQ(r.outputs[0].shape, Shape({2, 4}));
  EXPECT_EQ(r.outputs[0].placement, *Placement::Parse("cpu:[0,1]"));
  EXPECT_EQ(r.input_nd_sbps, (std::vector<NdSbp>{Nd("S(0)"), Nd("S(0)")}));
  EXPECT_EQ(r.needs_boxing, (std::vector<bool>{false, true}));
  EXPECT_EQ(r.total_cost, 16);
  EXPECT_EQ(r.signature_index, 0);
  EXPECT_EQ(r.num_candidates, 8);
}

// The matmul table of 001_*.txt: inputs already laid out as a signature select it,
// with no boxing (cost 0 and both inputs matching beat every other candidate).
TEST(Infer1dTest, MatmulTable) {
  struct Case {
    const char *a, *b, *out;
    int index;
  } cases[] = {
      {"S(0)", "B", "S(0)", 0}, {"B", "S(1)", "S(1)", 1}, {"S(1)", "S(0)", "P", 2},
      {"P", "B", "P", 3},       {"B", "P", "P", 4},       {"B", "B", "B", 5},
  };
  for (const Case& c : cases) {
    InferResult r =
        MustInfer("matmul", {Meta({4, 6}, "cpu:[0,1]", c.a), Meta({6, 8}, "cpu:[0,1]", c.b)});
    EXPECT_EQ(r.outputs[0].nd_sbp, Nd(c.out)) << c.a << " x " << c.b;
    EXPECT_EQ(r.signature_index, c.index) << c.a << " x " << c.b;
    EXPECT_EQ(r.total_cost, 0) << c.a << " x " << c.b;
    EXPECT_EQ(r.outputs[0].shape, Shape({4, 8}));
  }
}

// Where Tessera's cost-first rule and OneFlow's order-value rule disagree.
TEST(Infer1dTest, SplitPlusBroadcastPicksSplitNotBroadcast) {
  // x S(0), y B, [4,6], T = 96.
  // Tessera: #0 (S0,S0) costs 0 (y slices its own copy: B->S is local), one match;
  // #7 (B,B) costs x S0->B = 96. -> S(0), nothing moves.
  // OneFlow: order values #0 = -10 (x matches), #7 = -10 (y matches); its copy cost
  // charges #0 INT32_MAX for the broadcast producer y and #7 only T for x -> B: it
  // all-gathers x although a free local slice of y would do.
  auto in =
      std::vector<TensorMeta>{Meta({4, 6}, "cpu:[0,1]", "S(0)"), Meta({4, 6}, "cpu:[0,1]", "B")};
  InferResult r = MustInfer("add", in);
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("S(0)"));
  EXPECT_EQ(r.total_cost, 0);
  EXPECT_EQ(r.needs_boxing, (std::vector<bool>{false, true}));
  Explanation e = MustExplain("add", in);
  EXPECT_EQ(e.chosen, 0);
  EXPECT_EQ(e.oneflow_choice, 7);
  EXPECT_EQ(e.candidates[0].order_value, -10);
  EXPECT_EQ(e.candidates[7].order_value, -10);
  EXPECT_EQ(e.candidates[7].cost, 96);
}

TEST(Infer1dTest, MatmulBroadcastTimesRowSplit) {
  // OneFlow issue #9942: a [3,5] B, b [5,4] S(0) on 2 ranks; T_a = 60, T_b = 80.
  // Tessera: #0 (S0,B) b S0->B 80; #1 (B,S1) b S0->S1 40; #2 (S1,S0) a B->S1 0 and b
  // matches: 0; #3/#4 penalties; #5 (B,B) 80. -> #2, out P: nothing moves now.
  // OneFlow: -10 for #1, #2, #4, #5; its costs #1 = T_b, #2 = INT32_MAX (a is a B
  // producer), #4 = INT64_MAX (P consumer), #5 = T_b -> #1 (B,S1), out S(1).
  auto in =
      std::vector<TensorMeta>{Meta({3, 5}, "cpu:[0,1]", "B"), Meta({5, 4}, "cpu:[0,1]", "S(0)")};
  InferResult r = MustInfer("matmul", in);
  EXPECT_EQ(r.signature_index, 2);
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("P"));
  EXPECT_EQ(r.input_nd_sbps, (std::vector<NdSbp>{Nd("S(1)"), Nd("S(0)")}));
  Explanation e = MustExplain("matmul", in);
  EXPECT_EQ(e.oneflow_choice, 1);
  EXPECT_EQ(e.candidates[1].cost, 40);
  EXPECT_EQ(e.candidates[5].cost, 80);
}

TEST(Infer1dTest, MatmulColumnSplitTimesBroadcast) {
  // a [4,6] S(1), b [6,3] B; T_a = 96. Tessera: #2 (S1,S0) costs 0 (b slices
  // locally) -> P. OneFlow: -10 for #0 (b), #2 (a), #3 (b), #5 (b); costs #0 = T_a
  // (a S1->S0), #2 = INT32_MAX, #3 = INT64_MAX, #5 = T_a -> #0, moving a.
  auto in =
      std::vector<TensorMeta>{Meta({4, 6}, "cpu:[0,1]", "S(1)"), Meta({6, 3}, "cpu:[0,1]", "B")};
  Explanation e = MustExplain("matmul", in);
  EXPECT_EQ(e.chosen, 2);
  EXPECT_EQ(e.oneflow_choice, 0);
  EXPECT_EQ(e.candidates[0].cost, 48);  // a S1->S0 = T(n-1)/n
}

TEST(Infer1dTest, AgreesWithOneFlowOnPartialRelu) {
  // relu(P) [4,6], T = 96: #0 S0 and #1 S1 cost P->S = 96; P(max)/P(min) cost
  // 2T + penalty; B costs 2T = 192. -> S(0), as OneFlow (reduce-scatter).
  auto in = std::vector<TensorMeta>{Meta({4, 6}, "cpu:[0,1]", "P")};
  InferResult r = MustInfer("relu", in);
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("S(0)"));
  EXPECT_EQ(r.total_cost, 96);
  EXPECT_EQ(MustExplain("relu", in).oneflow_choice, 0);
}

TEST(Infer1dTest, MatchingCountBreaksCostTies) {
  // Both inputs B: every split candidate is free (local slices), but (B,B) matches
  // both inputs, so it wins over the earlier-declared (S0,S0).
  InferResult r =
      MustInfer("add", {Meta({4, 6}, "cpu:[0,1]", "B"), Meta({4, 6}, "cpu:[0,1]", "B")});
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("B"));
  EXPECT_EQ(r.signature_index, 7);
}

TEST(Infer1dTest, ReductionsOverASplitAxis) {
  // x [4,6] S(1), reducing axis 1. reduce_sum: #1 S1->P costs 0 and matches -> P.
  op::AttrMap axes{{"axes", op::AttrValue::Ints({1})}};
  auto in = std::vector<TensorMeta>{Meta({4, 6}, "cpu:[0,1]", "S(1)")};
  EXPECT_EQ(MustInfer("reduce_sum", in, axes).outputs[0].nd_sbp, Nd("P"));
  // reduce_max: #1 S1->P(max) costs 0 -> P(max) (OneFlow would box S1->S0 instead).
  EXPECT_EQ(MustInfer("reduce_max", in, axes).outputs[0].nd_sbp, Nd("P(max)"));
  // reduce_mean lacks S1->P: #0 S0 costs S1->S0 = 48 < B's 96 -> S(0).
  InferResult mean = MustInfer("reduce_mean", in, axes);
  EXPECT_EQ(mean.outputs[0].nd_sbp, Nd("S(0)"));
  EXPECT_EQ(mean.total_cost, 48);
  // maximum of two P(max) stays P(max).
  EXPECT_EQ(
      MustInfer("maximum", {Meta({4}, "cpu:[0,1]", "P(max)"), Meta({4}, "cpu:[0,1]", "P(max)")})
          .outputs[0]
          .nd_sbp,
      Nd("P(max)"));
  // scalar_mul by -2 turns P(max) into P(min) for free.
  EXPECT_EQ(MustInfer("scalar_mul", {Meta({4}, "cpu:[0,1]", "P(max)")},
                      {{"value", op::AttrValue::Float(-2)}})
                .outputs[0]
                .nd_sbp,
            Nd("P(min)"));
}

TEST(Infer1dTest, SmallAxesAreFilteredUnevenOnesKept) {
  // 2 rows on 3 ranks: S(0) is dropped (2 < 3); x is S(1), which matches.
  Explanation e = MustExplain("relu", {Meta({2, 6}, "cpu:[0,1,2]", "S(1)")});
  ASSERT_EQ(e.candidates.size(), 5u);
  EXPECT_TRUE(e.candidates[0].filtered);
  EXPECT_EQ(e.candidates[0].filter_reason,
            "input \"x\": S(0) splits axis 0 of shape [2,6] (2 elements) over 3 ranks on placement "
            "axis 0");
  EXPECT_EQ(e.chosen, 1);
  // 3 rows on 2 ranks: uneven (2 + 1) is fine.
  InferResult r = MustInfer("relu", {Meta({3, 6}, "cpu:[0,1]", "S(0)")});
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("S(0)"));
}

TEST(Infer1dTest, ConstraintsAreHonoured) {
  auto in =
      std::vector<TensorMeta>{Meta({2, 4}, "cpu:[0,1]", "S(0)"), Meta({2, 4}, "cpu:[0,1]", "S(1)")};
  // Output pinned to S(1): only #1 (S1,S1) qualifies.
  InferResult r = MustInfer("add", in, {}, {{true, 0, Nd("S(1)")}});
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("S(1)"));
  EXPECT_EQ(r.input_nd_sbps, (std::vector<NdSbp>{Nd("S(1)"), Nd("S(1)")}));
  // Input y pinned to B: (P(max),B), (P(min),B) pay a penalty on x; (B,B) costs x
  // S0->B = 32 -> (B,B).
  r = MustInfer("add", in, {}, {{false, 1, Nd("B")}});
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("B"));
  EXPECT_EQ(r.total_cost, 32 + 32);  // x S0->B = 32, y S1->B = 32
  // With constraints OneFlow's order value is 0 for every candidate.
  Result<Explanation> e = Explain(Op("add"), in, {}, {{false, 1, Nd("B")}});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->candidates[7].order_value, 0);
}

TEST(Infer1dTest, NoSignatureFitsListsCandidatesAndInputs) {
  // softmax over the last axis can only be S(0) or B; pinning the output to S(1)
  // leaves nothing.
  Result<InferResult> r = InferSignature(Op("softmax"), {Meta({4, 6}, "cpu:[0,1]", "S(1)")}, {},
                                         {{true, 0, Nd("S(1)")}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "softmax: no SBP signature fits the inputs x: S(1) [4,6] on cpu:[0,1] with "
            "constraints out = S(1); candidates:\n"
            "  #0 x:S(0) -> out:S(0): output \"out\" is constrained to S(1)\n"
            "  #1 x:B -> out:B: output \"out\" is constrained to S(1)");
  // Explain reports the same failure as data.
  Result<Explanation> e =
      Explain(Op("softmax"), {Meta({4, 6}, "cpu:[0,1]", "S(1)")}, {}, {{true, 0, Nd("S(1)")}});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->failure, r.status().message());
  EXPECT_EQ(e->chosen, -1);
}

TEST(Infer1dTest, InputErrors) {
  // Mixed placements name both.
  Result<InferResult> r = InferSignature(
      Op("add"), {Meta({4}, "cpu:[0,1]", "S(0)"), Meta({4}, "cpu:[2,3]", "S(0)")}, {});
  EXPECT_EQ(r.status().message(),
            "add: input \"y\" is on placement cpu:[2,3] but input \"x\" is on cpu:[0,1]; inputs "
            "must share one placement (move one there with to_global)");
  // An nd-sbp that does not fit the tensor.
  TensorMeta bad = Meta({4}, "cpu:[0,1]", "B");
  bad.nd_sbp = Nd("S(1)");
  r = InferSignature(Op("relu"), {bad}, {});
  EXPECT_EQ(r.status().message(),
            "relu: input \"x\": nd-sbp S(1) splits tensor axis 1 but the tensor of shape [4] has 1 "
            "axes");
  // Shape errors come through unchanged.
  r = InferSignature(Op("matmul"), {Meta({2, 4}, "cpu:[0,1]", "B"), Meta({5, 3}, "cpu:[0,1]", "B")},
                     {});
  EXPECT_EQ(r.status().message(),
            "matmul: input \"b\" has shape [5,3] with 5 rows but \"a\" has 4 columns");
  // Constraint errors.
  r = InferSignature(Op("relu"), {Meta({4}, "cpu:[0,1]", "B")}, {}, {{false, 3, Nd("B")}});
  EXPECT_EQ(r.status().message(), "relu: constraint names input slot 3 but the op has 1 inputs");
  r = InferSignature(Op("relu"), {Meta({4}, "cpu:[0,1]", "B")}, {}, {{true, 0, Nd("(B, B)")}});
  EXPECT_EQ(r.status().message(),
            "relu: constraint on output \"out\": nd-sbp (B, B) has 2 axes but placement cpu:[0,1] "
            "has a 1-axis hierarchy");
}

TEST(Infer1dTest, OneRankIsSymbolic) {
  InferResult r = MustInfer("add", {Meta({4, 6}, "cpu:[0]", "S(0)"), Meta({4, 6}, "cpu:[0]", "P")});
  EXPECT_EQ(r.signature_index, -1);
  EXPECT_EQ(r.input_nd_sbps, (std::vector<NdSbp>{Nd("S(0)"), Nd("P")}));
  EXPECT_EQ(r.needs_boxing, (std::vector<bool>{false, false}));
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("B"));
  EXPECT_EQ(r.total_cost, 0);
  // A constraint relabels, still without boxing.
  r = MustInfer("add", {Meta({4, 6}, "cpu:[0]", "S(0)"), Meta({4, 6}, "cpu:[0]", "P")}, {},
                {{true, 0, Nd("S(1)")}});
  EXPECT_EQ(r.outputs[0].nd_sbp, Nd("S(1)"));
}

}  // namespace
}  // namespace infer
}  // namespace tessera
