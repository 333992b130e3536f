// nll_loss and cross_entropy on CUDA, with the CPU kernels' semantics
// (kernels/cpu/loss.cc): targets checked by the data-check kernel first (data_errors.h);
// "none" runs one thread per row; "sum" and "mean" run one block whose threads take
// rows in a fixed stride and reduce their double partial sums in a fixed tree, so a
// result is the same from run to run (the summation order differs from the CPU's, so
// the last bits may too).
#include <cuda_runtime.h>

#include "kernels/common/axis_plans.h"
#include "kernels/cuda/data_checks.h"
#include "kernels/cuda/families.h"
#include "kernels/cuda/launch.cu.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

template <bool kLogits, typename T, typename I>
__global__ void RowLossKernel(const T* x, const I* target, T* out, int64_t rows, int64_t classes) {
  for (int64_t i = GlobalThread(); i < rows; i += GridThreads()) {
    out[i] = static_cast<T>(RowLoss<kLogits>(x + i * classes, classes, target[i]));
  }
}

template <bool kLogits, typename T, typename I>
__global__ void TotalLossKernel(const T* x, const I* target, T* out, int64_t rows, int64_t classes,
                                double divisor) {
  __shared__ double shared[32];
  double acc = 0;
  for (int64_t i = threadIdx.x; i < rows; i += blockDim.x) {
    acc += RowLoss<kLogits>(x + i * classes, classes, target[i]);
  }
  acc = BlockReduce(acc, AddOp{}, shared);
  if (threadIdx.x == 0) out[0] = static_cast<T>(acc / divisor);
}

template <bool kLogits>
Status LossOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const LossPlan p, PlanLoss(ctx));
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    return Dispatch<DTypeSet::kIndex>(ctx, 1, [&](auto it) {
      using I = typename decltype(it)::type;
      TESS_RETURN_IF_ERROR(CheckData(
          ctx, 1,
          MakeDataCheckInfo(kLogits ? DataCheck::kCrossEntropyTarget : DataCheck::kNllTarget, 0,
                            p.classes, ctx.inputs[1].shape, ctx.inputs[0].shape)));
      if (p.reduction == 0) {
        if (p.rows == 0) return Status::Ok();
        RowLossKernel<kLogits><<<BlockCount(p.rows), kThreads, 0, StreamOf(ctx)>>>(
            In<T>(ctx, 0), In<I>(ctx, 1), Out<T>(ctx, 0), p.rows, p.classes);
        return CheckLaunch(ctx, "RowLossKernel");
      }
      // One block even for no rows: the output (0, or 0 / 0 for a mean) is written.
      TotalLossKernel<kLogits><<<1, ReduceThreads(p.rows), 0, StreamOf(ctx)>>>(
          In<T>(ctx, 0), In<I>(ctx, 1), Out<T>(ctx, 0), p.rows, p.classes,
          p.reduction == 1 ? p.divisor : 1.0);
      return CheckLaunch(ctx, "TotalLossKernel");
    });
  });
}

}  // namespace

Status RegisterLossKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"nll_loss", Checked<LossOp<false>>},
      {"cross_entropy", Checked<LossOp<true>>},
  };
  return RegisterAll(r, Device::kCuda, kernels);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
