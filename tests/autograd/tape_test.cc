// The tape's own behaviour (core/autograd): accumulation, no-grad scope, detach,
// retain_graph, root and op errors, hooks, diamond graphs, and the SBP of a weight's
// gradient, at 1 and 3 ranks. Expected gradients are worked out by hand in each test.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "core/autograd/backward.h"
#include "core/autograd/variable.h"
#include "core/comm/mpi_world.h"
#include "core/eager/interpreter.h"
#include "core/op/op_registry.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"
#include "tests/autograd/grad_check.h"

namespace tessera::autograd_test {
namespace {

using autograd::Variable;
using op::AttrValue;
using tensor::Tensor;

Tensor Make(const std::vector<double>& values, const Shape& shape, const std::string& sbp = "B") {
  return tensor::FromLogical(values.data(), shape, DType::kF64, WorldPlacement(), L(sbp)).value();
}

Variable Leaf(const std::vector<double>& values, const Shape& shape, const std::string& sbp = "B") {
  return autograd::MakeLeaf(Make(values, shape, sbp)).value();
}

std::vector<double> Host(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t->shape().num_elements()));
  EXPECT_TRUE(tensor::ToHost(t, out.data()).ok());
  return out;
}

Result<Variable> Call(const std::string& op, const std::vector<Variable>& inputs,
                      const op::AttrMap& attrs = {}) {
  TESS_ASSIGN_OR_RETURN(const op::OpDef* def, op::OpRegistry::Global().Find(op));
  std::vector<Variable> outs;
  TESS_RETURN_IF_ERROR(autograd::Apply(*def, inputs.data(), inputs.size(), attrs, &outs));
  return outs[0];
}

Variable Sum(const Variable& v) { return Call("reduce_sum", {v}).value(); }

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << "at " << i;
}

const std::vector<double> kX = {0.5, -1.25, 2.0};

// loss = sum(x * x): d/dx = 2x.
Variable SquareLoss(const Variable& x) { return Sum(Call("mul", {x, x}).value()); }

TEST(TapeTest, GradientsAccumulateOverBackwardCalls) {
  Variable x = Leaf(kX, Shape{3}, "S(0)");
  ASSERT_TRUE(autograd::Backward({SquareLoss(x)}, {}).ok());
  ExpectNear(Host(x.meta->grad), {1.0, -2.5, 4.0});
  ASSERT_TRUE(autograd::Backward({SquareLoss(x)}, {}).ok());
  ExpectNear(Host(x.meta->grad), {2.0, -5.0, 8.0});
}

TEST(TapeTest, NoGradScopeRecordsNothing) {
  Variable x = Leaf(kX, Shape{3});
  Variable loss;
  {
    autograd::NoGradGuard no_grad;
    EXPECT_FALSE(autograd::GradModeEnabled());
    loss = SquareLoss(x);
  }
  EXPECT_TRUE(autograd::GradModeEnabled());
  EXPECT_FALSE(loss.requires_grad());
  const Status s = autograd::Backward({loss}, {});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("does not require a gradient"), std::string::npos) << s.message();
  EXPECT_EQ(x.meta->grad, nullptr);
}

TEST(TapeTest, DetachStopsGradients) {
  // loss = sum(detach(exp(x)) * x): d/dx = exp(x) (no term through the exp).
  Variable x = Leaf(kX, Shape{3});
  Variable e = Call("exp", {x}).value();
  ASSERT_TRUE(e.requires_grad());
  EXPECT_FALSE(autograd::Detach(e).requires_grad());
  ASSERT_TRUE(autograd::Backward({Sum(Call("mul", {autograd::Detach(e), x}).value())}, {}).ok());
  ExpectNear(Host(x.meta->grad), {std::exp(0.5), std::exp(-1.25), std::exp(2.0)});
}

TEST(TapeTest, SecondBackwardNeedsRetainGraph) {
  Variable x = Leaf(kX, Shape{3});
  Variable loss = SquareLoss(x);
  ASSERT_TRUE(autograd::Backward({loss}, {}).ok());
  const Status s = autograd::Backward({loss}, {});
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("op reduce_sum"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("retain_graph"), std::string::npos) << s.message();
}

