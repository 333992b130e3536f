// Kernels of the optimizer update ops (core/op/ops/optim_ops.cc): one pass over the
// flat elements with the shared formulas of kernels/common/optim_math.h. Outputs may
// alias inputs (see there).
#include "kernels/common/arith.h"
#include "kernels/common/optim_math.h"
#include "kernels/cpu/families.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

Status SgdUpdateKernel(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(CheckUpdateOperands(ctx));
  TESS_ASSIGN_OR_RETURN(const SgdCoef<double> coef, ReadSgdCoef(ctx));
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const SgdCoef<Compute<T>> c = coef.As<Compute<T>>();  // float for f16/bf16
    const T* p = In<T>(ctx, 0);
    const T* g = In<T>(ctx, 1);
    const T* b = In<T>(ctx, 2);
    T* np = Out<T>(ctx, 0);
    T* nb = Out<T>(ctx, 1);
    const int64_t n = ctx.inputs[0].shape.num_elements();
    for (int64_t i = 0; i < n; ++i) SgdElement(c, p[i], g[i], b[i], &np[i], &nb[i]);
    return Status::Ok();
  });
}

Status AdamUpdateKernel(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(CheckUpdateOperands(ctx));
  TESS_ASSIGN_OR_RETURN(const AdamCoef<double> coef, ReadAdamCoef(ctx));
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const AdamCoef<Compute<T>> c = coef.As<Compute<T>>();
    const T* p = In<T>(ctx, 0);
    const T* g = In<T>(ctx, 1);
    const T* m = In<T>(ctx, 2);
    const T* v = In<T>(ctx, 3);
    T* np = Out<T>(ctx, 0);
    T* nm = Out<T>(ctx, 1);
    T* nv = Out<T>(ctx, 2);
    const int64_t n = ctx.inputs[0].shape.num_elements();
    for (int64_t i = 0; i < n; ++i) AdamElement(c, p[i], g[i], m[i], v[i], &np[i], &nm[i], &nv[i]);
    return Status::Ok();
  });
}

}  // namespace

Status RegisterOptimKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"sgd_update", Checked<SgdUpdateKernel>},
      {"adam_update", Checked<AdamUpdateKernel>},
  };
  return RegisterAll(r, Device::kCpu, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
