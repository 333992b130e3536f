#include "kernels/cuda/register_cuda_kernels.h"

#include "core/kernel/kernel_providers.h"
#include "kernels/cuda/families.h"

namespace tessera {
namespace kernels {
namespace cuda {

Status RegisterCudaKernels(KernelRegistry* registry) {
  if (registry == nullptr) return InvalidArgument("RegisterCudaKernels: registry is null");
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
const bool kProviderAdded = AddKernelProvider("cuda", &RegisterCudaKernels);

}  // namespace

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
