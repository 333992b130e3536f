// nll_loss and cross_entropy over rows [N, C]: per-row losses in double (cross_entropy:
// max-shifted log-sum-exp, so no overflow), summed in row order for "sum" and "mean";
// a mean divides by the logical batch size (PlanLoss). f32, f64 scores; i32, i64
// targets, each checked to lie in [0, C) before anything is written.
#include <cmath>

#include "kernels/common/axis_plans.h"
#include "kernels/cpu/families.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

template <bool kLogits>
Status LossKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const LossPlan p, PlanLoss(ctx));
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    return Dispatch<DTypeSet::kIndex>(ctx, 1, [&](auto it) {
      using I = typename decltype(it)::type;
      const T* x = In<T>(ctx, 0);
      const I* target = In<I>(ctx, 1);
      T* out = Out<T>(ctx, 0);
      for (int64_t i = 0; i < p.rows; ++i) {
        if (target[i] < 0 || target[i] >= p.classes) {
          return KernelError(ctx,
                             TargetError(kLogits ? "logits" : "log_probs", ctx.inputs[0].shape,
                                         ctx.inputs[1].shape, i, static_cast<int64_t>(target[i])));
        }
      }
      double total = 0;
      for (int64_t i = 0; i < p.rows; ++i) {
        const double loss = RowLoss<kLogits>(x + i * p.classes, p.classes, target[i]);
        if (p.reduction == 0) {
          out[i] = static_cast<T>(loss);
        } else {
          total += loss;
        }
      }
      if (p.reduction != 0) out[0] = static_cast<T>(total / p.divisor);
      return Status::Ok();
    });
  });
}

}  // namespace

Status RegisterLossKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"nll_loss", Checked<LossKernel<false>>},
      {"cross_entropy", Checked<LossKernel<true>>},
  };
  return RegisterAll(r, Device::kCpu, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
