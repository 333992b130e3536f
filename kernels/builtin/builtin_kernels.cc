#include "kernels/builtin/builtin_kernels.h"

#include <cstdio>

#include "kernels/cpu/register_cpu_kernels.h"

namespace tessera {
namespace kernels {

const KernelRegistry& BuiltinKernels() {
  static const KernelRegistry& registry = []() -> const KernelRegistry& {
    KernelRegistry& r = KernelRegistry::Global();
    Status s = cpu::RegisterCpuKernels(&r);
    if (!s.ok())
      std::fprintf(stderr, "tessera: registering cpu kernels: %s\n", s.ToString().c_str());
    return r;
  }();
  return registry;
}

}  // namespace kernels
}  // namespace tessera
