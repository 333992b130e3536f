// gather and embedding: copies of params rows picked by i32/i64 indices, for every
// params dtype. Every index is checked before anything is written: one outside
// [0, axis size) is an error naming the op, its position in indices and its value.
// Negative indices do not wrap.
#include <algorithm>

#include "kernels/common/kernel_plans.h"
#include "kernels/cpu/families.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// Every index before anything is written.
template <typename I>
Status CheckIndices(const KernelContext& ctx, const GatherPlan& p, const I* indices) {
  const Shape& shape = ctx.inputs[1].shape;
  const int64_t n = shape.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    if (indices[i] < 0 || indices[i] >= p.axis_size) {
      return KernelError(ctx, IndexError(p, ctx.inputs[0].shape, shape, i, indices[i]));
    }
  }
  return Status::Ok();
}

Status RunGather(const KernelContext& ctx, const GatherPlan& p) {
  const int64_t n = ctx.inputs[1].shape.num_elements();
  return Dispatch<DTypeSet::kIndex>(ctx, 1, [&](auto it) {
    using I = typename decltype(it)::type;
    const I* indices = In<I>(ctx, 1);
    TESS_RETURN_IF_ERROR(CheckIndices(ctx, p, indices));
    return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
      using T = typename decltype(t)::type;
      const T* params = In<T>(ctx, 0);
      T* out = Out<T>(ctx, 0);
      if (p.post == 0) return Status::Ok();
      for (int64_t o = 0; o < p.pre; ++o) {
        const T* src = params + o * p.axis_size * p.post;
        T* dst = out + o * n * p.post;
        for (int64_t i = 0; i < n; ++i) {
          std::copy_n(src + static_cast<int64_t>(indices[i]) * p.post, p.post, dst + i * p.post);
        }
      }
      return Status::Ok();
    });
  });
}

Status GatherKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const GatherPlan plan, PlanGather(ctx));
  return RunGather(ctx, plan);
}

Status EmbeddingKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const GatherPlan plan, PlanEmbedding(ctx));
  return RunGather(ctx, plan);
}

}  // namespace

Status RegisterGatherKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"gather", Checked<GatherKernel>},
      {"embedding", Checked<EmbeddingKernel>},
  };
  return RegisterAll(r, Device::kCpu, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
