// Internal to the CUDA kernels: the check kernel behind data_errors.h.
#ifndef TESSERA_KERNELS_CUDA_DATA_CHECKS_H_
#define TESSERA_KERNELS_CUDA_DATA_CHECKS_H_

#include "core/common/status.h"
#include "core/kernel/kernel.h"
#include "kernels/cuda/stream_state.h"

namespace tessera {
namespace kernels {
namespace cuda {

// Enqueues on ctx.stream the check of input `slot` (i32 or i64; kZeroDivisor: != 0,
// else in [0, info.bound)), which records the first offender in the stream's record.
// With synchronous data checks on, waits for it and returns the error (outputs
// untouched). An empty input launches nothing.
Status CheckData(const KernelContext& ctx, int slot, const DataCheckInfo& info);

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_CUDA_DATA_CHECKS_H_
