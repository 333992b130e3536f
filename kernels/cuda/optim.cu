// CUDA kernels of the optimizer update ops (core/op/ops/optim_ops.cc): a grid-stride
// pass with the shared formulas of kernels/common/optim_math.h. Outputs may alias
// inputs (see there): core/optim's fused mode updates a whole bucket with one launch.
#include "kernels/common/arith.h"
#include "kernels/common/optim_math.h"
#include "kernels/cuda/families.h"
#include "kernels/cuda/launch.cu.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

// T is the element type; the coefficients (and so the arithmetic) are Compute<T>:
// float for f16/bf16, each output rounded once on store.
template <typename T>
__global__ void SgdKernel(SgdCoef<Compute<T>> c, const T* p, const T* g, const T* b, T* np, T* nb,
                          int64_t n) {
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) {
    SgdElement(c, p[i], g[i], b[i], &np[i], &nb[i]);
  }
}

template <typename T>
__global__ void AdamKernel(AdamCoef<Compute<T>> c, const T* p, const T* g, const T* m, const T* v,
                           T* np, T* nm, T* nv, int64_t n) {
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) {
    AdamElement(c, p[i], g[i], m[i], v[i], &np[i], &nm[i], &nv[i]);
  }
}

Status SgdUpdateOp(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(CheckUpdateOperands(ctx));
  TESS_ASSIGN_OR_RETURN(const SgdCoef<double> coef, ReadSgdCoef(ctx));
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const int64_t n = ctx.inputs[0].shape.num_elements();
    if (n == 0) return Status::Ok();
    SgdKernel<T><<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(
        coef.As<Compute<T>>(), In<T>(ctx, 0), In<T>(ctx, 1), In<T>(ctx, 2), Out<T>(ctx, 0),
        Out<T>(ctx, 1), n);
    return CheckLaunch(ctx, "SgdKernel");
  });
}

Status AdamUpdateOp(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(CheckUpdateOperands(ctx));
  TESS_ASSIGN_OR_RETURN(const AdamCoef<double> coef, ReadAdamCoef(ctx));
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const int64_t n = ctx.inputs[0].shape.num_elements();
    if (n == 0) return Status::Ok();
    AdamKernel<T><<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(
        coef.As<Compute<T>>(), In<T>(ctx, 0), In<T>(ctx, 1), In<T>(ctx, 2), In<T>(ctx, 3),
        Out<T>(ctx, 0), Out<T>(ctx, 1), Out<T>(ctx, 2), n);
    return CheckLaunch(ctx, "AdamKernel");
  });
}

}  // namespace

Status RegisterOptimKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"sgd_update", Checked<SgdUpdateOp>},
      {"adam_update", Checked<AdamUpdateOp>},
  };
  return RegisterAll(r, Device::kCuda, kernels);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
