// Gradient checks (grad_check.h) of the ops added for training (issue 17, item 8):
// expand, squeeze, unsqueeze, flatten, log, sin, cos, cumsum, var, std, where,
// nll_loss, cross_entropy and broadcasting matmul, at 1, 3 and 4 ranks (3 splits the
// 4- and 5-long axes unevenly) on every 1-d layout and the 2-d layouts of
// MeshPlacement(). Also backward through graphs that use the non-differentiable ops
// (argmax, comparisons as where's cond), and the P gradient of a broadcast matmul
// weight used by data split on a leading axis.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/autograd/backward.h"
#include "core/autograd/variable.h"
#include "core/comm/mpi_world.h"
#include "core/op/op_registry.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"
#include "tests/autograd/grad_check.h"

namespace tessera::autograd_test {
namespace {

using autograd::Variable;
using op::AttrValue;
using tensor::Tensor;

TEST(GradCheckNewOps, LogSinCos) {
  // log at positive points only.
  const std::vector<double> positive = Range(20, 0.3, 0.11);
  for (const Case& c : Cases(2)) {
    EXPECT_GRAD("log", {GradInput{Shape{4, 5}, c.layout, positive}}, {}, c.placement);
    EXPECT_GRAD("sin", {GradInput{Shape{4, 5}, c.layout}}, {}, c.placement);
    EXPECT_GRAD("cos", {GradInput{Shape{4, 5}, c.layout}}, {}, c.placement);
  }
}

TEST(GradCheckNewOps, Expand) {
  for (const Case& c : Cases(2)) {
    // A new leading axis; a size-1 axis stretched (with -1 keeping the other).
    EXPECT_GRAD("expand", {GradInput{Shape{4, 5}, c.layout}},
                {{"shape", AttrValue::Ints({3, 4, 5})}}, c.placement);
    EXPECT_GRAD("expand", {GradInput{Shape{4, 1}, c.layout}},
                {{"shape", AttrValue::Ints({2, -1, 5})}}, c.placement);
  }
}

TEST(GradCheckNewOps, SqueezeUnsqueezeFlatten) {
  for (const Case& c : Cases(3)) {
    EXPECT_GRAD("squeeze", {GradInput{Shape{4, 1, 5}, c.layout}}, {{"axes", AttrValue::Ints({1})}},
                c.placement);
    EXPECT_GRAD("flatten", {GradInput{Shape{2, 3, 4}, c.layout}},
                {{"start_axis", AttrValue::Int(1)}}, c.placement);
  }
  for (const NdSbp& l : Layouts(3)) {
    EXPECT_GRAD("flatten", {GradInput{Shape{2, 3, 4}, l}}, {{"end_axis", AttrValue::Int(-2)}},
                WorldPlacement());
  }
  for (const Case& c : Cases(2)) {
    for (int64_t axis : {0, -1}) {
      EXPECT_GRAD("unsqueeze", {GradInput{Shape{4, 5}, c.layout}}, {{"axis", AttrValue::Int(axis)}},
                  c.placement);
    }
  }
}

TEST(GradCheckNewOps, Cumsum) {
  for (const Case& c : Cases(2)) {
    for (int64_t axis : {0, -1}) {
      EXPECT_GRAD("cumsum", {GradInput{Shape{4, 5}, c.layout}}, {{"axis", AttrValue::Int(axis)}},
                  c.placement);
    }
  }
}

TEST(GradCheckNewOps, VarStd) {
  // All axes, the first kept, the last dropped with the population form: each on the
  // 1-d layouts; the 2-d ones with the kept first axis.
  const struct {
    std::vector<int64_t> axes;
    bool keepdims;
    int64_t correction;
  } reductions[] = {{{}, false, 1}, {{0}, true, 1}, {{-1}, false, 0}};
  for (const char* op : {"var", "std"}) {
    for (const Case& c : Cases(2)) {
      for (const auto& r : reductions) {
        if (c.placement.num_axes() > 1 && r.axes != std::vector<int64_t>{0}) continue;
        EXPECT_GRAD(op, {GradInput{Shape{4, 5}, c.layout}},
                    {{"axes", AttrValue::Ints(r.axes)},
                     {"keepdims", AttrValue::Bool(r.keepdims)},
                     {"correction", AttrValue::Int(r.correction)}},
                    c.placement, 1e-6, 1e-5);
      }
    }
  }
}

TEST(GradCheckNewOps, Where) {
  std::vector<double> cond(20);
  for (size_t i = 0; i < cond.size(); ++i) cond[i] = (i * 7) % 3 == 0 ? 1 : 0;
  for (const Case& c : Cases(2)) {
    const GradInput cond_in{Shape{4, 5}, Like(c.layout, 2, true), cond, false, DType::kBool};
    EXPECT_GRAD("where",
                {cond_in, GradInput{Shape{4, 5}, c.layout}, GradInput{Shape{4, 5}, c.layout}}, {},
                c.placement);
    // y broadcast along axis 0, x along axis 1: their gradients sum back.
    EXPECT_GRAD("where",
                {cond_in, GradInput{Shape{4, 1}, Like(c.layout, 2)}, GradInput{Shape{5}, Bcast(c)}},
                {}, c.placement);
  }
}

TEST(GradCheckNewOps, NllLossAndCrossEntropy) {
  const std::vector<double> target = {3, 0, 3, 1, 2};
  // Every reduction on the 1-d layouts, mean on the 2-d ones. Log-probabilities need
  // not be normalised for nll_loss's gradient.
  for (const Case& c : Cases(2)) {
    const GradInput t{Shape{5}, Like(c.layout, 1, true), target, false, DType::kI64};
    for (int64_t reduction : {0, 1, 2}) {
      if (c.placement.num_axes() > 1 && reduction != 1) continue;
      const op::AttrMap attrs{{"reduction", AttrValue::Int(reduction)}};
      EXPECT_GRAD("nll_loss", {GradInput{Shape{5, 4}, c.layout}, t}, attrs, c.placement);
      EXPECT_GRAD("cross_entropy", {GradInput{Shape{5, 4}, c.layout}, t}, attrs, c.placement);
    }
  }
}

TEST(GradCheckNewOps, BroadcastingMatmul) {
  for (const Case& c : Cases(3)) {
    const NdSbp b = Bcast(c);
    EXPECT_GRAD("matmul", {GradInput{Shape{2, 3, 4}, c.layout}, GradInput{Shape{4, 2}, b}}, {},
                c.placement);
  }
  // Each transpose flag (a read as [..., k, m], b as [n, k]) on a few layouts: the
  // leading, the contracted-or-m axis, and P.
  for (const NdSbp& l : {L("S(0)"), L("S(2)"), L("P")}) {
    EXPECT_GRAD("matmul", {GradInput{Shape{2, 4, 3}, l}, GradInput{Shape{4, 2}, L("B")}},
                {{"transpose_a", AttrValue::Bool(true)}}, WorldPlacement());
    EXPECT_GRAD("matmul", {GradInput{Shape{2, 3, 4}, l}, GradInput{Shape{2, 4}, L("B")}},
                {{"transpose_b", AttrValue::Bool(true)}}, WorldPlacement());
    EXPECT_GRAD("matmul", {GradInput{Shape{2, 4, 3}, l}, GradInput{Shape{2, 4}, L("B")}},
                {{"transpose_a", AttrValue::Bool(true)}, {"transpose_b", AttrValue::Bool(true)}},
                WorldPlacement());
  }
  // Two leading axes, b split on its columns.
  EXPECT_GRAD("matmul",
              {GradInput{Shape{2, 2, 2, 3}, L("S(1)")}, GradInput{Shape{3, 3}, L("S(1)")}}, {},
              WorldPlacement());
}

// ---- graphs with non-differentiable ops ----

Tensor Make(const std::vector<double>& values, const Shape& shape, const std::string& sbp) {
  return tensor::FromLogical(values.data(), shape, DType::kF64, WorldPlacement(), L(sbp)).value();
}

std::vector<double> Host(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t->shape().num_elements()));
  EXPECT_TRUE(tensor::ToHost(t, out.data()).ok());
  return out;
}

