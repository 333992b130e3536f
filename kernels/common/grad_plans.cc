#include "kernels/common/grad_plans.h"

#include <string>
#include <vector>

#include "kernels/common/kernel_args.h"

namespace tessera {
namespace kernels {

Result<ScatterPlan> PlanGatherGrad(const KernelContext& ctx) {
  const LocalTensor& dout = ctx.inputs[0];
  const Shape& idx = ctx.inputs[1].shape;
  TESS_ASSIGN_OR_RETURN(const int64_t axis, IntAttr(ctx, "axis"));
  TESS_ASSIGN_OR_RETURN(const int64_t size, IntAttr(ctx, "size"));
  const Shape& d = dout.shape;
  if (axis < 0 || axis + idx.ndim() > d.ndim() || size < 0) {
    return KernelError(ctx, "attributes axis " + std::to_string(axis) + " and size " +
                                std::to_string(size) + " do not fit \"dout\" " + d.ToString() +
                                " and \"indices\" " + idx.ToString());
  }
  const int ax = static_cast<int>(axis);
  ScatterPlan plan;
  plan.size = size;
  plan.n = idx.num_elements();
  int64_t dims[Shape::kMaxDims];
  int nd = 0;
  for (int i = 0; i < ax; ++i) {
    dims[nd++] = d.dim(i);
    plan.pre *= d.dim(i);
  }
  dims[nd++] = size;
  for (int k = 0; k < idx.ndim(); ++k) {
    if (d.dim(ax + k) != idx.dim(k)) {
      return KernelError(ctx, "input \"dout\" " + d.ToString() + " does not hold \"indices\" " +
                                  idx.ToString() + " at axis " + std::to_string(axis));
    }
  }
  for (int i = ax + idx.ndim(); i < d.ndim(); ++i) {
    dims[nd++] = d.dim(i);
    plan.post *= d.dim(i);
  }
  TESS_ASSIGN_OR_RETURN(const Shape out, Shape::Make(dims, static_cast<size_t>(nd)));
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, out, dout.dtype));
  return plan;
}

GatherPlan AsGatherPlan(const ScatterPlan& plan, int axis) {
  GatherPlan g;
  g.axis = axis;
  g.pre = plan.pre;
  g.axis_size = plan.size;
  g.post = plan.post;
  return g;
}

Result<SliceGradPlan> PlanSliceGrad(const KernelContext& ctx) {
  const Shape& d = ctx.inputs[0].shape;
  TESS_ASSIGN_OR_RETURN(const std::vector<int64_t>* shape, IntsAttr(ctx, "shape"));
  TESS_ASSIGN_OR_RETURN(const std::vector<int64_t>* start, IntsAttr(ctx, "start"));
  TESS_ASSIGN_OR_RETURN(const std::vector<int64_t>* step, IntsAttr(ctx, "step"));
  const size_t nd = static_cast<size_t>(d.ndim());
  if (shape->size() != nd || start->size() != nd || step->size() != nd) {
    return KernelError(ctx, "attributes shape, start and step need " + std::to_string(nd) +
                                " entries each (the axes of \"dout\" " + d.ToString() + ")");
  }
  // -1: an axis taken whole, of dout's (local) dim.
  int64_t dims[Shape::kMaxDims];
  for (size_t i = 0; i < nd; ++i)
    dims[i] = (*shape)[i] == -1 ? d.dim(static_cast<int>(i)) : (*shape)[i];
  TESS_ASSIGN_OR_RETURN(const Shape out, Shape::Make(dims, nd));
  SliceGradPlan plan;
  plan.dout = d;
  int64_t stride = 1;
  for (int i = d.ndim() - 1; i >= 0; --i) {
    const int64_t s = (*start)[i], st = (*step)[i], n = d.dim(i), dim = out.dim(i);
    // The last position written, s + (n - 1) * st, must lie inside the axis.
    if (st < 1 || s < 0 || s > dim || (n > 0 && (s >= dim || n - 1 > (dim - 1 - s) / st)) ||
        ((*shape)[i] == -1 && (s != 0 || st != 1))) {
      return KernelError(ctx, "input \"dout\" " + d.ToString() + " does not fit shape " +
                                  out.ToString() + " at axis " + std::to_string(i) +
                                  " with start " + std::to_string(s) + " and step " +
                                  std::to_string(st));
    }
    plan.offset += s * stride;
    plan.strides[i] = st * stride;
    stride *= dim;
  }
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, out, ctx.inputs[0].dtype));
  return plan;
}

Result<CrossEntropyPlan> PlanSparseSoftmaxXentGrad(const KernelContext& ctx) {
  const LocalTensor& prob = ctx.inputs[0];
  const int nd = prob.shape.ndim();
  if (nd < 1) {
    return KernelError(ctx, "input \"prob\" has shape " + prob.shape.ToString() +
                                "; expected at least 1 dim (the class axis)");
  }
  CrossEntropyPlan plan;
  TESS_ASSIGN_OR_RETURN(plan.batch, Shape::Make(prob.shape.data(), static_cast<size_t>(nd - 1)));
  for (int i : {1, 2}) {
    if (ctx.inputs[i].shape != plan.batch) {
      return KernelError(ctx, std::string("input \"") + (i == 1 ? "label" : "dout") +
                                  "\" has shape " + ctx.inputs[i].shape.ToString() +
                                  " but \"prob\" " + prob.shape.ToString() + " needs " +
                                  plan.batch.ToString());
    }
  }
  TESS_RETURN_IF_ERROR(ExpectDType(ctx, 2, prob.dtype, "prob"));
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, prob.shape, prob.dtype));
  plan.rows = plan.batch.num_elements();
  plan.classes = prob.shape.dim(nd - 1);
  return plan;
}

Status CheckSameShapePair(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  const LocalTensor& y = ctx.inputs[1];
  if (y.shape != x.shape || y.dtype != x.dtype) {
    return KernelError(ctx, "input \"" + InputName(ctx, 1) + "\" is " + y.shape.ToString() + " " +
                                DTypeName(y.dtype) + " but \"" + InputName(ctx, 0) + "\" is " +
                                x.shape.ToString() + " " + DTypeName(x.dtype));
  }
  return ExpectOutput(ctx, 0, x.shape, x.dtype);
}

}  // namespace kernels
}  // namespace tessera
