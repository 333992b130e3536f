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

// One Adam step over every element with the coefficients of the call's step.
Status RunAdam(const KernelContext& ctx, const AdamCoef<double>& coef) {
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

Status AdamUpdateKernel(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(CheckUpdateOperands(ctx));
  TESS_ASSIGN_OR_RETURN(const AdamCoef<double> coef, ReadAdamCoef(ctx));
  return RunAdam(ctx, coef);
}

// adam_update with the step number read from input 4, an i64 scalar.
Status AdamUpdateAtStepKernel(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(CheckUpdateOperands(ctx, 4));
  AdamStepTerms terms{};
  TESS_ASSIGN_OR_RETURN(AdamCoef<double> coef, ReadAdamCoefWithoutStep(ctx, &terms));
  // An empty parameter takes no step: the step number is not read (nor checked), as on
  // the GPU, where reading it would launch a kernel with nothing to write.
  if (ctx.inputs[0].shape.num_elements() == 0) return Status::Ok();
  const int64_t step = *In<int64_t>(ctx, 4);
  if (step < 1) return KernelError(ctx, AdamStepError(step));
  SetAdamStep(terms, step, &coef);
  return RunAdam(ctx, coef);
}

}  // namespace

Status RegisterOptimKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"sgd_update", Checked<SgdUpdateKernel>},
      {"adam_update", Checked<AdamUpdateKernel>},
      {"adam_update_at_step", Checked<AdamUpdateAtStepKernel>},
  };
  return RegisterAll(r, Device::kCpu, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