Variable Call(const std::string& op, const std::vector<Variable>& inputs,
              const op::AttrMap& attrs = {}) {
  const op::OpDef* def = op::OpRegistry::Global().Find(op).value();
  std::vector<Variable> outs;
  const Status s = autograd::Apply(*def, inputs.data(), inputs.size(), attrs, &outs);
  EXPECT_TRUE(s.ok()) << op << ": " << s.ToString();
  return s.ok() ? outs[0] : Variable{};
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << "at " << i;
}

TEST(GradNonDifferentiable, BackwardThroughComparisonsAndArgmax) {
  // out = where(x > 0, x, -x) * argmax(x, axis 1, keepdims): |x| scaled by each row's
  // argmax. The comparison and argmax give integer/bool values with no gradient, so
  // dx = dy sign(x) argmax(row).
  const std::vector<double> xv = {0.5, -1.5, 2.0, 0.25, -3.0, -0.5, 1.0, 4.0, 0.75, -2.0, 1.5, 0.1};
  const std::vector<double> dyv = {1, 2, 3, 4, -1, -2, -3, -4, 0.5, 1.5, 2.5, 3.5};
  for (const std::string sbp : {"S(0)", "B"}) {
    Variable x = autograd::MakeLeaf(Make(xv, Shape{3, 4}, sbp)).value();
    const Variable zero{Make({0.0}, Shape{}, "B"), nullptr};
    const Variable cond = Call("greater", {x, zero});
    EXPECT_FALSE(cond.requires_grad());
    const Variable abs = Call("where", {cond, x, Call("neg", {x})});
    const Variable idx =
        Call("argmax", {x}, {{"axis", AttrValue::Int(1)}, {"keepdims", AttrValue::Bool(true)}});
    EXPECT_FALSE(idx.requires_grad());
    const Variable scale = Call("cast", {idx}, {{"dtype", AttrValue::OfDType(DType::kF64)}});
    const Variable out = Call("mul", {abs, scale});
    ASSERT_TRUE(autograd::Backward({out}, {Make(dyv, Shape{3, 4}, sbp)}).ok());
    std::vector<double> want(12);
    for (int r = 0; r < 3; ++r) {
      int best = 0;
      for (int j = 1; j < 4; ++j) {
        if (xv[r * 4 + j] > xv[r * 4 + best]) best = j;
      }
      for (int j = 0; j < 4; ++j) {
        const int k = r * 4 + j;
        want[k] = dyv[k] * (xv[k] > 0 ? 1.0 : -1.0) * best;
      }
    }
    ExpectNear(Host(x.meta->grad), want);
  }
}

