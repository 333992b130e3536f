#include "kernels/common/axis_plans.h"

#include <string>

#include "kernels/common/kernel_args.h"

namespace tessera {
namespace kernels {

Result<AxisSplit> PlanArgmax(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  TESS_ASSIGN_OR_RETURN(const int64_t axis_attr, IntAttr(ctx, "axis"));
  TESS_ASSIGN_OR_RETURN(const bool keepdims, BoolAttr(ctx, "keepdims"));
  TESS_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, "axis", axis_attr, 0));
  int64_t dims[Shape::kMaxDims];
  int nd = 0;
  for (int i = 0; i < x.shape.ndim(); ++i) {
    if (i != axis) {
      dims[nd++] = x.shape.dim(i);
    } else if (keepdims) {
      dims[nd++] = 1;
    }
  }
  TESS_ASSIGN_OR_RETURN(const Shape out, Shape::Make(dims, static_cast<size_t>(nd)));
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, out, DType::kI64));
  const AxisSplit split = SplitAt(x.shape, axis);
  if (split.len == 0 && out.num_elements() > 0) {
    return KernelError(ctx, "input \"x\" " + x.shape.ToString() + " has no elements on axis " +
                                std::to_string(axis) + "; an empty axis has no argmax");
  }
  return split;
}

Result<AxisSplit> PlanCumsum(const KernelContext& ctx) {
  return PlanSoftmax(ctx);  // the same reading: attribute "axis", out like x
}

Result<VarPlan> PlanVar(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const int64_t correction, IntAttr(ctx, "correction"));
  if (correction < 0) {
    return KernelError(
        ctx, "attribute \"correction\" is " + std::to_string(correction) + "; it must be >= 0");
  }
  TESS_ASSIGN_OR_RETURN(const ReducePlan reduce, PlanReduce(ctx));
  const Shape& x = ctx.inputs[0].shape;
  int64_t strides[Shape::kMaxDims];
  ContiguousStrides(x, strides);
  VarPlan plan;
  plan.out_count = reduce.out.num_elements();
  plan.count = reduce.count;
  plan.divisor = static_cast<double>(reduce.count) - static_cast<double>(correction);
  for (int a = 0; a < x.ndim(); ++a) {
    if (reduce.reduced[a]) {
      plan.reduced_dims[plan.reduced] = x.dim(a);
      plan.reduced_strides[plan.reduced++] = strides[a];
    } else {
      plan.kept_dims[plan.kept] = x.dim(a);
      plan.kept_strides[plan.kept++] = strides[a];
    }
  }
  return plan;
}

Result<LossPlan> PlanLoss(const KernelContext& ctx) {
  const LocalTensor& scores = ctx.inputs[0];
  const LocalTensor& target = ctx.inputs[1];
  TESS_ASSIGN_OR_RETURN(const int64_t reduction, IntAttr(ctx, "reduction"));
  if (reduction < 0 || reduction > 2) {
    return KernelError(ctx, "attribute \"reduction\" is " + std::to_string(reduction) +
                                "; expected 0 (none), 1 (mean) or 2 (sum)");
  }
  if (scores.shape.ndim() != 2 || target.shape.ndim() != 1 ||
      target.shape.dim(0) != scores.shape.dim(0)) {
    return KernelError(ctx, "inputs \"" + InputName(ctx, 0) + "\" " + scores.shape.ToString() +
                                " and \"target\" " + target.shape.ToString() +
                                " must be [N, C] and [N]");
  }
  LossPlan plan;
  plan.rows = scores.shape.dim(0);
  plan.classes = scores.shape.dim(1);
  plan.reduction = reduction;
  if (reduction == 1) {
    const Shape* logical = ctx.logical_input_shapes;
    plan.divisor = static_cast<double>(logical != nullptr ? logical[0].dim(0) : plan.rows);
  }
  const Shape out = reduction == 0 ? Shape{plan.rows} : Shape{};
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, out, scores.dtype));
  return plan;
}

std::string TargetError(const char* scores_name, const Shape& scores, const Shape& target,
                        int64_t flat, int64_t value) {
  return "target" + IndexString(target, flat) + " = " + std::to_string(value) + " is outside [0, " +
         std::to_string(scores.dim(scores.ndim() - 1)) + "), the classes of \"" + scores_name +
         "\" " + scores.ToString();
}

}  // namespace kernels
}  // namespace tessera
