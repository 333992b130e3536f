// Gradients of the reductions and the shape ops.
#include <algorithm>
#include <vector>

#include "core/op/grad.h"
#include "core/op/op_def.h"
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

// reduce_max / reduce_min: the gradient goes to the positions equal to the result,
// split evenly among ties (k equal extremes get dy / k each), as torch's amax/amin do;
// the sum over a group is dy either way. A group holding NaN has out NaN, which equals
// nothing: count 0 and a NaN gradient for the group.
Status ReduceExtremumGrad(GradBuilder* g) {
  if (!g->needs_input_grad(0)) return g->status();
  const V x = g->input(0);
  const Shape shape = g->shape(x);
  const std::vector<int64_t> axes = g->Ints("axes");
  const bool keepdims = g->Bool("keepdims");
  const V mask =
      g->Call("equal_mask", {x, g->ExpandFromReduced(g->output(0), shape, axes, keepdims)});
  const V count = g->Call("reduce_sum", {mask},
                          {{"axes", AttrValue::Ints(axes)}, {"keepdims", AttrValue::Bool(true)}});
  const V dy = g->ExpandFromReduced(g->output_grad(0), shape, axes, keepdims);
  g->SetInputGrad(0, g->Call("div", {g->Call("mul", {dy, mask}), count}));
  return g->status();
}

// concat: input k's gradient is its stretch of dy along the axis.
Status ConcatGrad(GradBuilder* g) {
  const V dy = g->output_grad(0);
  const Shape out = g->shape(dy);
  int64_t axis = g->Int("axis");
  if (axis < 0) axis += out.ndim();
  std::vector<int64_t> start(static_cast<size_t>(out.ndim()), 0);
  std::vector<int64_t> stop = out.ToVector();
  const std::vector<int64_t> step(static_cast<size_t>(out.ndim()), 1);
  int64_t offset = 0;
  for (int k = 0; k < g->num_inputs(); ++k) {
    const int64_t len = g->shape(g->input(k)).dim(static_cast<int>(axis));
    if (g->needs_input_grad(k)) {
      start[static_cast<size_t>(axis)] = offset;
      stop[static_cast<size_t>(axis)] = offset + len;
      g->SetInputGrad(k, g->Call("slice", {dy},
                                 {{"start", AttrValue::Ints(start)},
                                  {"stop", AttrValue::Ints(stop)},
                                  {"step", AttrValue::Ints(step)}}));
    }
    offset += len;
  }
  return g->status();
}

// slice: dy written back at the sliced positions of zeros (slice_grad), with start
// normalised as slice does (Python semantics: negative counts from the end, clamped
// into [0, dim]). An axis taken whole is marked -1 in slice_grad's shape, so a split
// of it carries over as in slice.
Status SliceGrad(GradBuilder* g) {
  if (!g->needs_input_grad(0)) return g->status();
  const Shape x = g->shape(g->input(0));
  const Shape out = g->shape(g->output(0));
  std::vector<int64_t> start = g->Ints("start");
  std::vector<int64_t> dims = x.ToVector();
  const std::vector<int64_t> step = g->Ints("step");
  for (int i = 0; i < x.ndim(); ++i) {
    const size_t k = static_cast<size_t>(i);
    if (start[k] < 0) start[k] += x.dim(i);
    start[k] = std::min(std::max<int64_t>(start[k], 0), x.dim(i));
    if (start[k] == 0 && step[k] == 1 && out.dim(i) == x.dim(i)) dims[k] = -1;
  }
  g->SetInputGrad(0, g->Call("slice_grad", {g->output_grad(0)},
                             {{"shape", AttrValue::Ints(dims)},
                              {"start", AttrValue::Ints(start)},
                              {"step", AttrValue::Ints(g->Ints("step"))}}));
  return g->status();
}

// expand: every copy of an input element adds its dy, so dy is summed over the
// expanded axes (numpy broadcasting, as for a broadcast binary op's input).
Status ExpandGrad(GradBuilder* g) {
  if (!g->needs_input_grad(0)) return g->status();
  g->SetInputGrad(0, g->SumToShape(g->output_grad(0), g->shape(g->input(0))));
  return g->status();
}

// cumsum: x[j] is in out[i] for every i >= j, so dx[j] = sum_{i >= j} dy[i], the
// reverse running sum. A flip is no op, so it is total - cumsum(dy) + dy (the sum up
// to j, dy[j] included, taken off the total and dy[j] put back).
Status CumsumGrad(GradBuilder* g) {
  if (!g->needs_input_grad(0)) return g->status();
  const V dy = g->output_grad(0);
  const int64_t axis = g->Int("axis");
  const V total = g->Call("reduce_sum", {dy},
                          {{"axes", AttrValue::Ints({axis})}, {"keepdims", AttrValue::Bool(true)}});
  const V before = g->Call("cumsum", {dy}, {{"axis", AttrValue::Int(axis)}});
  g->SetInputGrad(0, g->Call("add", {g->Call("sub", {total, before}), dy}));
  return g->status();
}

// var = sum((x - mean)^2) / (n - correction) over the reduced axes (n elements per
// group): d var / dx = 2 (x - mean) / (n - correction) (the mean's own derivative
// drops out, as sum(x - mean) = 0). std = sqrt(var): that over 2 std. n <= correction
// divides by zero or less, as the forward does (inf or NaN).
Status VarGrad(GradBuilder* g) {
  if (!g->needs_input_grad(0)) return g->status();
  const V x = g->input(0);
  const Shape shape = g->shape(x);
  const std::vector<int64_t> axes = g->Ints("axes");
  const bool keepdims = g->Bool("keepdims");
  const int64_t out_count = g->shape(g->output(0)).num_elements();
  const double n = out_count == 0 ? 1.0 : static_cast<double>(shape.num_elements()) / out_count;
  const V mean = g->Call("reduce_mean", {x},
                         {{"axes", AttrValue::Ints(axes)}, {"keepdims", AttrValue::Bool(true)}});
  const bool is_std = g->def().name() == "std";
  V scale = g->output_grad(0);
  if (is_std) scale = g->Call("div", {scale, g->output(0)});
  const double factor = (is_std ? 1.0 : 2.0) / (n - g->Int("correction"));
  const V dy = g->ExpandFromReduced(scale, shape, axes, keepdims);
  const V centered = g->Call("sub", {x, mean});
  g->SetInputGrad(0, g->Call("scalar_mul", {g->Call("mul", {dy, centered})},
                             {{"value", AttrValue::Float(factor)}}));
  return g->status();
}

}  // namespace op
}  // namespace tessera
