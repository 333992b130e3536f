// Gradients of the reductions and the shape ops.
#include "core/op/grad.h"
#include "core/op/ops/grad_rules.h"

namespace tessera {
namespace op {

using V = GradBuilder::Value;

Status ReduceSumGrad(GradBuilder* g) {
  if (!g->needs_input_grad(0)) return g->status();
  const Shape x = g->shape(g->input(0));
  g->SetInputGrad(0,
                  g->ExpandFromReduced(g->output_grad(0), x, g->Ints("axes"), g->Bool("keepdims")));
  return g->status();
}

Status ReduceMeanGrad(GradBuilder* g) {
  if (!g->needs_input_grad(0)) return g->status();
  const Shape x = g->shape(g->input(0));
  const Shape out = g->shape(g->output(0));
  // Elements per mean: the input's count over the output's (keepdims or not, the
  // kept axes are the same).
  const int64_t out_count = out.num_elements();
  const double count = out_count == 0 ? 1.0 : static_cast<double>(x.num_elements()) / out_count;
  const V expanded =
      g->ExpandFromReduced(g->output_grad(0), x, g->Ints("axes"), g->Bool("keepdims"));
  g->SetInputGrad(0, g->Call("scalar_mul", {expanded}, {{"value", AttrValue::Float(1.0 / count)}}));
  return g->status();
}

Status ReshapeGrad(GradBuilder* g) {
  if (!g->needs_input_grad(0)) return g->status();
  const Shape x = g->shape(g->input(0));
  g->SetInputGrad(
      0, g->Call("reshape", {g->output_grad(0)}, {{"shape", AttrValue::Ints(x.ToVector())}}));
  return g->status();
}

Status TransposeGrad(GradBuilder* g) {
  if (!g->needs_input_grad(0)) return g->status();
  const std::vector<int64_t> perm = g->Ints("perm");
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    const int64_t p = perm[i] < 0 ? perm[i] + static_cast<int64_t>(perm.size()) : perm[i];
    inverse[static_cast<size_t>(p)] = static_cast<int64_t>(i);
  }
  g->SetInputGrad(0,
                  g->Call("transpose", {g->output_grad(0)}, {{"perm", AttrValue::Ints(inverse)}}));
  return g->status();
}

}  // namespace op
}  // namespace tessera
