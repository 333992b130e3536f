// Gradient checks (grad_check.h) of gelu, abs, pow, maximum/minimum, reduce_max/min,
// layer_norm, gather, embedding, concat and slice at 1, 3 and 4 ranks (3 splits the
// 4- and 5-long axes unevenly), on every 1-d layout of each input, and on the 2-d
// layouts of MeshPlacement() ([2, 2] at 4 ranks, [1, n] otherwise); and the ops of
// grad_check_test.cc on 2-d layouts.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/autograd/grad_check.h"

namespace tessera::autograd_test {
namespace {

using op::AttrValue;

// Every 1-d layout on the world, and every 2-d one on the mesh.
struct Case {
  NdSbp layout;
  Placement placement;
};
std::vector<Case> Cases(int ndim) {
  std::vector<Case> out;
  for (const NdSbp& l : Layouts(ndim)) out.push_back({l, WorldPlacement()});
  for (const NdSbp& l : Layouts2d(ndim)) out.push_back({l, MeshPlacement()});
  return out;
}

// A layout of the same kind for another input of rank `ndim` (gamma, indices): its
// splits clamped to the tensor's axes; for an index input (`index`), P becomes B, as
// integers have no partial layout here.
NdSbp Like(const NdSbp& l, int ndim, bool index = false) {
  std::vector<Sbp> sbps;
  for (int i = 0; i < l.num_axes(); ++i) {
    Sbp s = l[i];
    if (index && !s.is_split()) s = Sbp::Broadcast();
    if (s.is_split() && s.axis >= ndim) s.axis = ndim - 1;
    sbps.push_back(s);
  }
  return NdSbp::Make(sbps.data(), static_cast<int>(sbps.size())).value();
}

// Broadcast on every axis of the case's placement.
NdSbp Bcast(const Case& c) { return c.placement.num_axes() == 1 ? L("B") : L("(B, B)"); }

std::vector<double> Range(int n, double from, double by) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = from + by * i;
  return v;
}

TEST(GradCheckOps, GeluAndAbs) {
  for (const Case& c : Cases(2)) {
    EXPECT_GRAD("gelu", {GradInput{Shape{4, 5}, c.layout}}, {}, c.placement);
    EXPECT_GRAD("abs", {GradInput{Shape{4, 5}, c.layout}}, {}, c.placement);
  }
}

TEST(GradCheckOps, Pow) {
  // Positive bases, so any exponent is defined.
  const std::vector<double> base = Range(20, 0.3, 0.11);
  for (const Case& c : Cases(2)) {
    EXPECT_GRAD("pow", {GradInput{Shape{4, 5}, c.layout, base}, GradInput{Shape{4, 5}, c.layout}},
                {}, c.placement);
    // The exponent broadcast along axis 0, and the base along a new leading axis.
    EXPECT_GRAD("pow", {GradInput{Shape{4, 5}, c.layout, base}, GradInput{Shape{5}, Bcast(c)}}, {},
                c.placement);
    EXPECT_GRAD(
        "pow",
        {GradInput{Shape{5}, Bcast(c), Range(5, 0.5, 0.3)}, GradInput{Shape{4, 5}, c.layout}}, {},
        c.placement);
  }
}

TEST(GradCheckOps, MaximumMinimum) {
  for (const char* op : {"maximum", "minimum"}) {
    for (const Case& c : Cases(2)) {
      EXPECT_GRAD(op, {GradInput{Shape{4, 5}, c.layout}, GradInput{Shape{4, 5}, Like(c.layout, 2)}},
                  {}, c.placement);
    }
    for (const NdSbp& l : Layouts(2)) {
      EXPECT_GRAD(op, {GradInput{Shape{4, 5}, l}, GradInput{Shape{1, 5}, L("B")}}, {},
                  WorldPlacement());
    }
    // Ties: a central difference at x == y moves out by eps one way and not at all
    // the other, so the numeric gradient is 1/2 for each input: the even split.
    const std::vector<double> x = Range(6, -0.5, 0.25);
    std::vector<double> y = x;
    y[1] += 1;
    y[4] -= 1;
    EXPECT_GRAD(op, {GradInput{Shape{2, 3}, L("S(0)"), x}, GradInput{Shape{2, 3}, L("B"), y}}, {},
                WorldPlacement());
  }
}

TEST(GradCheckOps, ReduceMaxMin) {
  for (const char* op : {"reduce_max", "reduce_min"}) {
    for (const Case& c : Cases(2)) {
      // All axes, the first kept, the last dropped: each way ExpandFromReduced goes.
      const std::pair<std::vector<int64_t>, bool> reductions[] = {
          {{}, false}, {{0}, true}, {{-1}, false}};
      for (const auto& [axes, keep] : reductions) {
        EXPECT_GRAD(op, {GradInput{Shape{4, 5}, c.layout}},
                    {{"axes", AttrValue::Ints(axes)}, {"keepdims", AttrValue::Bool(keep)}},
                    c.placement);
      }
    }
    // Two equal extremes in a row: each gets half (the central difference sees 1/2).
    std::vector<double> x = Range(8, -0.7, 0.2);
    x[1] = x[3] = 2.0;   // row 0's max
    x[4] = x[6] = -2.0;  // row 1's min
    EXPECT_GRAD(op, {GradInput{Shape{2, 4}, L("S(1)"), x}}, {{"axes", AttrValue::Ints({1})}},
                WorldPlacement());
  }
}

TEST(GradCheckOps, LayerNorm) {
  // The loss weighs y, mean and inv_variance, so all three outputs' terms are checked.
  for (const Case& c : Cases(2)) {
    EXPECT_GRAD("layer_norm",
                {GradInput{Shape{4, 5}, c.layout}, GradInput{Shape{5}, Like(c.layout, 1)},
                 GradInput{Shape{5}, Bcast(c)}},
                {}, c.placement);
  }
  for (const NdSbp& l : Layouts(3)) {
    // Normalised over the last two axes, gamma/beta over the last one.
    EXPECT_GRAD(
        "layer_norm",
        {GradInput{Shape{3, 2, 4}, l}, GradInput{Shape{4}, L("B")}, GradInput{Shape{4}, L("S(0)")}},
        {{"begin_norm_axis", AttrValue::Int(1)}, {"begin_params_axis", AttrValue::Int(-1)}},
        WorldPlacement(), 1e-6, 1e-5);
  }
  for (const NdSbp& l : {L("S(0)"), L("S(2)"), L("P")}) {
    // gamma/beta over the normalised axes and one more (begin_params_axis 0).
    EXPECT_GRAD("layer_norm",
                {GradInput{Shape{3, 2, 4}, l}, GradInput{Shape{3, 2, 4}, L("B")},
                 GradInput{Shape{3, 2, 4}, l}},
                {{"begin_norm_axis", AttrValue::Int(2)}, {"begin_params_axis", AttrValue::Int(0)}},
                WorldPlacement(), 1e-6, 1e-5);
  }
}

TEST(GradCheckOps, GatherAndEmbedding) {
  // Repeated indices: their rows' gradients add up.
  const std::vector<double> idx = {3, 0, 3, 1, 4, 3};
  for (const Case& c : Cases(2)) {
    const NdSbp il = Like(c.layout, 2, true);
    for (int64_t axis : {0, 1, -2}) {
      const Shape params = axis == 1 ? Shape{4, 5} : Shape{5, 4};
      EXPECT_GRAD(
          "gather",
          {GradInput{params, c.layout}, GradInput{Shape{2, 3}, il, idx, false, DType::kI64}},
          {{"axis", AttrValue::Int(axis)}}, c.placement);
    }
    EXPECT_GRAD(
        "embedding",
        {GradInput{Shape{5, 4}, c.layout}, GradInput{Shape{2, 3}, il, idx, false, DType::kI64}}, {},
        c.placement);
    // 1-d indices.
    EXPECT_GRAD("embedding",
                {GradInput{Shape{5, 4}, c.layout},
                 GradInput{Shape{4}, Like(c.layout, 1, true), {4, 4, 0, 2}, false, DType::kI64}},
                {}, c.placement);
  }
}

TEST(GradCheckOps, ConcatAndSlice) {
  for (const Case& c : Cases(2)) {
    EXPECT_GRAD("concat", {GradInput{Shape{2, 5}, c.layout}, GradInput{Shape{3, 5}, c.layout}},
                {{"axis", AttrValue::Int(0)}}, c.placement);
    EXPECT_GRAD("concat",
                {GradInput{Shape{4, 2}, c.layout}, GradInput{Shape{4, 1}, Bcast(c)},
                 GradInput{Shape{4, 3}, c.layout}},
                {{"axis", AttrValue::Int(-1)}}, c.placement);
    const op::AttrMap stepped{{"start", AttrValue::Ints({1, -4})},
                              {"stop", AttrValue::Ints({4, 5})},
                              {"step", AttrValue::Ints({2, 1})}};
    EXPECT_GRAD("slice", {GradInput{Shape{4, 5}, c.layout}}, stepped, c.placement);
    const op::AttrMap whole_rows{{"start", AttrValue::Ints({0, -10})},
                                 {"stop", AttrValue::Ints({4, 5})},
                                 {"step", AttrValue::Ints({1, 3})}};
    EXPECT_GRAD("slice", {GradInput{Shape{4, 5}, c.layout}}, whole_rows, c.placement);
  }
}

// The ops of grad_check_test.cc on the mesh: three 2-d layouts each (split on both
// mesh axes, B with a split, P with B).
TEST(GradCheckOps, EarlierOpsOn2dLayouts) {
  const Placement mesh = MeshPlacement();
  const NdSbp layouts[] = {L("(S(0), S(1))"), L("(B, S(0))"), L("(P, B)")};
  const Shape s{4, 5};
  for (const NdSbp& l : layouts) {
    for (const char* op : {"neg", "exp", "tanh", "sigmoid", "relu"}) {
      EXPECT_GRAD(op, {GradInput{s, l}}, {}, mesh);
    }
    EXPECT_GRAD("scalar_mul", {GradInput{s, l}}, {{"value", AttrValue::Float(-2.5)}}, mesh);
    for (const char* op : {"add", "sub", "mul", "div"}) {
      EXPECT_GRAD(op, {GradInput{s, l}, GradInput{Shape{5}, L("(B, B)")}}, {}, mesh);
    }
    EXPECT_GRAD("matmul", {GradInput{s, l}, GradInput{Shape{5, 3}, L("(B, B)")}}, {}, mesh);
    EXPECT_GRAD("bias_add", {GradInput{s, l}, GradInput{Shape{5}, L("(B, B)")}},
                {{"axis", AttrValue::Int(1)}}, mesh);
    for (const char* op : {"reduce_sum", "reduce_mean"}) {
      EXPECT_GRAD(op, {GradInput{s, l}}, {{"axes", AttrValue::Ints({1})}}, mesh);
    }
    for (const char* op : {"softmax", "log_softmax"}) {
      EXPECT_GRAD(op, {GradInput{s, l}}, {{"axis", AttrValue::Int(-1)}}, mesh);
    }
    EXPECT_GRAD("transpose", {GradInput{s, l}}, {{"perm", AttrValue::Ints({1, 0})}}, mesh);
    EXPECT_GRAD("reshape", {GradInput{s, l}}, {{"shape", AttrValue::Ints({2, 10})}}, mesh);
  }
  GradInput labels{Shape{4}, L("(S(0), B)"), {1, 0, 4, 2}, false, DType::kI64};
  EXPECT_GRAD("sparse_softmax_cross_entropy", {GradInput{s, L("(S(0), B)")}, labels}, {}, mesh);
}

}  // namespace
}  // namespace tessera::autograd_test