TEST(GradNonDifferentiable, BroadcastMatmulWeightGetsPartialGradientFromSplitLeadingAxis) {
  // y = a w with a [n + 1, 2, 3] split on its leading axis and w [3, 2] broadcast: w's
  // gradient sums a^T dy over every leading index, so each rank's entries give a
  // partial sum (P), with no boxing of a or dy.
  const int n = comm::WorldSize().value();
  const int64_t lead = n + 1;
  std::vector<double> av(static_cast<size_t>(lead * 6)), dyv(static_cast<size_t>(lead * 4));
  for (size_t i = 0; i < av.size(); ++i) av[i] = 0.25 * static_cast<double>(i) - 2;
  for (size_t i = 0; i < dyv.size(); ++i) dyv[i] = 0.5 * static_cast<double>(i % 5) - 1;
  const std::vector<double> wv = {1, 2, 3, 4, 5, 6};
  Variable w = autograd::MakeLeaf(Make(wv, Shape{3, 2}, "B")).value();
  const Variable a{Make(av, Shape{lead, 2, 3}, "S(0)"), nullptr};
  const Variable y = Call("matmul", {a, w});
  ASSERT_TRUE(autograd::Backward({y}, {Make(dyv, Shape{lead, 2, 2}, "S(0)")}).ok());
  if (n > 1) {
    EXPECT_EQ(w.meta->grad->nd_sbp().ToString(), "P");
  }
  std::vector<double> want(6, 0.0);
  for (int64_t e = 0; e < lead; ++e) {
    for (int m = 0; m < 2; ++m) {
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 2; ++j)
          want[i * 2 + j] += av[(e * 2 + m) * 3 + i] * dyv[(e * 2 + m) * 2 + j];
      }
    }
  }
  ExpectNear(Host(w.meta->grad), want);
}

}  // namespace
}  // namespace tessera::autograd_test
