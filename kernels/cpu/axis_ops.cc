// argmax, cumsum, var and std.
//
// argmax: the first index of the largest element along the axis; NaN counts as larger
// than everything (the first NaN wins), as numpy's argmax. f32, f64, i32, i64; out i64.
// cumsum: running sums along the axis in the element order; floats accumulate in
// double and round each prefix once, integers wrap. f32, f64, i32, i64.
// var / std: two passes in double per output element (mean, then the squared
// deviations), divided by count - correction; a divisor <= 0 gives NaN. f32, f64.

#include "kernels/common/arith.h"
#include "kernels/common/axis_plans.h"
#include "kernels/cpu/families.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

Status ArgmaxKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const AxisSplit s, PlanArgmax(ctx));
  if (s.outer == 0 || s.inner == 0 || s.len == 0) return Status::Ok();
  return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const T* x = In<T>(ctx, 0);
    int64_t* out = Out<int64_t>(ctx, 0);
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t i = 0; i < s.inner; ++i) {
        const T* row = x + o * s.len * s.inner + i;
        int64_t best = 0;
        for (int64_t k = 1; k < s.len; ++k) {
          if (ArgmaxBeats(row[k * s.inner], row[best * s.inner])) best = k;
        }
        out[o * s.inner + i] = best;
      }
    }
    return Status::Ok();
  });
}

Status CumsumKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const AxisSplit s, PlanCumsum(ctx));
  if (s.outer == 0 || s.inner == 0 || s.len == 0) return Status::Ok();
  return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const T* x = In<T>(ctx, 0);
    T* out = Out<T>(ctx, 0);
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t i = 0; i < s.inner; ++i) {
        const int64_t base = o * s.len * s.inner + i;
        Acc<T> acc = 0;
        for (int64_t k = 0; k < s.len; ++k) {
          acc = Add(acc, static_cast<Acc<T>>(x[base + k * s.inner]));
          out[base + k * s.inner] = static_cast<T>(acc);
        }
      }
    }
    return Status::Ok();
  });
}

template <bool kSqrt>
Status VarKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const VarPlan p, PlanVar(ctx));
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const T* x = In<T>(ctx, 0);
    T* out = Out<T>(ctx, 0);
    for (int64_t o = 0; o < p.out_count; ++o) out[o] = VarianceAt<kSqrt>(p, x, o);
    return Status::Ok();
  });
}

}  // namespace

Status RegisterAxisKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"argmax", Checked<ArgmaxKernel>},
      {"cumsum", Checked<CumsumKernel>},
      {"var", Checked<VarKernel<false>>},
      {"std", Checked<VarKernel<true>>},
  };
  return RegisterAll(r, Device::kCpu, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
