// The process-wide kernel registry with Tessera's built-in kernels registered: the CPU
// family always, and the CUDA family in --config=cuda builds. The eager interpreter and
// the plan compiler look kernels up here, so both run exactly the same kernels.
#ifndef TESSERA_KERNELS_BUILTIN_BUILTIN_KERNELS_H_
#define TESSERA_KERNELS_BUILTIN_BUILTIN_KERNELS_H_

#include "kernels/common/kernel_registry.h"

namespace tessera {
namespace kernels {

// KernelRegistry::Global(), filled on the first call (thread-safe; later calls are a
// guard-flag load). Registration can fail only on a programming error (two built-in
// kernels under one name); that is reported on stderr and the lookups of the clashing
// op then fail with the interpreter's "no kernel" error.
const KernelRegistry& BuiltinKernels();

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_BUILTIN_BUILTIN_KERNELS_H_
