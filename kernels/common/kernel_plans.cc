#include "kernels/common/kernel_plans.h"

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/kernel_args.h"

namespace tessera {
namespace kernels {
namespace {

// "indices[0,1] = 7 is outside [0, 4), <what>".
std::string OutsideRange(const char* arg, const Shape& shape, int64_t flat, int64_t value,
                         int64_t bound, const std::string& what) {
  return arg + IndexString(shape, flat) + " = " + std::to_string(value) + " is outside [0, " +
         std::to_string(bound) + "), " + what;
}

// Strides of `operand` right-aligned against `out`: 0 where it is broadcast.
void BroadcastStrides(const Shape& operand, const Shape& out, int64_t* strides) {
  int64_t own[Shape::kMaxDims];
  ContiguousStrides(operand, own);
  const int shift = out.ndim() - operand.ndim();
  for (int i = 0; i < out.ndim(); ++i) {
    const int j = i - shift;
    strides[i] = (j >= 0 && operand.dim(j) != 1) ? own[j] : 0;
  }
}

}  // namespace

// ---- elementwise ----

Result<DType> PlanCast(const KernelContext& ctx, Device device) {
  TESS_ASSIGN_OR_RETURN(const DType to, DTypeAttr(ctx, "dtype"));
  if (!InSet(to, DTypeSet::kAll)) {
    return KernelError(ctx, std::string("attribute \"dtype\" is ") + DTypeName(to) + "; the " +
                                DeviceTypeName(device) + " kernel supports " +
                                SetNames(DTypeSet::kAll));
  }
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, ctx.inputs[0].shape, to));
  return to;
}

Status PlanAddN(const KernelContext& ctx) {
  const LocalTensor& first = ctx.inputs[0];
  for (int k = 1; k < ctx.num_inputs; ++k) {
    TESS_RETURN_IF_ERROR(ExpectDType(ctx, k, first.dtype, "in[0]"));
    if (ctx.inputs[k].shape != first.shape) {
      return KernelError(ctx, "input \"" + InputName(ctx, k) + "\" has shape " +
                                  ctx.inputs[k].shape.ToString() + " but \"in[0]\" has " +
                                  first.shape.ToString() + "; add_n does not broadcast");
    }
  }
  return ExpectOutput(ctx, 0, first.shape, first.dtype);
}

Status PlanBroadcast(const KernelContext& ctx, BroadcastPlan* plan) {
  return PlanBroadcast(ctx, ctx.inputs[0].dtype, plan);
}

Status PlanBroadcast(const KernelContext& ctx, DType out_dtype, BroadcastPlan* plan) {
  const Shape& x = ctx.inputs[0].shape;
  const Shape& y = ctx.inputs[1].shape;
  TESS_RETURN_IF_ERROR(ExpectDType(ctx, 1, ctx.inputs[0].dtype, "x"));
  const int nd = x.ndim() > y.ndim() ? x.ndim() : y.ndim();
  plan->out = x.ndim() >= y.ndim() ? x : y;
  for (int i = 0; i < nd; ++i) {
    const int ix = i - (nd - x.ndim());
    const int iy = i - (nd - y.ndim());
    const int64_t dx = ix >= 0 ? x.dim(ix) : 1;
    const int64_t dy = iy >= 0 ? y.dim(iy) : 1;
    if (dx != dy && dx != 1 && dy != 1) {
      return KernelError(ctx, "inputs \"x\" " + x.ToString() + " and \"y\" " + y.ToString() +
                                  " do not broadcast: output axis " + std::to_string(i) + " has " +
                                  std::to_string(dx) + " in x and " + std::to_string(dy) + " in y");
    }
    plan->out.set_dim(i, dx == 1 ? dy : dx);
  }
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, plan->out, out_dtype));
  plan->same_shapes = x == y;
  BroadcastStrides(x, plan->out, plan->strides[0]);
  BroadcastStrides(y, plan->out, plan->strides[1]);
  ContiguousStrides(plan->out, plan->strides[2]);
  return Status::Ok();
}