TEST(TapeTest, RetainGraphRunsTwiceAndDoublesTheGradient) {
  Variable x = Leaf(kX, Shape{3});
  Variable loss = SquareLoss(x);
  ASSERT_TRUE(autograd::Backward({loss}, {}, /*retain_graph=*/true).ok());
  ASSERT_TRUE(autograd::Backward({loss}, {}, /*retain_graph=*/true).ok());
  ExpectNear(Host(x.meta->grad), {2.0, -5.0, 8.0});
}

TEST(TapeTest, NonScalarRootNeedsAGradient) {
  Variable x = Leaf(kX, Shape{3});
  Variable y = Call("mul", {x, x}).value();
  const Status s = autograd::Backward({y}, {});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("root #0 has shape [3]"), std::string::npos) << s.message();
  // With its gradient it runs: d sum(w * x * x) / dx = 2 w x.
  ASSERT_TRUE(autograd::Backward({y}, {Make({1, 2, 3}, Shape{3})}).ok());
  ExpectNear(Host(x.meta->grad), {1.0, -5.0, 12.0});
}

TEST(TapeTest, AnOpWithoutAGradientIsUnimplementedNamingIt) {
  // relu_grad is a backward-only op: it declares no gradient of its own.
  Variable x = Leaf(kX, Shape{3});
  Variable y = Call("relu_grad", {Variable{Make({1, -1, 1}, Shape{3}), nullptr}, x}).value();
  ASSERT_TRUE(y.requires_grad());
  const Status s = autograd::Backward({Sum(y)}, {});
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("op relu_grad declares no gradient"), std::string::npos)
      << s.message();
}

TEST(TapeTest, DiamondSumsBothPathsAndHooksFireOncePerBackwardWithTheFinalGradient) {
  // loss = sum(exp(x) + 3 x): x reaches the add along two paths; d/dx = exp(x) + 3.
  Variable x = Leaf(kX, Shape{3}, "S(0)");
  int fired = 0;
  std::vector<double> seen;
  x.meta->hooks.push_back([&](const Tensor& grad) {
    ++fired;
    seen = Host(grad);
  });
  const auto loss = [&] {
    Variable a = Call("exp", {x}).value();
    Variable b = Call("scalar_mul", {x}, {{"value", AttrValue::Float(3)}}).value();
    return Sum(Call("add", {a, b}).value());
  };
  std::vector<double> want;
  for (double v : kX) want.push_back(std::exp(v) + 3);
  ASSERT_TRUE(autograd::Backward({loss()}, {}).ok());
  EXPECT_EQ(fired, 1);
  ExpectNear(seen, want);
  ExpectNear(Host(x.meta->grad), want);
  // A second backward: one more call, with the accumulated gradient.
  ASSERT_TRUE(autograd::Backward({loss()}, {}).ok());
  EXPECT_EQ(fired, 2);
  for (double& v : want) v *= 2;
  ExpectNear(seen, want);
}

TEST(TapeTest, BroadcastWeightUsedBySplitDataGetsAPartialGradientWithoutBoxing) {
  // y = x w with x [2n, 3] split by rows and w [3, 2] broadcast; dy split like y. The
  // weight's gradient x^T dy is a sum over rows: each rank's rows give a partial sum.
  const int n = comm::WorldSize().value();
  const int64_t rows = 2 * n;
  std::vector<double> xv(static_cast<size_t>(rows * 3)), dyv(static_cast<size_t>(rows * 2));
  std::iota(xv.begin(), xv.end(), -4.0);
  for (size_t i = 0; i < dyv.size(); ++i) dyv[i] = 0.5 * static_cast<double>(i % 5) - 1;
  Variable w = Leaf({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  Variable y = Call("matmul", {Variable{Make(xv, Shape{rows, 3}, "S(0)"), nullptr}, w}).value();
  ASSERT_TRUE(autograd::Backward({y}, {Make(dyv, Shape{rows, 2}, "S(0)")}).ok());
  // Backward ran one op, matmul(x, dy, transpose_a): no input of it was boxed.
  std::shared_ptr<const infer::InferResult> last = eager::LastInferResult();
  ASSERT_NE(last, nullptr);
  for (bool boxed : last->needs_boxing) EXPECT_FALSE(boxed);
  if (n > 1) {
    EXPECT_EQ(w.meta->grad->nd_sbp().ToString(), "P");
  }
  std::vector<double> want(6, 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 2; ++j) want[i * 2 + j] += xv[r * 3 + i] * dyv[r * 2 + j];
    }
  }
  ExpectNear(Host(w.meta->grad), want);
}

}  // namespace
}  // namespace tessera::autograd_test
