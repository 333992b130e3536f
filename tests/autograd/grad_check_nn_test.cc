// Gradient checks (grad_check.h) of layer_norm, gather, embedding, concat and slice
// at 1, 3 and 4 ranks on every 1-d layout and the 2-d layouts of MeshPlacement(), and
// of the ops of grad_check_test.cc on 2-d layouts.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/autograd/grad_check.h"

namespace tessera::autograd_test {
namespace {

using op::AttrValue;

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
