// The CUDA kernels of every built-in op: the same op names, dtypes, semantics and
// error messages as the CPU kernels (kernels/cpu/register_cpu_kernels.h), up to the
// rounding of CUDA's float math and float (not double) accumulation of f32 sums.
//
// A CUDA kernel takes device pointers, enqueues its work on ctx.stream (a cudaStream_t;
// null is the legacy default stream) and returns without waiting; it launches nothing
// when there is nothing to write. Call errors (shapes, dtypes, attributes) are returned
// before anything is enqueued; launch errors are INTERNAL and name the op. Errors that
// depend on device data (an index out of range, an integer zero divisor) surface at
// SynchronizeStream, or at once with synchronous checks: see data_errors.h.
#ifndef TESSERA_KERNELS_CUDA_REGISTER_CUDA_KERNELS_H_
#define TESSERA_KERNELS_CUDA_REGISTER_CUDA_KERNELS_H_

#include "core/common/status.h"
#include "core/kernel/kernel_registry.h"

namespace tessera {
namespace kernels {
namespace cuda {

// Registers every CUDA kernel under its op name for Device::kCuda. Needs no GPU.
// Idempotent and thread-safe. Linking this library adds it as a core/kernel provider, so
// LinkedKernels() runs it; tests may call it on a registry of their own.
Status RegisterCudaKernels(KernelRegistry* registry);

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_CUDA_REGISTER_CUDA_KERNELS_H_
