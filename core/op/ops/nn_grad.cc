// Gradients of matmul, bias_add and the softmax family.
#include <string>

#include "core/op/grad.h"
#include "core/op/op_def.h"
#include "core/op/ops/grad_rules.h"

namespace tessera {
namespace op {

using V = GradBuilder::Value;

namespace {

AttrMap Transposes(bool a, bool b) {
  return {{"transpose_a", AttrValue::Bool(a)}, {"transpose_b", AttrValue::Bool(b)}};
}

// The softmax axis, normalised.
int64_t SoftmaxAxis(GradBuilder* g) {
  const int64_t axis = g->Int("axis");
  return axis < 0 ? axis + g->shape(g->input(0)).ndim() : axis;
}

AttrMap SumKeepdims(int64_t axis) {
  return {{"axes", AttrValue::Ints({axis})}, {"keepdims", AttrValue::Bool(true)}};
}

}  // namespace

// out = op_a(a) op_b(b), op = transpose or not. With dy = d out:
//   ta tb  da                db
//   0  0   dy b^T            a^T dy
//   0  1   dy b              dy^T a
//   1  0   b dy^T            a dy
//   1  1   b^T dy^T          dy^T a^T
// Each is one matmul with transpose flags, so no transpose is materialised; the same
// table holds for batch_matmul over its batch axes.
Status MatmulGrad(GradBuilder* g) {
  const std::string& op = g->def().name();
  const bool ta = g->Bool("transpose_a");
  const bool tb = g->Bool("transpose_b");
  const V dy = g->output_grad(0);
  const V a = g->input(0);
  const V b = g->input(1);
  if (g->needs_input_grad(0)) {
    g->SetInputGrad(0, ta ? g->Call(op, {b, dy}, Transposes(tb, true))
                          : g->Call(op, {dy, b}, Transposes(false, !tb)));
  }
  if (g->needs_input_grad(1)) {
    g->SetInputGrad(1, tb ? g->Call(op, {dy, a}, Transposes(true, ta))
                          : g->Call(op, {a, dy}, Transposes(!ta, false)));
  }
  return g->status();
}

Status BiasAddGrad(GradBuilder* g) {
  const V dy = g->output_grad(0);
  if (g->needs_input_grad(0)) g->SetInputGrad(0, dy);
  if (g->needs_input_grad(1)) {
    const int nd = g->shape(dy).ndim();
    int64_t axis = g->Int("axis");
    if (axis < 0) axis += nd;
    std::vector<int64_t> others;
    for (int i = 0; i < nd; ++i) {
      if (i != axis) others.push_back(i);
    }
    // Every axis but `axis` (none left for a 1-d input: dy itself).
    g->SetInputGrad(1, others.empty() ? dy
                                      : g->Call("reduce_sum", {dy},
                                                {{"axes", AttrValue::Ints(others)},
                                                 {"keepdims", AttrValue::Bool(false)}}));
  }
  return g->status();
}

Status SparseSoftmaxCrossEntropyGrad(GradBuilder* g) {
  if (!g->needs_input_grad(0)) return g->status();
  const V prob = g->output(0);
  V dx = g->kNoValue;
  if (g->has_output_grad(1)) {
    // (prob - onehot(label)) * d out, in one kernel.
    dx = g->Call("sparse_softmax_cross_entropy_grad", {prob, g->input(1), g->output_grad(1)});
  }
  if (g->has_output_grad(0)) {
    // Through prob = softmax(prediction): prob * (dprob - sum(dprob * prob)).
    const V dprob = g->output_grad(0);
    const int64_t axis = g->shape(prob).ndim() - 1;
    const V dot = g->Call("reduce_sum", {g->Call("mul", {dprob, prob})}, SumKeepdims(axis));
    const V term = g->Call("mul", {prob, g->Call("sub", {dprob, dot})});
    dx = dx == g->kNoValue ? term : g->Call("add", {dx, term});
  }
  if (dx != g->kNoValue) g->SetInputGrad(0, dx);
  return g->status();
}

Status SoftmaxGrad(GradBuilder* g) {
  // y * (dy - sum(dy * y, axis)).
  if (!g->needs_input_grad(0)) return g->status();
  const V y = g->output(0);
  const V dy = g->output_grad(0);
  const V dot = g->Call("reduce_sum", {g->Call("mul", {dy, y})}, SumKeepdims(SoftmaxAxis(g)));
  g->SetInputGrad(0, g->Call("mul", {y, g->Call("sub", {dy, dot})}));
  return g->status();
}

Status LogSoftmaxGrad(GradBuilder* g) {
  // dy - exp(y) * sum(dy, axis).
  if (!g->needs_input_grad(0)) return g->status();
  const V y = g->output(0);
  const V dy = g->output_grad(0);
  const V total = g->Call("reduce_sum", {dy}, SumKeepdims(SoftmaxAxis(g)));
  g->SetInputGrad(0, g->Call("sub", {dy, g->Call("mul", {g->Call("exp", {y}), total})}));
  return g->status();
}

}  // namespace op
}  // namespace tessera
