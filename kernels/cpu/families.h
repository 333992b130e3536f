// Internal to the CPU kernels: each family's registration function and the dtype
// dispatch that names the cpu kernel in its errors.
#ifndef TESSERA_KERNELS_CPU_FAMILIES_H_
#define TESSERA_KERNELS_CPU_FAMILIES_H_

#include <utility>

#include "core/common/status.h"
#include "core/kernel/kernel.h"
#include "core/kernel/kernel_registry.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/kernel_args.h"
#include "kernels/common/kernel_family.h"

namespace tessera {
namespace kernels {
namespace cpu {

// Calls fn(Type<T>{}) for the dtype of input `input_slot`, or names the op, the input
// and the dtype when the kernel does not support it.
template <DTypeSet kSet, typename Fn>
Status Dispatch(const KernelContext& ctx, int input_slot, Fn&& fn) {
  return DispatchOn<Device::kCpu, kSet>(ctx, input_slot, std::forward<Fn>(fn));
}

Status RegisterElementwiseKernels(KernelRegistry* registry);  // unary, scalar, binary, ...
Status RegisterMatmulKernels(KernelRegistry* registry);       // matmul, batch_matmul
Status RegisterReduceKernels(KernelRegistry* registry);       // reduce_*
Status RegisterSoftmaxKernels(KernelRegistry* registry);      // softmax, log_softmax, sparse x-ent
Status RegisterNnKernels(KernelRegistry* registry);           // layer_norm, bias_add
Status RegisterShapeKernels(KernelRegistry* registry);        // transpose, reshape, concat, slice
Status RegisterGatherKernels(KernelRegistry* registry);       // gather, embedding
Status RegisterGradKernels(KernelRegistry* registry);         // the backward-only ops
Status RegisterShapeKernels(KernelRegistry* registry);   // transpose, reshape, concat, slice, views
Status RegisterGatherKernels(KernelRegistry* registry);  // gather, embedding
Status RegisterCompareKernels(KernelRegistry* registry);  // equal, less, ..., where
Status RegisterAxisKernels(KernelRegistry* registry);     // argmax, cumsum, var, std
Status RegisterLossKernels(KernelRegistry* registry);     // nll_loss, cross_entropy
Status RegisterOptimKernels(KernelRegistry* registry);    // sgd_update, adam_update

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_CPU_FAMILIES_H_
