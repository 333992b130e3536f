// gather and embedding on CUDA: copies of params rows picked by i32/i64 indices, moved
// as bits for every params dtype. Indices are device data, so the range check is the
// check kernel of data_errors.h, enqueued first; an index outside [0, axis size)
// yields zeros in its output rows (never a read out of bounds). Negative indices do
// not wrap.
#include <cuda_runtime.h>

#include "kernels/common/kernel_plans.h"
#include "kernels/cuda/data_checks.h"
#include "kernels/cuda/families.h"
#include "kernels/cuda/launch.cu.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

// params as [pre, axis_size, post], out as [pre, n, post].
template <typename U, typename I>
__global__ void GatherKernel(const U* params, const I* indices, U* out, int64_t n, GatherPlan p) {
  const int64_t total = p.pre * n * p.post;
  for (int64_t e = GlobalThread(); e < total; e += GridThreads()) {
    const int64_t row = e / p.post;  // (o, i) over [pre, n]
    const int64_t o = row / n;
    const I index = indices[row - o * n];
    const bool ok = index >= 0 && static_cast<int64_t>(index) < p.axis_size;
    out[e] = ok ? params[(o * p.axis_size + index) * p.post + (e - row * p.post)] : U(0);
  }
}

Status RunGather(const KernelContext& ctx, const GatherPlan& p, DataCheck check) {
  const Shape& index_shape = ctx.inputs[1].shape;
  const int64_t n = index_shape.num_elements();
  return Dispatch<DTypeSet::kIndex>(ctx, 1, [&](auto it) {
    using I = typename decltype(it)::type;
    TESS_RETURN_IF_ERROR(CheckData(
        ctx, 1, MakeDataCheckInfo(check, p.axis, p.axis_size, index_shape, ctx.inputs[0].shape)));
    return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto) {
      const int64_t total = p.pre * n * p.post;
      if (total == 0) return Status::Ok();
      return VisitBits(ctx.inputs[0].dtype, [&](auto u) {
        using U = typename decltype(u)::type;
        GatherKernel<<<BlockCount(total), kThreads, 0, StreamOf(ctx)>>>(
            In<U>(ctx, 0), In<I>(ctx, 1), Out<U>(ctx, 0), n, p);
        return CheckLaunch(ctx, "GatherKernel");
      });
    });
  });
}

Status GatherOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const GatherPlan plan, PlanGather(ctx));
  return RunGather(ctx, plan, DataCheck::kGatherIndex);
}

Status EmbeddingOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const GatherPlan plan, PlanEmbedding(ctx));
  return RunGather(ctx, plan, DataCheck::kEmbeddingIndex);
}

}  // namespace

Status RegisterGatherKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"gather", Checked<GatherOp>},
      {"embedding", Checked<EmbeddingOp>},
  };
  return RegisterAll(r, Device::kCuda, kernels);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
