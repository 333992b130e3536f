// The CPU kernels of every built-in op, f32 and f64 throughout and i32/i64 where the op
// is defined on integers (see each family's file for its dtypes and semantics).
#ifndef TESSERA_KERNELS_CPU_REGISTER_CPU_KERNELS_H_
#define TESSERA_KERNELS_CPU_REGISTER_CPU_KERNELS_H_

#include "core/common/status.h"
#include "core/kernel/kernel_registry.h"

namespace tessera {
namespace kernels {
namespace cpu {

// Registers every CPU kernel under its op name for Device::kCpu. Idempotent and
// thread-safe. Linking this library adds it as a core/kernel provider, so
// LinkedKernels() runs it; tests may call it on a registry of their own.
Status RegisterCpuKernels(KernelRegistry* registry);

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_CPU_REGISTER_CPU_KERNELS_H_
