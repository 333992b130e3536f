// argmax, cumsum, var and std on CUDA, with the CPU kernels' dtypes and semantics
// (kernels/cpu/axis_ops.cc): one thread per output row (argmax, cumsum) or output
// element (var, std) walks its elements in order, so results match the CPU's order of
// operations (float math is CUDA's: sqrt exact).
#include <cuda_runtime.h>

#include "kernels/common/arith.h"
#include "kernels/common/axis_plans.h"
#include "kernels/cuda/families.h"
#include "kernels/cuda/launch.cu.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

template <typename T>
__global__ void ArgmaxKernel(const T* x, int64_t* out, AxisSplit s) {
  const int64_t rows = s.outer * s.inner;
  for (int64_t r = GlobalThread(); r < rows; r += GridThreads()) {
    const int64_t o = r / s.inner, i = r - o * s.inner;
    const T* row = x + o * s.len * s.inner + i;
    int64_t best = 0;
    for (int64_t k = 1; k < s.len; ++k) {
      if (ArgmaxBeats(row[k * s.inner], row[best * s.inner])) best = k;
    }
    out[r] = best;
  }
}

Status ArgmaxOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const AxisSplit s, PlanArgmax(ctx));
  const int64_t rows = s.outer * s.inner;
  if (rows == 0 || s.len == 0) return Status::Ok();
  return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    ArgmaxKernel<<<BlockCount(rows), kThreads, 0, StreamOf(ctx)>>>(In<T>(ctx, 0),
                                                                   Out<int64_t>(ctx, 0), s);
    return CheckLaunch(ctx, "ArgmaxKernel");
  });
}

template <typename T>
__global__ void CumsumKernel(const T* x, T* out, AxisSplit s) {
  const int64_t rows = s.outer * s.inner;
  for (int64_t r = GlobalThread(); r < rows; r += GridThreads()) {
    const int64_t o = r / s.inner, i = r - o * s.inner;
    const int64_t base = o * s.len * s.inner + i;
    Acc<T> acc = 0;
    for (int64_t k = 0; k < s.len; ++k) {
      acc = Add(acc, static_cast<Acc<T>>(x[base + k * s.inner]));
      out[base + k * s.inner] = static_cast<T>(acc);
    }
  }
}

Status CumsumOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const AxisSplit s, PlanCumsum(ctx));
  const int64_t rows = s.outer * s.inner;
  if (rows == 0 || s.len == 0) return Status::Ok();
  return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    CumsumKernel<<<BlockCount(rows), kThreads, 0, StreamOf(ctx)>>>(In<T>(ctx, 0), Out<T>(ctx, 0),
                                                                   s);
    return CheckLaunch(ctx, "CumsumKernel");
  });
}

template <bool kSqrt, typename T>
__global__ void VarKernel(const T* x, T* out, VarPlan p) {
  for (int64_t o = GlobalThread(); o < p.out_count; o += GridThreads()) {
    out[o] = VarianceAt<kSqrt>(p, x, o);
  }
}

template <bool kSqrt>
Status VarOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const VarPlan p, PlanVar(ctx));
  if (p.out_count == 0) return Status::Ok();
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    VarKernel<kSqrt>
        <<<BlockCount(p.out_count), kThreads, 0, StreamOf(ctx)>>>(In<T>(ctx, 0), Out<T>(ctx, 0), p);
    return CheckLaunch(ctx, "VarKernel");
  });
}

}  // namespace

Status RegisterAxisKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"argmax", Checked<ArgmaxOp>},
      {"cumsum", Checked<CumsumOp>},
      {"var", Checked<VarOp<false>>},
      {"std", Checked<VarOp<true>>},
  };
  return RegisterAll(r, Device::kCuda, kernels);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
