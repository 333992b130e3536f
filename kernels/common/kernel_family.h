// What every device's kernel families share: the wrapper that puts the common entry
// check in front of a kernel body, typed views of a call's storage, and registration of
// a family's table of kernels.
#ifndef TESSERA_KERNELS_COMMON_KERNEL_FAMILY_H_
#define TESSERA_KERNELS_COMMON_KERNEL_FAMILY_H_

#include <cstddef>

#include "core/common/status.h"
#include "core/kernel/kernel.h"
#include "core/kernel/kernel_registry.h"
#include "kernels/common/kernel_args.h"

namespace tessera {
namespace kernels {

// A kernel body may index ctx.inputs/outputs by the def's slots and touch storage of
// any tensor with elements: CheckKernelCall has vouched for both.
template <Status (*Body)(const KernelContext&)>
Status Checked(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(CheckKernelCall(ctx));
  return Body(ctx);
}

// Typed views of a call's storage (null for an empty tensor; device pointers for a
// CUDA kernel).
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

// Registers each entry for `device`.
template <size_t N>
Status RegisterAll(KernelRegistry* registry, Device device, const KernelEntry (&entries)[N]) {
  for (const KernelEntry& e : entries) {
    TESS_RETURN_IF_ERROR(registry->Register(e.op_name, device, e.fn));
  }
  return Status::Ok();
}

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_COMMON_KERNEL_FAMILY_H_
