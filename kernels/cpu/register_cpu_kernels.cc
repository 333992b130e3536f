#include "kernels/cpu/register_cpu_kernels.h"

#include "core/kernel/kernel_providers.h"
#include "kernels/cpu/families.h"

namespace tessera {
namespace kernels {
namespace cpu {

Status RegisterCpuKernels(KernelRegistry* registry) {
  if (registry == nullptr) return InvalidArgument("RegisterCpuKernels: registry is null");
  TESS_RETURN_IF_ERROR(RegisterElementwiseKernels(registry));
  TESS_RETURN_IF_ERROR(RegisterMatmulKernels(registry));
  TESS_RETURN_IF_ERROR(RegisterReduceKernels(registry));
  TESS_RETURN_IF_ERROR(RegisterSoftmaxKernels(registry));
  TESS_RETURN_IF_ERROR(RegisterNnKernels(registry));
  TESS_RETURN_IF_ERROR(RegisterShapeKernels(registry));
  TESS_RETURN_IF_ERROR(RegisterGatherKernels(registry));
  TESS_RETURN_IF_ERROR(RegisterCompareKernels(registry));
  TESS_RETURN_IF_ERROR(RegisterAxisKernels(registry));
  TESS_RETURN_IF_ERROR(RegisterLossKernels(registry));
  TESS_RETURN_IF_ERROR(RegisterOptimKernels(registry));
  return RegisterGradKernels(registry);
}

namespace {

// Linking this library adds its kernels to core/kernel's LinkedKernels (alwayslink).
const bool kProviderAdded = AddKernelProvider("cpu", &RegisterCpuKernels);

}  // namespace

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
