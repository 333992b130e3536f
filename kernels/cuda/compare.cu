// Comparisons writing bool and where(cond, x, y) on CUDA, with the CPU kernels' dtypes
// and semantics (kernels/cpu/compare.cc): NumPy broadcasting through an IndexMap over
// the merged axes, every dtype (bool included), NaN unequal to everything.
#include <cuda_runtime.h>

#include "kernels/common/arith.h"
#include "kernels/common/kernel_plans.h"
#include "kernels/common/strided_loop.h"
#include "kernels/cuda/families.h"
#include "kernels/cuda/launch.cu.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

template <Cmp kOp, typename T>
__global__ void CompareKernel(const T* x, const T* y, bool* out, int64_t n, IndexMap<2> map) {
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) {
    int64_t off[2];
    map.Offsets(i, off);
    out[i] = Compare<kOp>(x[off[0]], y[off[1]]);
  }
}

template <Cmp kOp>
Status CompareOp(const KernelContext& ctx) {
  BroadcastPlan plan;
  TESS_RETURN_IF_ERROR(PlanBroadcast(ctx, DType::kBool, &plan));
  return Dispatch<DTypeSet::kAll>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const int64_t n = plan.out.num_elements();
    if (n == 0) return Status::Ok();
    const StridedLoop<3> loop(plan.out, plan.strides);
    CompareKernel<kOp><<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(
        In<T>(ctx, 0), In<T>(ctx, 1), Out<bool>(ctx, 0), n, MakeIndexMap<2>(loop));
    return CheckLaunch(ctx, "CompareKernel");
  });
}

template <typename T>
__global__ void WhereKernel(const bool* c, const T* x, const T* y, T* out, int64_t n,
                            IndexMap<3> map) {
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) {
    int64_t off[3];
    map.Offsets(i, off);
    out[i] = c[off[0]] ? x[off[1]] : y[off[2]];
  }
}

Status WhereOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const WherePlan plan, PlanWhere(ctx));
  return Dispatch<DTypeSet::kAll>(ctx, 1, [&](auto t) {
    using T = typename decltype(t)::type;
    const int64_t n = plan.out.num_elements();
    if (n == 0) return Status::Ok();
    const StridedLoop<4> loop(plan.out, plan.strides);
    WhereKernel<<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(
        In<bool>(ctx, 0), In<T>(ctx, 1), In<T>(ctx, 2), Out<T>(ctx, 0), n, MakeIndexMap<3>(loop));
    return CheckLaunch(ctx, "WhereKernel");
  });
}

}  // namespace

Status RegisterCompareKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"equal", Checked<CompareOp<Cmp::kEq>>},
      {"not_equal", Checked<CompareOp<Cmp::kNe>>},
      {"less", Checked<CompareOp<Cmp::kLt>>},
      {"less_equal", Checked<CompareOp<Cmp::kLe>>},
      {"greater", Checked<CompareOp<Cmp::kGt>>},
      {"greater_equal", Checked<CompareOp<Cmp::kGe>>},
      {"where", Checked<WhereOp>},
  };
  return RegisterAll(r, Device::kCuda, kernels);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
