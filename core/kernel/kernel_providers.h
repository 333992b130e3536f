// The kernels linked into the process. core/ never names a kernel library: each one
// (kernels/cpu, kernels/cuda) adds a provider, a function that registers its family,
// from a static initialiser when it is linked in, and the eager interpreter and the plan
// compiler look kernels up in LinkedKernels(), so both run exactly the same kernels.
#ifndef TESSERA_CORE_KERNEL_KERNEL_PROVIDERS_H_
#define TESSERA_CORE_KERNEL_KERNEL_PROVIDERS_H_

#include "core/common/status.h"
#include "core/kernel/kernel_registry.h"

namespace tessera {
namespace kernels {

// Registers one family of kernels into `registry`; safe to repeat.
using KernelProvider = Status (*)(KernelRegistry* registry);

// Providers a process may add; one per kernel library.
inline constexpr int kMaxKernelProviders = 8;

// Adds `provider` under `name` (a static string, for error messages). Meant for static
// initialisers: `const bool kAdded = AddKernelProvider("cpu", &RegisterCpuKernels);`.
// Returns false, and reports on stderr, for a null provider or past kMaxKernelProviders.
// Providers added after the first LinkedKernels() call are not run.
bool AddKernelProvider(const char* name, KernelProvider provider);

// KernelRegistry::Global() with every added provider run into it, once, on the first
// call (thread-safe; later calls are a guard-flag load). A provider fails only on a
// programming error (two kernels under one name); that is reported on stderr, and the
// lookups of the clashing op then fail with the caller's "no kernel" error.
const KernelRegistry& LinkedKernels();

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_CORE_KERNEL_KERNEL_PROVIDERS_H_