Result<WherePlan> PlanWhere(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(ExpectDType(ctx, 0, DType::kBool, ""));
  TESS_RETURN_IF_ERROR(ExpectDType(ctx, 2, ctx.inputs[1].dtype, "x"));
  int nd = 0;
  for (int k = 0; k < 3; ++k) nd = std::max(nd, ctx.inputs[k].shape.ndim());
  WherePlan plan;
  for (int k = 0; k < 3; ++k) {
    if (ctx.inputs[k].shape.ndim() == nd) plan.out = ctx.inputs[k].shape;
  }
  for (int i = 0; i < nd; ++i) {
    int from = -1;  // the first input with a dim != 1 on axis i
    int64_t d = 1;
    for (int k = 0; k < 3; ++k) {
      const Shape& s = ctx.inputs[k].shape;
      const int j = i - (nd - s.ndim());
      const int64_t dk = j >= 0 ? s.dim(j) : 1;
      if (dk == 1) continue;
      if (from >= 0 && dk != d) {
        return KernelError(ctx, "inputs \"" + InputName(ctx, from) + "\" " +
                                    ctx.inputs[from].shape.ToString() + " and \"" +
                                    InputName(ctx, k) + "\" " + s.ToString() +
                                    " do not broadcast: output axis " + std::to_string(i));
      }
      from = k;
      d = dk;
    }
    plan.out.set_dim(i, d);
  }
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, plan.out, ctx.inputs[1].dtype));
  for (int k = 0; k < 3; ++k) BroadcastStrides(ctx.inputs[k].shape, plan.out, plan.strides[k]);
  ContiguousStrides(plan.out, plan.strides[3]);
  return plan;
}

// ---- matmul ----

Result<MatmulPlan> PlanMatmul(const KernelContext& ctx, bool batched) {
  const LocalTensor& a = ctx.inputs[0];
  const LocalTensor& b = ctx.inputs[1];
  TESS_RETURN_IF_ERROR(ExpectDType(ctx, 1, a.dtype, "a"));
  TESS_ASSIGN_OR_RETURN(const bool ta, BoolAttr(ctx, "transpose_a"));
  TESS_ASSIGN_OR_RETURN(const bool tb, BoolAttr(ctx, "transpose_b"));
  const int nd = a.shape.ndim();
  const bool ranks_ok = batched ? nd >= 3 && b.shape.ndim() == nd : nd >= 2 && b.shape.ndim() == 2;
  if (!ranks_ok) {
    return KernelError(
        ctx, "inputs \"a\" " + a.shape.ToString() + " and \"b\" " + b.shape.ToString() + " must " +
                 (batched ? "both have the same rank, at least 3" : "have rank >= 2 and rank 2"));
  }
  const int bd = b.shape.ndim();
  MatmulPlan d{1, 0, 0, 0, ta, tb, 0};
  Shape out = a.shape;
  for (int i = 0; i < nd - 2; ++i) {
    if (batched && a.shape.dim(i) != b.shape.dim(i)) {
      return KernelError(ctx, "input \"b\" has shape " + b.shape.ToString() + " but \"a\" has " +
                                  a.shape.ToString() + ": batch axis " + std::to_string(i) +
                                  " differs");
    }
    d.batch *= a.shape.dim(i);
  }
  d.m = a.shape.dim(ta ? nd - 1 : nd - 2);
  d.k = a.shape.dim(ta ? nd - 2 : nd - 1);
  const int64_t kb = b.shape.dim(tb ? bd - 1 : bd - 2);
  d.n = b.shape.dim(tb ? bd - 2 : bd - 1);
  if (kb != d.k) {
    return KernelError(
        ctx, "input \"b\" has shape " + b.shape.ToString() + (tb ? " (transpose_b)" : "") +
                 " with " + std::to_string(kb) + " rows but \"a\" " + a.shape.ToString() +
                 (ta ? " (transpose_a)" : "") + " has " + std::to_string(d.k) + " columns");
  }
  out.set_dim(nd - 2, d.m);
  out.set_dim(nd - 1, d.n);
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, out, a.dtype));
  if (batched) {
    d.b_stride = d.k * d.n;
  } else if (!ta) {
    // a's leading axes and its rows are one block of batch * m contiguous rows.
    d.m *= d.batch;
    d.batch = 1;
  }
  return d;
}

