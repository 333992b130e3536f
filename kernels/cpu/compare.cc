// Comparisons (equal, not_equal, less, less_equal, greater, greater_equal) writing bool,
// and where(cond, x, y); NumPy broadcasting. Comparisons take every dtype, bool
// included (false < true); NaN compares unequal to everything, itself included, as in
// IEEE 754. where takes every dtype for x and y and a bool cond.
#include "kernels/common/arith.h"
#include "kernels/common/kernel_plans.h"
#include "kernels/common/strided_loop.h"
#include "kernels/cpu/families.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

template <Cmp kOp>
Status CompareKernel(const KernelContext& ctx) {
  BroadcastPlan plan;
  TESS_RETURN_IF_ERROR(PlanBroadcast(ctx, DType::kBool, &plan));
  return Dispatch<DTypeSet::kAll>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const T* xp = In<T>(ctx, 0);
    const T* yp = In<T>(ctx, 1);
    bool* out = Out<bool>(ctx, 0);
    if (plan.out.num_elements() == 0) return Status::Ok();
    StridedLoop<3>(plan.out, plan.strides)
        .Run([&](const int64_t* off, int64_t n, const int64_t* st) {
          const T* x = xp + off[0];
          const T* y = yp + off[1];
          bool* o = out + off[2];
          for (int64_t i = 0; i < n; ++i) o[i] = Compare<kOp>(x[i * st[0]], y[i * st[1]]);
        });
    return Status::Ok();
  });
}

Status WhereKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const WherePlan plan, PlanWhere(ctx));
  return Dispatch<DTypeSet::kAll>(ctx, 1, [&](auto t) {
    using T = typename decltype(t)::type;
    const bool* cp = In<bool>(ctx, 0);
    const T* xp = In<T>(ctx, 1);
    const T* yp = In<T>(ctx, 2);
    T* out = Out<T>(ctx, 0);
    if (plan.out.num_elements() == 0) return Status::Ok();
    StridedLoop<4>(plan.out, plan.strides)
        .Run([&](const int64_t* off, int64_t n, const int64_t* st) {
          const bool* c = cp + off[0];
          const T* x = xp + off[1];
          const T* y = yp + off[2];
          T* o = out + off[3];
          for (int64_t i = 0; i < n; ++i) o[i] = c[i * st[0]] ? x[i * st[1]] : y[i * st[2]];
        });
    return Status::Ok();
  });
}

}  // namespace

Status RegisterCompareKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"equal", Checked<CompareKernel<Cmp::kEq>>},
      {"not_equal", Checked<CompareKernel<Cmp::kNe>>},
      {"less", Checked<CompareKernel<Cmp::kLt>>},
      {"less_equal", Checked<CompareKernel<Cmp::kLe>>},
      {"greater", Checked<CompareKernel<Cmp::kGt>>},
      {"greater_equal", Checked<CompareKernel<Cmp::kGe>>},
      {"where", Checked<WhereKernel>},
  };
  return RegisterAll(r, Device::kCpu, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
