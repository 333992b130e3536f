// Shapes, signatures and attribute checks of sgd_update, adam_update and
// adam_update_at_step (the values are tested against PyTorch's formulas in
// kernels/cpu/optim_test.cc).
#include <gtest/gtest.h>

#include "core/op/op_test_util.h"

namespace tessera {
namespace op {
namespace {

using Strings = std::vector<std::string>;

TEST(SgdUpdateTest, ShapesAndSignatures) {
  const auto in = Descs({{4, 3}, {4, 3}, {4, 3}});
  auto r = InferShapes("sgd_update", in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].shape, Shape({4, 3}));
  EXPECT_EQ((*r)[1].shape, Shape({4, 3}));
  // Splits on either axis and all-B; never a partial gradient.
  EXPECT_EQ(Sigs("sgd_update", in),
            (Strings{"param:S(0), grad:S(0), momentum_buf:S(0) -> new_param:S(0), "
                     "new_momentum_buf:S(0)",
                     "param:S(1), grad:S(1), momentum_buf:S(1) -> new_param:S(1), "
                     "new_momentum_buf:S(1)",
                     "param:B, grad:B, momentum_buf:B -> new_param:B, new_momentum_buf:B"}));
}

TEST(AdamUpdateTest, ShapesAndSignatures) {
  const auto in = Descs({{5}, {5}, {5}, {5}}, DType::kF64);
  auto r = InferShapes("adam_update", in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 3u);
  for (const TensorDesc& d : *r) {
    EXPECT_EQ(d.shape, Shape({5}));
    EXPECT_EQ(d.dtype, DType::kF64);
  }
  EXPECT_EQ(Sigs("adam_update", in),
            (Strings{"param:S(0), grad:S(0), exp_avg:S(0), exp_avg_sq:S(0) -> new_param:S(0), "
                     "new_exp_avg:S(0), new_exp_avg_sq:S(0)",
                     "param:B, grad:B, exp_avg:B, exp_avg_sq:B -> new_param:B, new_exp_avg:B, "
                     "new_exp_avg_sq:B"}));
}

// adam_update's signatures, with the step number broadcast to every rank.
TEST(AdamUpdateAtStepTest, ShapesAndSignatures) {
  std::vector<TensorDesc> in = Descs({{2, 3}, {2, 3}, {2, 3}, {2, 3}});
  in.push_back({Shape{}, DType::kI64});
  auto r = InferShapes("adam_update_at_step", in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 3u);
  for (const TensorDesc& d : *r) {
    EXPECT_EQ(d.shape, Shape({2, 3}));
    EXPECT_EQ(d.dtype, DType::kF32);
  }
  EXPECT_EQ(Sigs("adam_update_at_step", in),
            (Strings{"param:S(0), grad:S(0), exp_avg:S(0), exp_avg_sq:S(0), step:B -> "
                     "new_param:S(0), new_exp_avg:S(0), new_exp_avg_sq:S(0)",
                     "param:S(1), grad:S(1), exp_avg:S(1), exp_avg_sq:S(1), step:B -> "
                     "new_param:S(1), new_exp_avg:S(1), new_exp_avg_sq:S(1)",
                     "param:B, grad:B, exp_avg:B, exp_avg_sq:B, step:B -> new_param:B, "
                     "new_exp_avg:B, new_exp_avg_sq:B"}));
}

TEST(AdamUpdateAtStepTest, BadInputsNameTheArgument) {
  std::vector<TensorDesc> in = Descs({{4}, {4}, {4}, {4}});
  in.push_back({Shape{}, DType::kI32});
  EXPECT_EQ(ShapeError("adam_update_at_step", in),
            "adam_update_at_step: input \"step\" is i32 []; expected an i64 scalar (shape [])");
  in.back() = {Shape{1}, DType::kI64};
  EXPECT_EQ(ShapeError("adam_update_at_step", in),
            "adam_update_at_step: input \"step\" is i64 [1]; expected an i64 scalar (shape [])");
  in.back() = {Shape{}, DType::kI64};
  in[3] = {Shape{5}, DType::kF32};
  EXPECT_EQ(ShapeError("adam_update_at_step", in),
            "adam_update_at_step: input \"exp_avg_sq\" has shape [5] but \"param\" has [4]");
  in[3] = {Shape{4}, DType::kF32};
  EXPECT_EQ(ShapeError("adam_update_at_step", in, {{"beta1", AttrValue::Float(1)}}),
            "adam_update_at_step: attribute \"beta1\" is 1; expected a value in [0, 1)");
  EXPECT_EQ(ShapeError("adam_update_at_step", in, {{"lr", AttrValue::Float(-1)}}),
            "adam_update_at_step: attribute \"lr\" is -1; expected a finite value >= 0");
}

TEST(OptimUpdateTest, BadInputsNameTheArgument) {
  EXPECT_EQ(ShapeError("sgd_update", Descs({{4}, {5}, {4}})),
            "sgd_update: input \"grad\" has shape [5] but \"param\" has [4]");
  EXPECT_EQ(ShapeError("sgd_update", {{{4}, DType::kF32}, {{4}, DType::kF32}, {{4}, DType::kF64}}),
            "sgd_update: input \"momentum_buf\" has dtype f64 but \"param\" has f32");
  EXPECT_EQ(
      ShapeError("adam_update", Descs({{4}, {4}, {4}, {4}}, DType::kI32)),
      "adam_update: input \"param\" has dtype i32; expected a floating type (f32, f64, f16, bf16)");
}

TEST(OptimUpdateTest, BadAttributesNameTheAttributeAndValue) {
  const auto sgd = Descs({{4}, {4}, {4}});
  EXPECT_EQ(ShapeError("sgd_update", sgd, {{"lr", AttrValue::Float(-0.5)}}),
            "sgd_update: attribute \"lr\" is -0.5; expected a finite value >= 0");
  EXPECT_EQ(ShapeError("sgd_update", sgd, {{"momentum", AttrValue::Float(-1)}}),
            "sgd_update: attribute \"momentum\" is -1; expected a finite value >= 0");
  EXPECT_EQ(ShapeError("sgd_update", sgd, {{"nesterov", AttrValue::Bool(true)}}),
            "sgd_update: attribute \"nesterov\" is true with momentum 0 and dampening 0; "
            "Nesterov momentum needs momentum > 0 and dampening 0");
  const auto adam = Descs({{4}, {4}, {4}, {4}});
  EXPECT_EQ(ShapeError("adam_update", adam, {{"beta1", AttrValue::Float(1)}}),
            "adam_update: attribute \"beta1\" is 1; expected a value in [0, 1)");
  EXPECT_EQ(ShapeError("adam_update", adam, {{"beta2", AttrValue::Float(-0.1)}}),
            "adam_update: attribute \"beta2\" is -0.1; expected a value in [0, 1)");
  EXPECT_EQ(ShapeError("adam_update", adam, {{"eps", AttrValue::Float(-1e-8)}}),
            "adam_update: attribute \"eps\" is -1e-08; expected a finite value >= 0");
  EXPECT_EQ(ShapeError("adam_update", adam, {{"step", AttrValue::Int(0)}}),
            "adam_update: attribute \"step\" is 0; expected >= 1 (the number of this step, "
            "counting from 1)");
}

}  // namespace
}  // namespace op
}  // namespace tessera