// ---- reductions ----

Result<ReducePlan> PlanReduce(const KernelContext& ctx) {
  const Shape& x = ctx.inputs[0].shape;
  TESS_ASSIGN_OR_RETURN(const std::vector<int64_t>* axes, IntsAttr(ctx, "axes"));
  TESS_ASSIGN_OR_RETURN(const bool keepdims, BoolAttr(ctx, "keepdims"));
  ReducePlan plan;
  for (int i = 0; i < x.ndim(); ++i) plan.reduced[i] = axes->empty();
  for (int64_t a : *axes) {
    TESS_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, "axes", a, 0));
    if (plan.reduced[axis]) {
      return KernelError(ctx, "attribute \"axes\" names axis " + std::to_string(axis) + " twice");
    }
    plan.reduced[axis] = true;
  }
  int64_t dims[Shape::kMaxDims];
  int nd = 0;
  for (int i = 0; i < x.ndim(); ++i) {
    if (plan.reduced[i]) plan.count *= x.dim(i);
    if (!plan.reduced[i]) {
      dims[nd++] = x.dim(i);
    } else if (keepdims) {
      dims[nd++] = 1;
    }
  }
  TESS_ASSIGN_OR_RETURN(plan.out, Shape::Make(dims, static_cast<size_t>(nd)));
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, plan.out, ctx.inputs[0].dtype));
  return plan;
}

// ---- along one axis ----

AxisSplit SplitAt(const Shape& shape, int axis) {
  AxisSplit s;
  s.axis = axis;
  for (int i = 0; i < axis; ++i) s.outer *= shape.dim(i);
  s.len = shape.dim(axis);
  for (int i = axis + 1; i < shape.ndim(); ++i) s.inner *= shape.dim(i);
  return s;
}

Result<AxisSplit> PlanSoftmax(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, x.shape, x.dtype));
  TESS_ASSIGN_OR_RETURN(const int64_t axis_attr, IntAttr(ctx, "axis"));
  TESS_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, "axis", axis_attr, 0));
  return SplitAt(x.shape, axis);
}

Result<AxisSplit> PlanBiasAdd(const KernelContext& ctx) {
  const LocalTensor& a = ctx.inputs[0];
  const LocalTensor& b = ctx.inputs[1];
  TESS_RETURN_IF_ERROR(ExpectDType(ctx, 1, a.dtype, "a"));
  TESS_ASSIGN_OR_RETURN(const int64_t axis_attr, IntAttr(ctx, "axis"));
  TESS_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, "axis", axis_attr, 0));
  const int64_t len = a.shape.dim(axis);
  if (b.shape.ndim() != 1 || b.shape.dim(0) != len) {
    return KernelError(ctx, "input \"b\" has shape " + b.shape.ToString() + " but \"a\" " +
                                a.shape.ToString() + " needs [" + std::to_string(len) +
                                "] (its axis " + std::to_string(axis) + ")");
  }
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, a.shape, a.dtype));
  return SplitAt(a.shape, axis);
}

Result<CrossEntropyPlan> PlanSparseSoftmaxCrossEntropy(const KernelContext& ctx) {
  const LocalTensor& pred = ctx.inputs[0];
  const LocalTensor& label = ctx.inputs[1];
  const int nd = pred.shape.ndim();
  if (nd < 1) {
    return KernelError(ctx, "input \"prediction\" has shape " + pred.shape.ToString() +
                                "; expected at least 1 dim (the class axis)");
  }
  CrossEntropyPlan plan;
  TESS_ASSIGN_OR_RETURN(plan.batch, Shape::Make(pred.shape.data(), static_cast<size_t>(nd - 1)));
  if (label.shape != plan.batch) {
    return KernelError(ctx, "input \"label\" has shape " + label.shape.ToString() +
                                " but \"prediction\" " + pred.shape.ToString() + " needs " +
                                plan.batch.ToString() + " (all but the class axis)");
  }
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, pred.shape, pred.dtype));
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 1, plan.batch, pred.dtype));
  plan.rows = plan.batch.num_elements();
  plan.classes = pred.shape.dim(nd - 1);
  return plan;
}

