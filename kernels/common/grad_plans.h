// Argument checks and geometry of the scattering backward-only ops (gather_grad,
// slice_grad), shared by their CPU and CUDA kernels.
#ifndef TESSERA_KERNELS_COMMON_GRAD_PLANS_H_
#define TESSERA_KERNELS_COMMON_GRAD_PLANS_H_

#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/kernel/kernel.h"
#include "kernels/common/kernel_plans.h"

namespace tessera {
namespace kernels {

// gather_grad (attribute axis in [0, dout.ndim - indices.ndim]): dout as [pre, n, post] (n =
// |indices|), dx as [pre, size, post]; dx[o, indices[i], p] += dout[o, i, p].
struct ScatterPlan {
  int64_t pre = 1, n = 0, size = 0, post = 1;
};
Result<ScatterPlan> PlanGatherGrad(const KernelContext& ctx);
// gather's view of the same call (dx in the place of params), so an index out of
// range reads as gather's IndexError and the CUDA data check of gather.
GatherPlan AsGatherPlan(const ScatterPlan& plan, int axis);

// slice_grad (a shape entry -1: an axis taken whole, dout's dim): dout element k (multi-index over
// dout's dims) lands at dx offset offset + sum_i k_i * strides[i]; everything else of dx is zero.
struct SliceGradPlan {
  Shape dout;
  int64_t offset = 0;
  int64_t strides[Shape::kMaxDims] = {};
};
Result<SliceGradPlan> PlanSliceGrad(const KernelContext& ctx);

// sparse_softmax_cross_entropy_grad(prob, label, dout): prob [..., C], label and
// dout of prob's shape without the class axis.
Result<CrossEntropyPlan> PlanSparseSoftmaxXentGrad(const KernelContext& ctx);

// Two same-shape, same-dtype inputs and an output like them (relu_grad, gelu_grad,
// equal_mask, xlogy): the error names both inputs.
Status CheckSameShapePair(const KernelContext& ctx);

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_COMMON_GRAD_PLANS_H_
