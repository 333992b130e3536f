// Shapes, signatures and bad inputs of the backward-only ops (grad_ops.cc,
// scatter_grad_ops.cc).
#include <gtest/gtest.h>

#include "core/op/op_test_util.h"

namespace tessera {
namespace op {
namespace {

using Strings = std::vector<std::string>;

TEST(GradOpsTest, ElementwisePairs) {
  const auto in = Descs({{2, 3}, {2, 3}});
  for (const char* op : {"relu_grad", "gelu_grad", "equal_mask", "xlogy"}) {
    auto r = InferShapes(op, in);
    ASSERT_TRUE(r.ok()) << op << ": " << r.status().ToString();
    EXPECT_EQ((*r)[0].shape, Shape({2, 3})) << op;
  }
  EXPECT_EQ(Sigs("gelu_grad", in),
            (Strings{"x:S(0), dy:S(0) -> dx:S(0)", "x:S(1), dy:S(1) -> dx:S(1)",
                     "x:B, dy:P -> dx:P", "x:B, dy:B -> dx:B"}));
  EXPECT_EQ(Sigs("equal_mask", in), (Strings{"x:S(0), y:S(0) -> out:S(0)",
                                             "x:S(1), y:S(1) -> out:S(1)", "x:B, y:B -> out:B"}));
  EXPECT_EQ(Sigs("xlogy", in), (Strings{"x:S(0), y:S(0) -> out:S(0)", "x:S(1), y:S(1) -> out:S(1)",
                                        "x:P, y:B -> out:P", "x:B, y:B -> out:B"}));
  EXPECT_EQ(ShapeError("equal_mask", Descs({{2, 3}, {3}})),
            "equal_mask: input \"y\" has shape [3] but \"x\" has [2,3]");
  EXPECT_EQ(ShapeError("gelu_grad", Descs({{2}, {2}}, DType::kI32)),
            "gelu_grad: input \"x\" has dtype i32; expected a floating type (f32, f64, f16, bf16)");
  EXPECT_EQ(ShapeError("xlogy", {{{2}, DType::kF32}, {{2}, DType::kF64}}),
            "xlogy: input \"y\" has dtype f64 but \"x\" has f32");
}

TEST(GradOpsTest, GatherGrad) {
  const std::vector<TensorDesc> in = {{{5, 2, 3, 4}, DType::kF32}, {{2, 3}, DType::kI64}};
  const AttrMap attrs{{"axis", AttrValue::Int(1)}, {"size", AttrValue::Int(7)}};
  auto r = InferShapes("gather_grad", in, attrs);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape, Shape({5, 7, 4}));
  EXPECT_EQ(Sigs("gather_grad", in, attrs),
            (Strings{"dout:S(1), indices:S(0) -> dx:P", "dout:S(2), indices:S(1) -> dx:P",
                     "dout:S(0), indices:B -> dx:S(0)", "dout:S(3), indices:B -> dx:S(2)",
                     "dout:P, indices:B -> dx:P", "dout:B, indices:B -> dx:B"}));
  EXPECT_EQ(
      ShapeError("gather_grad", in, {{"axis", AttrValue::Int(3)}, {"size", AttrValue::Int(7)}}),
      "gather_grad: attribute \"axis\" 3 with input \"indices\" [2,3] does not fit input "
      "\"dout\" [5,2,3,4]");
  EXPECT_EQ(
      ShapeError("gather_grad", in, {{"axis", AttrValue::Int(0)}, {"size", AttrValue::Int(7)}}),
      "gather_grad: input \"dout\" has shape [5,2,3,4] but \"indices\" [2,3] at axis 0 needs "
      "dim 2 at axis 0");
  EXPECT_EQ(
      ShapeError("gather_grad", in, {{"axis", AttrValue::Int(1)}, {"size", AttrValue::Int(-1)}}),
      "gather_grad: attribute \"size\" is -1; needs >= 0");
  EXPECT_EQ(ShapeError("gather_grad", Descs({{2, 3}, {3}}), attrs),
            "gather_grad: input \"indices\" has dtype f32; expected i32 or i64");
}

TEST(GradOpsTest, SliceGrad) {
  const auto in = Descs({{2, 3}});
  const AttrMap attrs{{"shape", AttrValue::Ints({5, -1})},
                      {"start", AttrValue::Ints({1, 0})},
                      {"step", AttrValue::Ints({3, 1})}};
  auto r = InferShapes("slice_grad", in, attrs);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape, Shape({5, 3}));
  // Only the axis taken whole (-1) keeps a split.
  EXPECT_EQ(Sigs("slice_grad", in, attrs),
            (Strings{"dout:S(1) -> dx:S(1)", "dout:P -> dx:P", "dout:B -> dx:B"}));
  // Position 2 + (2 - 1) * 3 = 5 is outside an axis of 5.
  EXPECT_EQ(ShapeError("slice_grad", in,
                       {{"shape", AttrValue::Ints({5, -1})},
                        {"start", AttrValue::Ints({2, 0})},
                        {"step", AttrValue::Ints({3, 1})}}),
            "slice_grad: input \"dout\" [2,3] does not fit attribute \"shape\" [5,-1] at axis 0 "
            "with start 2 and step 3");
  EXPECT_EQ(ShapeError("slice_grad", in,
                       {{"shape", AttrValue::Ints({5, -1})},
                        {"start", AttrValue::Ints({1, 1})},
                        {"step", AttrValue::Ints({3, 1})}}),
            "slice_grad: input \"dout\" [2,3] does not fit attribute \"shape\" [5,-1] at axis 1 "
            "with start 1 and step 1");
  EXPECT_EQ(
      ShapeError("slice_grad", in,
                 {{"shape", AttrValue::Ints({5})},
                  {"start", AttrValue::Ints({1, 0})},
                  {"step", AttrValue::Ints({3, 1})}}),
      "slice_grad: attribute \"shape\" [5] has 1 entries but input \"dout\" [2,3] has 2 axes");
}

TEST(GradOpsTest, SparseSoftmaxCrossEntropyGrad) {
  const std::vector<TensorDesc> in = {
      {{4, 5}, DType::kF32}, {{4}, DType::kI32}, {{4}, DType::kF32}};
  EXPECT_EQ(Sigs("sparse_softmax_cross_entropy_grad", in),
            (Strings{"prob:S(0), label:S(0), dout:S(0) -> dx:S(0)",
                     "prob:B, label:B, dout:P -> dx:P", "prob:B, label:B, dout:B -> dx:B"}));
  EXPECT_EQ(ShapeError("sparse_softmax_cross_entropy_grad",
                       {{{4, 5}, DType::kF32}, {{4}, DType::kI32}, {{3}, DType::kF32}}),
            "sparse_softmax_cross_entropy_grad: input \"dout\" has shape [3] but \"prob\" [4,5] "
            "needs [4] (all but the class axis)");
}

}  // namespace
}  // namespace op
}  // namespace tessera
