#include "core/infer/op_call.h"

#include <gtest/gtest.h>

#include "core/infer/infer_test_util.h"

namespace tessera {
namespace infer {
namespace {

Placement P(const char* text) { return *Placement::Parse(text); }

TEST(OpCallTest, UnknownOpSuggestsNames) {
  Result<OpCall> call = OpCall::Make("matmull");
  EXPECT_EQ(call.status().code(), StatusCode::kNotFound);
  EXPECT_NE(call.status().message().find("no op named \"matmull\""), std::string::npos);
  EXPECT_NE(call.status().message().find("matmul"), std::string::npos) << call.status().message();
}

TEST(OpCallTest, BuildsAndInfersTheSeedExample) {
  Result<OpCall> call = OpCall::Make("add");
  ASSERT_TRUE(call.ok());
  ASSERT_TRUE(call->AddInput({4, 6}, 0, P("cpu:[0,1]"), Nd("S(0)")).ok());
  ASSERT_TRUE(call->AddInput({4, 6}, 0, P("cpu:[0,1]"), Nd("S(1)")).ok());
  InferCache cache;
  Result<std::shared_ptr<const InferResult>> r = call->Infer(&cache);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->outputs[0].nd_sbp, Nd("S(0)"));
  EXPECT_EQ((*r)->input_nd_sbps[1], Nd("S(0)"));
  EXPECT_EQ((*r)->needs_boxing, (std::vector<bool>{false, true}));
  EXPECT_TRUE(call->Infer(&cache).ok());
  EXPECT_EQ(cache.stats().misses, 1u);
  EXPECT_EQ(cache.stats().hits, 1u);
  Result<Explanation> e = call->Explain();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->chosen, 0);
}

TEST(OpCallTest, ChecksAttrsAsTheyAreSet) {
  OpCall call = *OpCall::Make("matmul");
  EXPECT_TRUE(call.SetAttr("transpose_b", op::AttrValue::Bool(true)).ok());
  EXPECT_EQ(call.SetAttr("transpose_b", op::AttrValue::Int(1)).message(),
            "matmul: attribute \"transpose_b\" must be bool but got int 1");
  EXPECT_EQ(call.SetAttr("alpha", op::AttrValue::Float(1)).message(),
            "matmul: unknown attribute \"alpha\"; known attributes: transpose_a, transpose_b");
  EXPECT_EQ(call.attrs().ToString(), "{transpose_b=true}");
}

TEST(OpCallTest, ChecksInputsAsTheyAreAdded) {
  OpCall call = *OpCall::Make("matmul");
  EXPECT_EQ(call.AddInput({4, -1}, 0, P("cpu:[0,1]"), Nd("B")).message(),
            "matmul: input \"a\": shape dim 1 is -1; dims must be >= 0");
  EXPECT_EQ(call.AddInput({4, 2}, 9, P("cpu:[0,1]"), Nd("B")).message(),
            "matmul: input \"a\": dtype value 9 is not a known dtype (f32 0, f64 1, i32 2, i64 3, "
            "f16 4, bf16 5, bool 6)");
  Status bad_sbp = call.AddInput({4, 2}, 0, P("cpu:[0,1]"), Nd("S(2)"));
  EXPECT_EQ(bad_sbp.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad_sbp.message().rfind("matmul: input \"a\": ", 0), 0u) << bad_sbp.message();
  ASSERT_TRUE(call.AddInput({4, 2}, 0, P("cpu:[0,1]"), Nd("B")).ok());
  EXPECT_EQ(call.AddInput({2, 3}, 0, P("cpu:[0,1,2]"), Nd("B")).message(),
            "matmul: input \"b\" is on placement cpu:[0,1,2] but input \"a\" is on cpu:[0,1]; "
            "inputs must share one placement (move one there with to_global)");
  ASSERT_TRUE(call.AddInput({2, 3}, 0, P("cpu:[0,1]"), Nd("B")).ok());
  EXPECT_EQ(call.AddInput({2, 3}, 0, P("cpu:[0,1]"), Nd("B")).message(),
            "matmul: takes at most 2 inputs (matmul(a, b) -> (out); attrs: transpose_a: bool = "
            "false, transpose_b: bool = false); cannot add input 3");
}

TEST(OpCallTest, LabelsRepeatedInputs) {
  OpCall add_n = *OpCall::Make("add_n");
  EXPECT_EQ(add_n.MaxInputs(), -1);
  EXPECT_EQ(add_n.InputLabel(3), "input \"in\" #3");
  OpCall matmul = *OpCall::Make("matmul");
  EXPECT_EQ(matmul.InputLabel(1), "input \"b\"");
  EXPECT_EQ(matmul.InputLabel(5), "input #5");
}

TEST(OpCallTest, ConstraintsReplaceAndCheckSlots) {
  OpCall call = *OpCall::Make("relu");
  EXPECT_TRUE(call.Constrain(false, 0, Nd("S(0)")).ok());
  EXPECT_TRUE(call.Constrain(false, 0, Nd("B")).ok());
  ASSERT_EQ(call.constraints().size(), 1u);
  EXPECT_EQ(call.constraints()[0].nd_sbp, Nd("B"));
  EXPECT_EQ(call.Constrain(true, 1, Nd("B")).message(),
            "relu: constraint names output slot 1 but the op has 1 output (relu(x) -> (out))");
  EXPECT_EQ(call.Constrain(false, -1, Nd("B")).code(), StatusCode::kInvalidArgument);
}

TEST(OpCallTest, InferReportsMissingInputs) {
  OpCall call = *OpCall::Make("matmul");
  ASSERT_TRUE(call.AddInput({4, 2}, 0, P("cpu:[0,1]"), Nd("B")).ok());
  InferCache cache;
  EXPECT_EQ(call.Infer(&cache).status().message(), "matmul: takes 2 inputs but got 1");
}

}  // namespace
}  // namespace infer
}  // namespace tessera
