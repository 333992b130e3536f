#include <gtest/gtest.h>

#include "core/op/op_test_util.h"

namespace tessera {
namespace op {
namespace {

using Strings = std::vector<std::string>;

TEST(GatherTest, ShapesAndSignatures) {
  std::vector<TensorDesc> in = {{{5, 4}, DType::kF32}, {{3}, DType::kI64}};
  auto r = InferShapes("gather", in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape, Shape({3, 4}));
  EXPECT_EQ(Sigs("gather", in),
            (Strings{"params:B, indices:S(0) -> out:S(0)", "params:S(1), indices:B -> out:S(1)",
                     "params:P, indices:B -> out:P", "params:P(max), indices:B -> out:P(max)",
                     "params:P(min), indices:B -> out:P(min)", "params:B, indices:B -> out:B"}));
  // axis 1 with 2-d indices: out = [5] + [2,3] + [] ; index axes land at 1 and 2,
  // params axis 0 stays at 0.
  in = {{{5, 4}, DType::kF32}, {{2, 3}, DType::kI32}};
  r = InferShapes("gather", in, {{"axis", AttrValue::Int(1)}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].shape, Shape({5, 2, 3}));
  EXPECT_EQ(Sigs("gather", in, {{"axis", AttrValue::Int(1)}}),
            (Strings{"params:B, indices:S(0) -> out:S(1)", "params:B, indices:S(1) -> out:S(2)",
                     "params:S(0), indices:B -> out:S(0)", "params:P, indices:B -> out:P",
                     "params:P(max), indices:B -> out:P(max)",
                     "params:P(min), indices:B -> out:P(min)", "params:B, indices:B -> out:B"}));
  EXPECT_EQ(ShapeError("gather", Descs({{5, 4}, {3}})),
            "gather: input \"indices\" has dtype f32; expected i32 or i64");
  EXPECT_EQ(ShapeError("gather", in, {{"axis", AttrValue::Int(2)}}),
            "gather: attribute \"axis\" is 2 but input \"params\" has shape [5,4] (2 axes; valid "
            "axes are -2..1)");
}

TEST(EmbeddingTest, ShapesAndSignatures) {
  std::vector<TensorDesc> in = {{{10, 4}, DType::kF32}, {{2, 3}, DType::kI32}};
  auto r = InferShapes("embedding", in);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].shape, Shape({2, 3, 4}));
  EXPECT_EQ(Sigs("embedding", in),
            (Strings{"weight:B, indices:S(0) -> out:S(0)", "weight:B, indices:S(1) -> out:S(1)",
                     "weight:S(1), indices:B -> out:S(2)", "weight:P, indices:B -> out:P",
                     "weight:P(max), indices:B -> out:P(max)",
                     "weight:P(min), indices:B -> out:P(min)", "weight:B, indices:B -> out:B"}));
  EXPECT_EQ(ShapeError("embedding", {{{10}, DType::kF32}, {{3}, DType::kI32}}),
            "embedding: input \"weight\" has shape [10] (1 dims); expected 2 dims");
}

TEST(LayerNormTest, ShapesAndSignatures) {
  auto in = Descs({{2, 3, 4}, {4}, {4}});
  auto r = InferShapes("layer_norm", in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape, Shape({2, 3, 4}));
  EXPECT_EQ((*r)[1].shape, Shape({2, 3}));
  EXPECT_EQ((*r)[2].shape, Shape({2, 3}));
  EXPECT_EQ(Sigs("layer_norm", in),
            (Strings{"x:S(0), gamma:B, beta:B -> y:S(0), mean:S(0), inv_variance:S(0)",
                     "x:S(1), gamma:B, beta:B -> y:S(1), mean:S(1), inv_variance:S(1)",
                     "x:B, gamma:B, beta:B -> y:B, mean:B, inv_variance:B"}));
  // Parameters over axes 1.. and normalisation over axis 2: axis 1 splits gamma/beta.
  AttrMap a{{"begin_norm_axis", AttrValue::Int(2)}, {"begin_params_axis", AttrValue::Int(1)}};
  in = Descs({{2, 3, 4}, {3, 4}, {3, 4}});
  EXPECT_EQ(Sigs("layer_norm", in, a),
            (Strings{"x:S(0), gamma:B, beta:B -> y:S(0), mean:S(0), inv_variance:S(0)",
                     "x:S(1), gamma:S(0), beta:S(0) -> y:S(1), mean:S(1), inv_variance:S(1)",
                     "x:B, gamma:B, beta:B -> y:B, mean:B, inv_variance:B"}));
  EXPECT_EQ(ShapeError("layer_norm", Descs({{2, 3, 4}, {3}, {4}})),
            "layer_norm: input \"gamma\" has shape [3] but input \"x\" [2,3,4] with "
            "begin_params_axis 2 needs [4]");
}

TEST(BiasAddTest, ShapesAndSignatures) {
  auto in = Descs({{2, 3}, {3}});
  auto r = InferShapes("bias_add", in);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].shape, Shape({2, 3}));
  EXPECT_EQ(Sigs("bias_add", in), (Strings{"a:S(0), b:B -> out:S(0)", "a:S(1), b:S(0) -> out:S(1)",
                                           "a:P, b:P -> out:P", "a:P(max), b:B -> out:P(max)",
                                           "a:P(min), b:B -> out:P(min)", "a:B, b:B -> out:B"}));
  EXPECT_EQ(ShapeError("bias_add", Descs({{2, 3}, {4}})),
            "bias_add: input \"b\" has shape [4] but \"a\" [2,3] needs [3] (its axis 1)");
}

TEST(SparseSoftmaxCrossEntropyTest, ShapesAndSignatures) {
  std::vector<TensorDesc> in = {{{4, 10}, DType::kF32}, {{4}, DType::kI64}};
  auto r = InferShapes("sparse_softmax_cross_entropy", in);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].shape, Shape({4, 10}));
  EXPECT_EQ((*r)[1].shape, Shape({4}));
  EXPECT_EQ((*r)[1].dtype, DType::kF32);
  EXPECT_EQ(Sigs("sparse_softmax_cross_entropy", in),
            (Strings{"prediction:S(0), label:S(0) -> prob:S(0), out:S(0)",
                     "prediction:B, label:B -> prob:B, out:B"}));
  EXPECT_EQ(
      ShapeError("sparse_softmax_cross_entropy", {{{4, 10}, DType::kF32}, {{5}, DType::kI64}}),
      "sparse_softmax_cross_entropy: input \"label\" has shape [5] but \"prediction\" [4,10] "
      "needs [4] (all but the class axis)");
  EXPECT_EQ(ShapeError("sparse_softmax_cross_entropy", Descs({{4, 10}, {4}})),
            "sparse_softmax_cross_entropy: input \"label\" has dtype f32; expected i32 or i64");
}

}  // namespace
}  // namespace op
}  // namespace tessera
