// Gradients of matmul, bias_add, the softmax family and the losses.
#include <string>
#include <utility>
#include <vector>

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
//
// matmul's broadcast form (a [..., m, k] @ b [k, n], b 2-d) differs in two places: b dy^T
// (ta) has a 2-d left operand, so da is taken as (dy b^T)^T with a transpose of the
// last two axes; and b is shared by every leading index of a, so db is the per-entry
// products (batch_matmul over a's leading axes, same table) summed over those axes. A
// split leading axis of a thus gives db a P gradient (the sum over a split axis).
Status MatmulGrad(GradBuilder* g) {
  const std::string& op = g->def().name();
  const bool ta = g->Bool("transpose_a");
  const bool tb = g->Bool("transpose_b");
  const V dy = g->output_grad(0);
  const V a = g->input(0);
  const V b = g->input(1);
  const int nd = g->shape(a).ndim();
  const bool broadcast_b = op == "matmul" && nd > 2;
  if (g->needs_input_grad(0)) {
    if (ta && broadcast_b) {
      std::vector<int64_t> perm(static_cast<size_t>(nd));
      for (int i = 0; i < nd; ++i) perm[static_cast<size_t>(i)] = i;
      std::swap(perm[static_cast<size_t>(nd - 2)], perm[static_cast<size_t>(nd - 1)]);
      g->SetInputGrad(0, g->Call("transpose", {g->Call(op, {dy, b}, Transposes(false, !tb))},
                                 {{"perm", AttrValue::Ints(perm)}}));
    } else {
      g->SetInputGrad(0, ta ? g->Call(op, {b, dy}, Transposes(tb, true))
                            : g->Call(op, {dy, b}, Transposes(false, !tb)));
    }
  }
  if (g->needs_input_grad(1)) {
    const std::string db_op = broadcast_b ? "batch_matmul" : op;
    V db = tb ? g->Call(db_op, {dy, a}, Transposes(true, ta))
              : g->Call(db_op, {a, dy}, Transposes(!ta, false));
    if (broadcast_b) {
      std::vector<int64_t> lead;
      for (int i = 0; i < nd - 2; ++i) lead.push_back(i);
      db = g->Call("reduce_sum", {db},
                   {{"axes", AttrValue::Ints(lead)}, {"keepdims", AttrValue::Bool(false)}});
    }
    g->SetInputGrad(1, db);
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

// layer_norm over the axes from n = begin_norm_axis (N elements per group), with
// xhat = (x - mean) * inv, y = xhat * gamma + beta, inv = 1 / sqrt(var + eps):
//   dgamma = sum(dy * xhat), dbeta = sum(dy) over the axes gamma lacks;
//   dx from y:     inv * (g - mean(g) - xhat * mean(g * xhat)), g = dy * gamma;
//   dx from mean:  dmean / N;
//   dx from inv:   dinv * d inv / dx = dinv * (-inv^2 * xhat / N) (var's own
//                  dependence on the mean drops out: sum(x - mean) = 0).
Status LayerNormGrad(GradBuilder* g) {
  const V x = g->input(0);
  const Shape shape = g->shape(x);
  const int nd = shape.ndim();
  int64_t norm = g->Int("begin_norm_axis");
  if (norm < 0) norm += nd;
  std::vector<int64_t> norm_axes;
  std::vector<int64_t> kept;  // the statistics' shape with the normalised axes as 1
  double count = 1;           // N
  for (int i = 0; i < nd; ++i) {
    if (i >= norm) {
      norm_axes.push_back(i);
      count *= static_cast<double>(shape.dim(i));
    }
    kept.push_back(i >= norm ? 1 : shape.dim(i));
  }
  const AttrMap keep_shape{{"shape", AttrValue::Ints(kept)}};
  const AttrMap mean_over{{"axes", AttrValue::Ints(norm_axes)},
                          {"keepdims", AttrValue::Bool(true)}};
  const V mean = g->Call("reshape", {g->output(1)}, keep_shape);
  const V inv = g->Call("reshape", {g->output(2)}, keep_shape);
  const V xhat = g->Call("mul", {g->Call("sub", {x, mean}), inv});
  const auto scaled = [&](V v, double factor) {
    return g->Call("scalar_mul", {v}, {{"value", AttrValue::Float(factor)}});
  };

  V dx = g->kNoValue;
  const auto add_term = [&](V term) { dx = dx == g->kNoValue ? term : g->Call("add", {dx, term}); };
  if (g->has_output_grad(0)) {
    const V dy = g->output_grad(0);
    if (g->needs_input_grad(1)) {
      g->SetInputGrad(1, g->SumToShape(g->Call("mul", {dy, xhat}), g->shape(g->input(1))));
    }
    if (g->needs_input_grad(2)) g->SetInputGrad(2, g->SumToShape(dy, g->shape(g->input(2))));
    if (g->needs_input_grad(0)) {
      const V gg = g->Call("mul", {dy, g->input(1)});
      const V m1 = g->Call("reduce_mean", {gg}, mean_over);
      const V m2 = g->Call("reduce_mean", {g->Call("mul", {gg, xhat})}, mean_over);
      add_term(g->Call(
          "mul", {inv, g->Call("sub", {g->Call("sub", {gg, m1}), g->Call("mul", {xhat, m2})})}));
    }
  }
  if (g->needs_input_grad(0) && g->has_output_grad(1)) {
    add_term(scaled(g->ExpandFromReduced(g->output_grad(1), shape, norm_axes, false), 1.0 / count));
  }
  if (g->needs_input_grad(0) && g->has_output_grad(2)) {
    const V dinv = g->Call("reshape", {g->output_grad(2)}, keep_shape);
    const V local = g->Call("mul", {dinv, g->Call("mul", {inv, inv})});
    add_term(scaled(g->Call("mul", {xhat, local}), -1.0 / count));
  }
  if (dx != g->kNoValue) g->SetInputGrad(0, dx);
  return g->status();
}

// gather / embedding: each dout row added back at the row its index names.
Status GatherGrad(GradBuilder* g) {
  if (!g->needs_input_grad(0)) return g->status();
  const Shape params = g->shape(g->input(0));
  int64_t axis = g->Int("axis");
  if (axis < 0) axis += params.ndim();
  g->SetInputGrad(0, g->Call("gather_grad", {g->output_grad(0), g->input(1)},
                             {{"axis", AttrValue::Int(axis)},
                              {"size", AttrValue::Int(params.dim(static_cast<int>(axis)))}}));
  return g->status();
}

Status EmbeddingGrad(GradBuilder* g) {
  if (!g->needs_input_grad(0)) return g->status();
  const Shape weight = g->shape(g->input(0));
  g->SetInputGrad(0,
                  g->Call("gather_grad", {g->output_grad(0), g->input(1)},
                          {{"axis", AttrValue::Int(0)}, {"size", AttrValue::Int(weight.dim(0))}}));
  return g->status();
}

// nll_loss and cross_entropy: row i's loss is -s[i, t_i] (s = log_probs) or
// -log_softmax(logits)[i, t_i], so its gradient is -onehot(t_i) or softmax(logits)_i -
// onehot(t_i), times the row's dloss: sparse_softmax_cross_entropy_grad((0 or
// softmax), target, drow). drow is dy itself for reduction none, and the 0-d dy
// expanded to [N] for sum, divided by N too for mean.
namespace {

constexpr int64_t kNoReduction = 0, kMeanReduction = 1;

Status LossGrad(GradBuilder* g, V prob) {
  const int64_t n = g->shape(g->input(0)).dim(0);
  V drow = g->output_grad(0);
  if (g->Int("reduction") != kNoReduction) {
    drow = g->Call("expand", {drow}, {{"shape", AttrValue::Ints({n})}});
    if (g->Int("reduction") == kMeanReduction) {
      drow = g->Call("scalar_mul", {drow}, {{"value", AttrValue::Float(n == 0 ? 1.0 : 1.0 / n)}});
    }
  }
  g->SetInputGrad(0, g->Call("sparse_softmax_cross_entropy_grad", {prob, g->input(1), drow}));
  return g->status();
}

}  // namespace

Status NllLossGrad(GradBuilder* g) {
  if (!g->needs_input_grad(0)) return g->status();
  const V log_probs = g->input(0);
  return LossGrad(g, g->Full(g->shape(log_probs), 0.0, log_probs));
}

Status CrossEntropyGrad(GradBuilder* g) {
  if (!g->needs_input_grad(0)) return g->status();
  return LossGrad(g, g->Call("softmax", {g->input(0)}, {{"axis", AttrValue::Int(-1)}}));
}

}  // namespace op
}  // namespace tessera