std::string LabelError(const Shape& prediction, const Shape& batch, int64_t flat, int64_t label) {
  return OutsideRange("label", batch, flat, label, prediction.dim(prediction.ndim() - 1),
                      "the classes of \"prediction\" " + prediction.ToString());
}

Result<LayerNormPlan> PlanLayerNorm(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  const int nd = x.shape.ndim();
  if (nd < 1) {
    return KernelError(ctx,
                       "input \"x\" has shape " + x.shape.ToString() + "; expected at least 1 dim");
  }
  TESS_ASSIGN_OR_RETURN(const int64_t norm_attr, IntAttr(ctx, "begin_norm_axis"));
  TESS_ASSIGN_OR_RETURN(const int64_t params_attr, IntAttr(ctx, "begin_params_axis"));
  TESS_ASSIGN_OR_RETURN(const int norm, NormalizeAxis(ctx, "begin_norm_axis", norm_attr, 0));
  TESS_ASSIGN_OR_RETURN(const int params, NormalizeAxis(ctx, "begin_params_axis", params_attr, 0));
  LayerNormPlan plan;
  TESS_ASSIGN_OR_RETURN(plan.epsilon, FloatAttr(ctx, "epsilon"));
  TESS_ASSIGN_OR_RETURN(const Shape param_shape,
                        Shape::Make(x.shape.data() + params, static_cast<size_t>(nd - params)));
  for (int slot : {1, 2}) {
    TESS_RETURN_IF_ERROR(ExpectDType(ctx, slot, x.dtype, "x"));
    if (ctx.inputs[slot].shape != param_shape) {
      return KernelError(ctx, "input \"" + InputName(ctx, slot) + "\" has shape " +
                                  ctx.inputs[slot].shape.ToString() + " but input \"x\" " +
                                  x.shape.ToString() + " with begin_params_axis " +
                                  std::to_string(params) + " needs " + param_shape.ToString());
    }
  }
  TESS_ASSIGN_OR_RETURN(const Shape stats, Shape::Make(x.shape.data(), static_cast<size_t>(norm)));
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, x.shape, x.dtype));
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 1, stats, x.dtype));
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 2, stats, x.dtype));
  plan.rows = stats.num_elements();
  for (int i = norm; i < nd; ++i) plan.cols *= x.shape.dim(i);
  plan.params = param_shape.num_elements();
  return plan;
}

// ---- moving elements ----

void ContiguousStrides(const Shape& shape, int64_t* strides) {
  int64_t s = 1;
  for (int i = shape.ndim() - 1; i >= 0; --i) {
    strides[i] = s;
    s *= shape.dim(i);
  }
}

Result<StridedCopyPlan> PlanTranspose(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  TESS_ASSIGN_OR_RETURN(const std::vector<int64_t>* perm, IntsAttr(ctx, "perm"));
  const int nd = x.shape.ndim();
  bool ok = static_cast<int>(perm->size()) == nd;
  bool seen[Shape::kMaxDims] = {};
  for (int i = 0; ok && i < nd; ++i) {
    const int64_t p = (*perm)[i];
    ok = p >= 0 && p < nd && !seen[p];
    if (ok) seen[p] = true;
  }
  if (!ok) {
    std::string p;
    for (size_t i = 0; i < perm->size(); ++i) p += (i ? "," : "") + std::to_string((*perm)[i]);
    return KernelError(ctx, "attribute \"perm\" [" + p + "] is not a permutation of the " +
                                std::to_string(nd) + " axes of input \"x\" " + x.shape.ToString());
  }
  int64_t x_strides[Shape::kMaxDims];
  ContiguousStrides(x.shape, x_strides);
  StridedCopyPlan plan;
  plan.out = x.shape;
  for (int i = 0; i < nd; ++i) {
    plan.out.set_dim(i, x.shape.dim(static_cast<int>((*perm)[i])));
    plan.strides[0][i] = x_strides[(*perm)[i]];
  }
  ContiguousStrides(plan.out, plan.strides[1]);
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, plan.out, x.dtype));
  return plan;
}

