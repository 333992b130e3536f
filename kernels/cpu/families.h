// Internal to the CPU kernels: each family's registration function and the wrapper that
// puts the common entry check in front of every kernel.
#ifndef TESSERA_KERNELS_CPU_FAMILIES_H_
#define TESSERA_KERNELS_CPU_FAMILIES_H_

#include <cstddef>

#include "core/common/status.h"
#include "kernels/common/kernel.h"
#include "kernels/common/kernel_args.h"
#include "kernels/common/kernel_registry.h"

namespace tessera {
namespace kernels {
namespace cpu {

// A kernel body may index ctx.inputs/outputs by the def's slots and touch storage of
// any tensor with elements: CheckKernelCall has vouched for both.
template <Status (*Body)(const KernelContext&)>
Status Checked(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(CheckKernelCall(ctx));
  return Body(ctx);
}

// Typed views of a call's storage (null for an empty tensor).
template <typename T>
const T* In(const KernelContext& ctx, int slot) {
  return static_cast<const T*>(ctx.inputs[slot].data);
}
template <typename T>
T* Out(const KernelContext& ctx, int slot) {
  return static_cast<T*>(ctx.outputs[slot].data);
}

struct KernelEntry {
  const char* op_name;
  KernelFn fn;
};

// Registers each entry for Device::kCpu.
template <size_t N>
Status RegisterAll(KernelRegistry* registry, const KernelEntry (&entries)[N]) {
  for (const KernelEntry& e : entries) {
    TESS_RETURN_IF_ERROR(registry->Register(e.op_name, Device::kCpu, e.fn));
  }
  return Status::Ok();
}

Status RegisterElementwiseKernels(KernelRegistry* registry);  // unary, scalar, binary, ...
Status RegisterMatmulKernels(KernelRegistry* registry);       // matmul, batch_matmul
Status RegisterReduceKernels(KernelRegistry* registry);       // reduce_*
Status RegisterSoftmaxKernels(KernelRegistry* registry);      // softmax, log_softmax, sparse x-ent
Status RegisterNnKernels(KernelRegistry* registry);           // layer_norm, bias_add
Status RegisterShapeKernels(KernelRegistry* registry);        // transpose, reshape, concat, slice
Status RegisterGatherKernels(KernelRegistry* registry);       // gather, embedding

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_CPU_FAMILIES_H_
