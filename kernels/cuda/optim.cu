// CUDA kernels of the optimizer update ops (core/op/ops/optim_ops.cc): a grid-stride
// pass with the shared formulas of kernels/common/optim_math.h. Outputs may alias
// inputs (see there): core/optim's fused mode updates a whole bucket with one launch.
#include "kernels/common/arith.h"
#include "kernels/common/optim_math.h"
#include "kernels/cuda/data_checks.h"
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

// adam_update_at_step: each thread reads the step number and sets the bias corrections
// itself (SetAdamStep, the host's formula). A step below 1 is the data check's error;
// the kernel then leaves the parameter and the moments as they were.
template <typename T>
__global__ void AdamAtStepKernel(AdamCoef<Compute<T>> c, AdamStepTerms terms, const int64_t* step,
                                 const T* p, const T* g, const T* m, const T* v, T* np, T* nm,
                                 T* nv, int64_t n) {
  const int64_t t = *step;
  if (t >= 1) SetAdamStep(terms, t, &c);
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) {
    if (t >= 1) {
      AdamElement(c, p[i], g[i], m[i], v[i], &np[i], &nm[i], &nv[i]);
    } else {
      const T pi = p[i], mi = m[i], vi = v[i];  // read before writing: outputs may alias
      np[i] = pi;
      nm[i] = mi;
      nv[i] = vi;
    }
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

Status AdamUpdateAtStepOp(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(CheckUpdateOperands(ctx, 4));
  AdamStepTerms terms{};
  TESS_ASSIGN_OR_RETURN(const AdamCoef<double> coef, ReadAdamCoefWithoutStep(ctx, &terms));
  const int64_t n = ctx.inputs[0].shape.num_elements();
  if (n == 0) return Status::Ok();  // nothing to write: the step is not read (as on the CPU)
  DataCheckInfo check = MakeDataCheckInfo(DataCheck::kAdamStep, 0, INT64_MAX, Shape{}, Shape{});
  check.lower = 1;
  TESS_RETURN_IF_ERROR(CheckData(ctx, 4, check));
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    AdamAtStepKernel<T><<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(
        coef.As<Compute<T>>(), terms, In<int64_t>(ctx, 4), In<T>(ctx, 0), In<T>(ctx, 1),
        In<T>(ctx, 2), In<T>(ctx, 3), Out<T>(ctx, 0), Out<T>(ctx, 1), Out<T>(ctx, 2), n);
    return CheckLaunch(ctx, "AdamAtStepKernel");
  });
}

}  // namespace

Status RegisterOptimKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"sgd_update", Checked<SgdUpdateOp>},
      {"adam_update", Checked<AdamUpdateOp>},
      {"adam_update_at_step", Checked<AdamUpdateAtStepOp>},
  };
  return RegisterAll(r, Device::kCuda, kernels);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