Result<StridedCopyPlan> PlanSlice(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  const int nd = x.shape.ndim();
  const std::vector<int64_t>* attrs[3];
  const char* names[3] = {"start", "stop", "step"};
  for (int i = 0; i < 3; ++i) {
    TESS_ASSIGN_OR_RETURN(attrs[i], IntsAttr(ctx, names[i]));
    if (static_cast<int>(attrs[i]->size()) != nd) {
      return KernelError(ctx, "attribute \"" + std::string(names[i]) + "\" has " +
                                  std::to_string(attrs[i]->size()) +
                                  " entries but input \"x\" has shape " + x.shape.ToString() +
                                  " (" + std::to_string(nd) + " axes)");
    }
  }
  int64_t x_strides[Shape::kMaxDims];
  ContiguousStrides(x.shape, x_strides);
  StridedCopyPlan plan;
  plan.out = x.shape;
  for (int i = 0; i < nd; ++i) {
    const int64_t d = x.shape.dim(i);
    const int64_t step = (*attrs[2])[i];
    if (step < 1) {
      return KernelError(ctx, "attribute \"step\" has " + std::to_string(step) + " at axis " +
                                  std::to_string(i) + "; steps must be >= 1");
    }
    // The shape function's Python semantics: negative positions count from the end,
    // then clamp into [0, d].
    auto clamp = [d](int64_t v) {
      if (v < 0) v += d;
      return v < 0 ? 0 : (v > d ? d : v);
    };
    const int64_t start = clamp((*attrs[0])[i]);
    const int64_t stop = clamp((*attrs[1])[i]);
    plan.out.set_dim(i, stop > start ? (stop - start + step - 1) / step : 0);
    plan.strides[0][i] = x_strides[i] * step;
    plan.offset += start * x_strides[i];
  }
  ContiguousStrides(plan.out, plan.strides[1]);
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, plan.out, x.dtype));
  return plan;
}

Status PlanReshape(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  const LocalTensor& out = ctx.outputs[0];
  if (out.dtype != x.dtype || out.shape.num_elements() != x.shape.num_elements()) {
    return KernelError(
        ctx, "output \"out\" is " + out.shape.ToString() + " " + DTypeName(out.dtype) + " (" +
                 std::to_string(out.shape.num_elements()) + " elements) but input \"x\" is " +
                 x.shape.ToString() + " " + DTypeName(x.dtype) + " (" +
                 std::to_string(x.shape.num_elements()) + " elements)");
  }
  return Status::Ok();
}

Result<StridedCopyPlan> PlanExpand(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  const LocalTensor& out = ctx.outputs[0];
  const int shift = out.shape.ndim() - x.shape.ndim();
  bool ok = out.dtype == x.dtype && shift >= 0;
  for (int j = 0; ok && j < x.shape.ndim(); ++j) {
    ok = x.shape.dim(j) == 1 || x.shape.dim(j) == out.shape.dim(j + shift);
  }
  if (!ok) {
    return KernelError(ctx, "output \"out\" is " + out.shape.ToString() + " " +
                                DTypeName(out.dtype) + " but input \"x\" " + x.shape.ToString() +
                                " " + DTypeName(x.dtype) + " does not broadcast to it");
  }
  StridedCopyPlan plan;
  plan.out = out.shape;
  BroadcastStrides(x.shape, out.shape, plan.strides[0]);
  ContiguousStrides(out.shape, plan.strides[1]);
  return plan;
}

Result<ConcatPlan> PlanConcat(const KernelContext& ctx) {
  const LocalTensor& first = ctx.inputs[0];
  TESS_ASSIGN_OR_RETURN(const int64_t axis_attr, IntAttr(ctx, "axis"));
  TESS_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, "axis", axis_attr, 0));
  ConcatPlan plan;
  plan.out = first.shape;
  int64_t total = 0;
  for (int k = 0; k < ctx.num_inputs; ++k) {
    const LocalTensor& in = ctx.inputs[k];
    TESS_RETURN_IF_ERROR(ExpectDType(ctx, k, first.dtype, "in[0]"));
    bool ok = in.shape.ndim() == first.shape.ndim();
    for (int i = 0; ok && i < first.shape.ndim(); ++i) {
      ok = i == axis || in.shape.dim(i) == first.shape.dim(i);
    }
    if (!ok) {
      return KernelError(ctx, "input \"" + InputName(ctx, k) + "\" has shape " +
                                  in.shape.ToString() + " but \"in[0]\" has " +
                                  first.shape.ToString() + "; shapes must match except on axis " +
                                  std::to_string(axis));
    }
    total += in.shape.dim(axis);
  }
  plan.out.set_dim(axis, total);
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, plan.out, first.dtype));
  const AxisSplit split = SplitAt(plan.out, axis);
  plan.axis = axis;
  plan.outer = split.outer;
  plan.inner = split.inner;
  return plan;
}

