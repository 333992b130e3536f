// Gradients of the elementwise ops. Binary ops broadcast, so each input's gradient
// is summed back to the input's shape (SumToShape).
#include "core/op/grad.h"
#include "core/op/ops/grad_rules.h"

namespace tessera {
namespace op {

using V = GradBuilder::Value;

namespace {

// d/dx of a one-input op as dy * f(y) or f(x): `term` builds the local derivative
// times dy.
template <typename Term>
Status UnaryGrad(GradBuilder* g, Term term) {
  if (g->needs_input_grad(0)) g->SetInputGrad(0, term(g->output_grad(0)));
  return g->status();
}

// `v` broadcast to `shape` (numpy rules) by adding zeros: the backward-only
// elementwise ops take inputs of one shape.
V BroadcastTo(GradBuilder* g, V v, const Shape& shape) {
  if (g->shape(v) == shape) return v;
  return g->Call("add", {g->Full(shape, 0.0, v), v});
}

void SetBroadcastGrad(GradBuilder* g, int slot, V grad) {
  if (g->needs_input_grad(slot)) {
    g->SetInputGrad(slot, g->SumToShape(grad, g->shape(g->input(slot))));
  }
}

}  // namespace

Status AddGrad(GradBuilder* g) {
  const V dy = g->output_grad(0);
  SetBroadcastGrad(g, 0, dy);
  SetBroadcastGrad(g, 1, dy);
  return g->status();
}

Status SubGrad(GradBuilder* g) {
  const V dy = g->output_grad(0);
  SetBroadcastGrad(g, 0, dy);
  if (g->needs_input_grad(1)) SetBroadcastGrad(g, 1, g->Call("neg", {dy}));
  return g->status();
}

Status MulGrad(GradBuilder* g) {
  const V dy = g->output_grad(0);
  if (g->needs_input_grad(0)) SetBroadcastGrad(g, 0, g->Call("mul", {dy, g->input(1)}));
  if (g->needs_input_grad(1)) SetBroadcastGrad(g, 1, g->Call("mul", {dy, g->input(0)}));
  return g->status();
}

Status DivGrad(GradBuilder* g) {
  // out = x / y: d/dx = 1 / y, d/dy = -x / y^2 = -out / y.
  const V dy = g->output_grad(0);
  const V y = g->input(1);
  if (g->needs_input_grad(0)) SetBroadcastGrad(g, 0, g->Call("div", {dy, y}));
  if (g->needs_input_grad(1)) {
    const V t = g->Call("mul", {dy, g->Call("div", {g->output(0), y})});
    SetBroadcastGrad(g, 1, g->Call("neg", {t}));
  }
  return g->status();
}

Status NegGrad(GradBuilder* g) {
  return UnaryGrad(g, [&](V dy) { return g->Call("neg", {dy}); });
}

Status IdentityGrad(GradBuilder* g) {
  return UnaryGrad(g, [](V dy) { return dy; });
}

Status ScalarAddGrad(GradBuilder* g) { return IdentityGrad(g); }

Status ScalarMulGrad(GradBuilder* g) {
  return UnaryGrad(g, [&](V dy) {
    return g->Call("scalar_mul", {dy}, {{"value", AttrValue::Float(g->Float("value"))}});
  });
}

Status ExpGrad(GradBuilder* g) {
  return UnaryGrad(g, [&](V dy) { return g->Call("mul", {dy, g->output(0)}); });
}

Status LogGrad(GradBuilder* g) {
  return UnaryGrad(g, [&](V dy) { return g->Call("div", {dy, g->input(0)}); });
}

Status SinGrad(GradBuilder* g) {
  return UnaryGrad(g, [&](V dy) { return g->Call("mul", {dy, g->Call("cos", {g->input(0)})}); });
}

Status CosGrad(GradBuilder* g) {
  return UnaryGrad(g, [&](V dy) {
    return g->Call("neg", {g->Call("mul", {dy, g->Call("sin", {g->input(0)})})});
  });
}

Status TanhGrad(GradBuilder* g) {
  // 1 - tanh^2.
  return UnaryGrad(g, [&](V dy) {
    const V y = g->output(0);
    return g->Call("sub", {dy, g->Call("mul", {dy, g->Call("mul", {y, y})})});
  });
}

Status SigmoidGrad(GradBuilder* g) {
  // s (1 - s).
  return UnaryGrad(g, [&](V dy) {
    const V s = g->output(0);
    const V one_minus_s =
        g->Call("scalar_add", {g->Call("neg", {s})}, {{"value", AttrValue::Float(1.0)}});
    return g->Call("mul", {dy, g->Call("mul", {s, one_minus_s})});
  });
}

Status SqrtGrad(GradBuilder* g) {
  // 1 / (2 sqrt(x)).
  return UnaryGrad(g, [&](V dy) {
    return g->Call("div",
                   {dy, g->Call("scalar_mul", {g->output(0)}, {{"value", AttrValue::Float(2.0)}})});
  });
}

Status ReluGrad(GradBuilder* g) {
  return UnaryGrad(g, [&](V dy) { return g->Call("relu_grad", {g->output(0), dy}); });
}

Status CastGrad(GradBuilder* g) {
  // Only floating inputs need gradients (the autograd layer gives others none).
  return UnaryGrad(g, [&](V dy) {
    return g->Call("cast", {dy}, {{"dtype", AttrValue::OfDType(g->dtype(g->input(0)))}});
  });
}

Status AddNGrad(GradBuilder* g) {
  const V dy = g->output_grad(0);
  for (int i = 0; i < g->num_inputs(); ++i) {
    if (g->needs_input_grad(i)) g->SetInputGrad(i, dy);
  }
  return g->status();
}

Status GeluGrad(GradBuilder* g) {
  return UnaryGrad(g, [&](V dy) { return g->Call("gelu_grad", {g->input(0), dy}); });
}

Status AbsGrad(GradBuilder* g) {
  // sign(x) = [x == |x|] - [-x == |x|]: 1, -1, and 0 at x = 0 (both terms are 1), the
  // subgradient torch and numpy pick.
  return UnaryGrad(g, [&](V dy) {
    const V x = g->input(0);
    const V y = g->output(0);
    const V sign = g->Call(
        "sub", {g->Call("equal_mask", {x, y}), g->Call("equal_mask", {g->Call("neg", {x}), y})});
    return g->Call("mul", {dy, sign});
  });
}

Status PowGrad(GradBuilder* g) {
  // out = x^y: d/dx = y x^(y - 1); d/dy = x^y log(x) = out log(x), taken as 0 where
  // out is 0 (x = 0 with y > 0), as torch does, through xlogy.
  const V dy = g->output_grad(0);
  const V x = g->input(0);
  const V y = g->input(1);
  if (g->needs_input_grad(0)) {
    const V y_minus_1 = g->Call("scalar_add", {y}, {{"value", AttrValue::Float(-1.0)}});
    const V local = g->Call("mul", {y, g->Call("pow", {x, y_minus_1})});
    SetBroadcastGrad(g, 0, g->Call("mul", {dy, local}));
  }
  if (g->needs_input_grad(1)) {
    const Shape out = g->shape(g->output(0));
    const V scaled = g->Call("mul", {dy, g->output(0)});
    SetBroadcastGrad(g, 1, g->Call("xlogy", {scaled, BroadcastTo(g, x, out)}));
  }
  return g->status();
}

// maximum and minimum: out is x or y; the gradient goes to the input(s) equal to out,
// split evenly on a tie (x == y: half to each), so the rule is symmetric and the sum
// of both gradients is dy, as for the average of the two one-sided derivatives. A NaN
// in x or y makes out NaN, matching neither: both gradients are NaN there.
Status ExtremumGrad(GradBuilder* g) {
  const V dy = g->output_grad(0);
  const V out = g->output(0);
  const Shape shape = g->shape(out);
  const V mx = g->Call("equal_mask", {BroadcastTo(g, g->input(0), shape), out});
  const V my = g->Call("equal_mask", {BroadcastTo(g, g->input(1), shape), out});
  const V dx = g->Call("div", {g->Call("mul", {dy, mx}), g->Call("add", {mx, my})});
  SetBroadcastGrad(g, 0, dx);
  if (g->needs_input_grad(1)) SetBroadcastGrad(g, 1, g->Call("sub", {dy, dx}));
  return g->status();
}

// where(cond, x, y): dy goes to x where cond holds and to y elsewhere, each summed
// back to its input's shape. The zeros are a 0-d tensor that where broadcasts, so no
// full-size zeros are made; cond (bool) gets no gradient.
Status WhereGrad(GradBuilder* g) {
  const V dy = g->output_grad(0);
  const V cond = g->input(0);
  const V zero = g->Full(Shape{}, 0.0, dy);
  if (g->needs_input_grad(1)) SetBroadcastGrad(g, 1, g->Call("where", {cond, dy, zero}));
  if (g->needs_input_grad(2)) SetBroadcastGrad(g, 2, g->Call("where", {cond, zero, dy}));
  return g->status();
}

}  // namespace op
}  // namespace tessera
