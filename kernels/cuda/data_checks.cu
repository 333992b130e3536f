#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/data_checks.h"
#include "kernels/cuda/data_errors.h"
#include "kernels/cuda/families.h"
#include "kernels/cuda/launch.cu.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

template <typename I, bool kNonZero>
__global__ void CheckKernel(const I* values, int64_t n, DataCheckInfo info,
                            DataErrorRecord* record) {
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) {
    const I v = values[i];
    const bool bad =
        kNonZero ? v == I(0)
                 : (static_cast<int64_t>(v) < info.lower || static_cast<int64_t>(v) >= info.bound);
    // Only the claiming thread writes the rest, so the record stays one offender's.
    if (bad && atomicCAS(&record->claimed, 0u, 1u) == 0u) {
      record->flat = i;
      record->value = static_cast<int64_t>(v);
      record->info = info;
    }
  }
}

}  // namespace

Status CheckData(const KernelContext& ctx, int slot, const DataCheckInfo& info) {
  const LocalTensor& t = ctx.inputs[slot];
  const int64_t n = t.shape.num_elements();
  if (n == 0) return Status::Ok();
  TESS_ASSIGN_OR_RETURN(StreamState * state, StateOf(ctx));
  TESS_RETURN_IF_ERROR(Dispatch<DTypeSet::kIndex>(ctx, slot, [&](auto it) {
    using I = typename decltype(it)::type;
    const I* values = In<I>(ctx, slot);
    if (info.kind == DataCheck::kZeroDivisor) {
      CheckKernel<I, true>
          <<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(values, n, info, state->record());
    } else {
      CheckKernel<I, false>
          <<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(values, n, info, state->record());
    }
    return CheckLaunch(ctx, "CheckKernel");
  }));
  // After the launch: a synchronisation that sees the flag copies the record behind
  // the kernel. One that reads it just before misses nothing either: the flag stays set
  // for the next.
  state->checks_queued().store(true, std::memory_order_release);
  if (!SynchronousDataChecks()) return Status::Ok();
  return device::SynchronizeStream(ctx.stream);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