// ---- gather, embedding ----

Result<GatherPlan> PlanGather(const KernelContext& ctx) {
  const LocalTensor& params = ctx.inputs[0];
  const Shape& idx = ctx.inputs[1].shape;
  TESS_ASSIGN_OR_RETURN(const int64_t axis_attr, IntAttr(ctx, "axis"));
  TESS_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, "axis", axis_attr, 0));
  const Shape& ps = params.shape;
  int64_t dims[Shape::kMaxDims];
  int nd = 0;
  GatherPlan plan;
  plan.axis = axis;
  // params[:axis] + indices.shape + params[axis+1:], bounded by Shape::kMaxDims.
  const int out_ndim = ps.ndim() - 1 + idx.ndim();
  if (out_ndim > Shape::kMaxDims) {
    return KernelError(ctx, "output rank " + std::to_string(out_ndim) + " of params " +
                                ps.ToString() + " and indices " + idx.ToString() + " exceeds " +
                                std::to_string(Shape::kMaxDims));
  }
  for (int i = 0; i < axis; ++i) {
    dims[nd++] = ps.dim(i);
    plan.pre *= ps.dim(i);
  }
  for (int i = 0; i < idx.ndim(); ++i) dims[nd++] = idx.dim(i);
  for (int i = axis + 1; i < ps.ndim(); ++i) {
    dims[nd++] = ps.dim(i);
    plan.post *= ps.dim(i);
  }
  plan.axis_size = ps.dim(axis);
  TESS_ASSIGN_OR_RETURN(const Shape out, Shape::Make(dims, static_cast<size_t>(nd)));
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, out, params.dtype));
  return plan;
}

Result<GatherPlan> PlanEmbedding(const KernelContext& ctx) {
  const LocalTensor& weight = ctx.inputs[0];
  const Shape& idx = ctx.inputs[1].shape;
  if (weight.shape.ndim() != 2) {
    return KernelError(
        ctx, "input \"weight\" has shape " + weight.shape.ToString() + "; expected 2 dims [V, D]");
  }
  if (idx.ndim() + 1 > Shape::kMaxDims) {
    return KernelError(ctx, "output rank " + std::to_string(idx.ndim() + 1) + " of indices " +
                                idx.ToString() + " exceeds " + std::to_string(Shape::kMaxDims));
  }
  int64_t dims[Shape::kMaxDims];
  for (int i = 0; i < idx.ndim(); ++i) dims[i] = idx.dim(i);
  dims[idx.ndim()] = weight.shape.dim(1);
  TESS_ASSIGN_OR_RETURN(const Shape out, Shape::Make(dims, static_cast<size_t>(idx.ndim() + 1)));
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, out, weight.dtype));
  GatherPlan plan;
  plan.axis = -1;
  plan.axis_size = weight.shape.dim(0);
  plan.post = weight.shape.dim(1);
  return plan;
}

std::string IndexError(const GatherPlan& plan, const Shape& data, const Shape& indices,
                       int64_t flat, int64_t index) {
  const std::string what =
      plan.axis < 0 ? "the rows of \"weight\" " + data.ToString()
                    : "axis " + std::to_string(plan.axis) + " of \"params\" " + data.ToString();
  return OutsideRange("indices", indices, flat, index, plan.axis_size, what);
}

std::string ZeroDivisorError(const Shape& y, int64_t flat) {
  return "input \"y\" has 0 at " + IndexString(y, flat) + "; integer division by zero";
}

}  // namespace kernels
}  // namespace tessera
