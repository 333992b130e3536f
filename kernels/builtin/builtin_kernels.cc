#include "kernels/builtin/builtin_kernels.h"

#include <cstdio>

#include "kernels/cpu/register_cpu_kernels.h"
#if TESSERA_WITH_CUDA
#include "kernels/cuda/register_cuda_kernels.h"
#endif

namespace tessera {
namespace kernels {

const KernelRegistry& BuiltinKernels() {
  static const KernelRegistry& registry = []() -> const KernelRegistry& {
    KernelRegistry& r = KernelRegistry::Global();
    Status s = cpu::RegisterCpuKernels(&r);
    if (!s.ok())
      std::fprintf(stderr, "tessera: registering cpu kernels: %s\n", s.ToString().c_str());
#if TESSERA_WITH_CUDA
    s = cuda::RegisterCudaKernels(&r);
    if (!s.ok())
      std::fprintf(stderr, "tessera: registering cuda kernels: %s\n", s.ToString().c_str());
#endif
    return r;
  }();
  return registry;
}

}  // namespace kernels
}  // namespace tessera
