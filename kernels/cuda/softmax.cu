// softmax and log_softmax along any axis, and sparse_softmax_cross_entropy along the
// last, on CUDA, with the CPU kernels' formulas: exponents are x - max(row) <= 0,
// log_softmax is (x - max) - log(sum), the loss is log(sum) - (x[label] - max), and a
// row holding NaN or +inf (or only -inf) comes out NaN. Sums accumulate in the element
// type (f32 in float; the CPU uses double), combined by a shuffle tree. f16/bf16
// compute everything in float (C = Compute<T>) and round once on store: the softmax
// pass recomputes exp(x - max) rather than rescaling a rounded intermediate.
//
// Along the last axis a row is contiguous: one block per row, threads striding along
// it. Along an inner axis (inner > 1) the rows are strided by `inner`: one thread per
// row, so a warp's 32 threads read 32 neighbouring rows' elements at once (coalesced).
//
// A label outside [0, classes) is recorded by the check kernel of data_errors.h; its
// row's loss is NaN and its prob is still the softmax.
#include <cuda_runtime.h>

#include <cmath>

#include "kernels/common/arith.h"
#include "kernels/common/kernel_plans.h"
#include "kernels/cuda/data_checks.h"
#include "kernels/cuda/families.h"
#include "kernels/cuda/launch.cu.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

enum class Mode { kSoftmax, kLogSoftmax, kCrossEntropy };

// Rows of `len` contiguous elements; for kCrossEntropy also loss[r] from labels[r].
template <Mode kMode, typename T, typename I>
__global__ void SoftmaxRowsKernel(const T* x, T* out, int64_t rows, int64_t len, const I* labels,
                                  T* loss) {
  using C = Compute<T>;
  __shared__ C shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * len;
    T* yr = out + r * len;
    C m = Lowest<C>();
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x) m = Max(m, C(xr[i]));
    m = BlockReduce(m, MaxOp(), shared);
    C sum = 0;
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x) {
      const C e = Exp(C(xr[i]) - m);
      if constexpr (kMode != Mode::kLogSoftmax && !kIsHalf<T>) yr[i] = e;
      sum += e;
    }
    sum = BlockReduce(sum, AddOp(), shared);
    if constexpr (kMode == Mode::kLogSoftmax) {
      const C log_sum = Log(sum);
      for (int64_t i = threadIdx.x; i < len; i += blockDim.x) yr[i] = (C(xr[i]) - m) - log_sum;
    } else if constexpr (kIsHalf<T>) {
      const C inv = C(1) / sum;
      for (int64_t i = threadIdx.x; i < len; i += blockDim.x) yr[i] = Exp(C(xr[i]) - m) * inv;
    } else {
      const T inv = T(1) / sum;
      for (int64_t i = threadIdx.x; i < len; i += blockDim.x) yr[i] *= inv;
    }
    if constexpr (kMode == Mode::kCrossEntropy) {
      if (threadIdx.x == 0) {
        const I label = labels[r];
        loss[r] = (label < 0 || label >= len) ? C(NAN) : C(Log(sum) - (C(xr[label]) - m));
      }
    }
  }
}

// outer x inner rows of `len` elements strided by `inner`.
template <bool kLog, typename T>
__global__ void SoftmaxColumnsKernel(const T* x, T* out, int64_t outer, int64_t len,
                                     int64_t inner) {
  using C = Compute<T>;
  const int64_t columns = outer * inner;
  for (int64_t c = GlobalThread(); c < columns; c += GridThreads()) {
    const int64_t o = c / inner;
    const int64_t base = o * len * inner + (c - o * inner);
    const T* xc = x + base;
    T* yc = out + base;
    C m = Lowest<C>();
    for (int64_t a = 0; a < len; ++a) m = Max(m, C(xc[a * inner]));
    C sum = 0;
    for (int64_t a = 0; a < len; ++a) {
      const C e = Exp(C(xc[a * inner]) - m);
      if constexpr (!kIsHalf<T>) yc[a * inner] = kLog ? xc[a * inner] - m : e;
      sum += e;
    }
    const C scale = kLog ? Log(sum) : C(1) / sum;
    for (int64_t a = 0; a < len; ++a) {
      if constexpr (kIsHalf<T>) {
        const C d = C(xc[a * inner]) - m;
        yc[a * inner] = kLog ? d - scale : Exp(d) * scale;
      } else {
        yc[a * inner] = kLog ? yc[a * inner] - scale : yc[a * inner] * scale;
      }
    }
  }
}

template <bool kLog>
Status SoftmaxOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const AxisSplit s, PlanSoftmax(ctx));
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    if (ctx.inputs[0].shape.num_elements() == 0) return Status::Ok();
    const T* x = In<T>(ctx, 0);
    T* out = Out<T>(ctx, 0);
    if (s.inner == 1) {
      constexpr Mode kMode = kLog ? Mode::kLogSoftmax : Mode::kSoftmax;
      SoftmaxRowsKernel<kMode, T, int32_t>
          <<<BlockCount(s.outer, 1), ReduceThreads(s.len), 0, StreamOf(ctx)>>>(
              x, out, s.outer, s.len, nullptr, nullptr);
    } else {
      SoftmaxColumnsKernel<kLog><<<BlockCount(s.outer * s.inner), kThreads, 0, StreamOf(ctx)>>>(
          x, out, s.outer, s.len, s.inner);
    }
    return CheckLaunch(ctx, s.inner == 1 ? "SoftmaxRowsKernel" : "SoftmaxColumnsKernel");
  });
}

Status SparseSoftmaxCrossEntropyOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const CrossEntropyPlan plan, PlanSparseSoftmaxCrossEntropy(ctx));
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    return Dispatch<DTypeSet::kIndex>(ctx, 1, [&](auto it) {
      using I = typename decltype(it)::type;
      if (plan.rows == 0) return Status::Ok();
      TESS_RETURN_IF_ERROR(CheckData(
          ctx, 1,
          MakeDataCheckInfo(DataCheck::kLabel, 0, plan.classes, plan.batch, ctx.inputs[0].shape)));
      SoftmaxRowsKernel<Mode::kCrossEntropy, T, I>
          <<<BlockCount(plan.rows, 1), ReduceThreads(plan.classes), 0, StreamOf(ctx)>>>(
              In<T>(ctx, 0), Out<T>(ctx, 0), plan.rows, plan.classes, In<I>(ctx, 1),
              Out<T>(ctx, 1));
      return CheckLaunch(ctx, "SoftmaxRowsKernel");
    });
  });
}

}  // namespace

Status RegisterSoftmaxKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"softmax", Checked<SoftmaxOp<false>>},
      {"log_softmax", Checked<SoftmaxOp<true>>},
      {"sparse_softmax_cross_entropy", Checked<SparseSoftmaxCrossEntropyOp>},
  };
  return RegisterAll(r, Device::kCuda, kernels);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
