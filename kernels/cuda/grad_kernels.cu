// The backward-only ops on CUDA (core/op/ops/grad_ops.cc, scatter_grad_ops.cc), with
// the CPU kernels' formulas: relu_grad, gelu_grad (in double, as on the CPU),
// equal_mask, xlogy, sparse_softmax_cross_entropy_grad, gather_grad and slice_grad.
//
// Labels and indices are device data, so their range checks are the check kernel of
// data_errors.h, enqueued first. A label outside [0, classes) matches no class (its
// row is prob * dout); an index outside [0, size) adds nothing.
//
// gather_grad adds with atomicAdd (repeated indices meet in one row), so its sums'
// order, and so their rounding, varies from run to run.
#include <cuda_runtime.h>

#include "kernels/common/grad_plans.h"
#include "kernels/common/kernel_plans.h"
#include "kernels/cuda/data_checks.h"
#include "kernels/cuda/families.h"
#include "kernels/cuda/launch.cu.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

// ---- elementwise: out[i] = f(a[i], b[i]) over two same-shape inputs ----

enum class Pair { kReluGrad, kGeluGrad, kEqualMask, kXlogy };

template <Pair kOp, typename T>
__device__ T ApplyPair(T a, T b) {
  // relu_grad(y, dy): a NaN y passes no gradient (NaN > 0 is false).
  if constexpr (kOp == Pair::kReluGrad) return a > T(0) ? b : T(0);
  if constexpr (kOp == Pair::kEqualMask) return a == b ? T(1) : T(0);
  if constexpr (std::is_floating_point_v<T>) {
    if constexpr (kOp == Pair::kGeluGrad) {
      // gelu'(x) = Phi(x) + x phi(x).
      const double x = static_cast<double>(a);
      const double cdf = 0.5 * (1.0 + erf(x * 0.70710678118654752440));
      const double pdf = 0.39894228040143267794 * exp(-0.5 * x * x);
      return static_cast<T>(static_cast<double>(b) * (cdf + x * pdf));
    }
    if constexpr (kOp == Pair::kXlogy) return a == T(0) ? T(0) : a * Log(b);
  }
  return T(0);  // unreachable: the float-only ops are registered for floats only
}

template <Pair kOp, typename T>
__global__ void PairKernel(const T* a, const T* b, T* out, int64_t n) {
  // f16/bf16 compute in float (Compute<T>), rounding once on store.
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) {
    out[i] = ApplyPair<kOp, Compute<T>>(a[i], b[i]);
  }
}

template <Pair kOp, DTypeSet kSet>
Status PairOp(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(CheckSameShapePair(ctx));
  return Dispatch<kSet>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const int64_t n = ctx.inputs[0].shape.num_elements();
    if (n == 0) return Status::Ok();
    PairKernel<kOp><<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(In<T>(ctx, 0), In<T>(ctx, 1),
                                                                   Out<T>(ctx, 0), n);
    return CheckLaunch(ctx, "PairKernel");
  });
}

// ---- sparse_softmax_cross_entropy_grad: dx[r, c] = (prob[r, c] - (c == label[r])) * dout[r]

template <typename T, typename I>
__global__ void SoftmaxXentGradKernel(const T* prob, const I* labels, const T* dout, T* dx,
                                      int64_t rows, int64_t classes) {
  const int64_t n = rows * classes;
  for (int64_t e = GlobalThread(); e < n; e += GridThreads()) {
    const int64_t r = e / classes;
    using C = Compute<T>;
    const C onehot = static_cast<int64_t>(labels[r]) == e - r * classes ? C(1) : C(0);
    dx[e] = (C(prob[e]) - onehot) * C(dout[r]);
  }
}

Status SoftmaxXentGradOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const CrossEntropyPlan plan, PlanSparseSoftmaxXentGrad(ctx));
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    return Dispatch<DTypeSet::kIndex>(ctx, 1, [&](auto it) {
      using I = typename decltype(it)::type;
      const int64_t n = plan.rows * plan.classes;
      if (n == 0) return Status::Ok();
      TESS_RETURN_IF_ERROR(CheckData(
          ctx, 1,
          MakeDataCheckInfo(DataCheck::kLabel, 0, plan.classes, plan.batch, ctx.inputs[0].shape)));
      SoftmaxXentGradKernel<<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(
          In<T>(ctx, 0), In<I>(ctx, 1), In<T>(ctx, 2), Out<T>(ctx, 0), plan.rows, plan.classes);
      return CheckLaunch(ctx, "SoftmaxXentGradKernel");
    });
  });
}

// ---- gather_grad: dx = zeros; dx[o, indices[i], p] += dout[o, i, p] ----

template <typename T, typename I>
__global__ void ScatterAddKernel(const T* dout, const I* indices, T* dx, ScatterPlan p) {
  const int64_t total = p.pre * p.n * p.post;
  for (int64_t e = GlobalThread(); e < total; e += GridThreads()) {
    const int64_t row = e / p.post;  // (o, i) over [pre, n]
    const int64_t o = row / p.n;
    const I index = indices[row - o * p.n];
    if (index < 0 || static_cast<int64_t>(index) >= p.size) continue;  // recorded by the check
    T* at = dx + (o * p.size + index) * p.post + (e - row * p.post);
    if constexpr (kIsHalf<T>) {
      AtomicAddHalf(at, static_cast<float>(dout[e]));
    } else {
      atomicAdd(at, dout[e]);
    }
  }
}

// Zeros for an output the kernel then writes into in part.
Status ZeroOutput(const KernelContext& ctx) {
  const size_t bytes =
      static_cast<size_t>(ctx.outputs[0].shape.num_elements()) * DTypeSize(ctx.outputs[0].dtype);
  if (bytes == 0) return Status::Ok();
  return CheckCall(ctx, "cudaMemsetAsync",
                   cudaMemsetAsync(ctx.outputs[0].data, 0, bytes, StreamOf(ctx)));
}

Status GatherGradOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const ScatterPlan p, PlanGatherGrad(ctx));
  TESS_ASSIGN_OR_RETURN(const int64_t axis, IntAttr(ctx, "axis"));
  return Dispatch<DTypeSet::kIndex>(ctx, 1, [&](auto it) {
    using I = typename decltype(it)::type;
    return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
      using T = typename decltype(t)::type;
      TESS_RETURN_IF_ERROR(
          CheckData(ctx, 1,
                    MakeDataCheckInfo(DataCheck::kGatherIndex, static_cast<int>(axis), p.size,
                                      ctx.inputs[1].shape, ctx.outputs[0].shape)));
      TESS_RETURN_IF_ERROR(ZeroOutput(ctx));
      const int64_t total = p.pre * p.n * p.post;
      if (total == 0) return Status::Ok();
      ScatterAddKernel<<<BlockCount(total), kThreads, 0, StreamOf(ctx)>>>(
          In<T>(ctx, 0), In<I>(ctx, 1), Out<T>(ctx, 0), p);
      return CheckLaunch(ctx, "ScatterAddKernel");
    });
  });
}

// ---- slice_grad: dx = zeros with dout at offset + sum_i k_i * strides[i] ----

struct SliceGradGeometry {
  int ndim = 0;
  int64_t offset = 0;
  int64_t dims[Shape::kMaxDims] = {};
  int64_t strides[Shape::kMaxDims] = {};
};

template <typename T>
__global__ void SliceGradKernel(const T* dout, T* dx, int64_t n, SliceGradGeometry g) {
  for (int64_t e = GlobalThread(); e < n; e += GridThreads()) {
    int64_t rest = e, at = g.offset;
    for (int i = g.ndim - 1; i >= 0; --i) {
      at += (rest % g.dims[i]) * g.strides[i];
      rest /= g.dims[i];
    }
    dx[at] = dout[e];
  }
}

Status SliceGradOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const SliceGradPlan p, PlanSliceGrad(ctx));
  SliceGradGeometry g;
  g.ndim = p.dout.ndim();
  g.offset = p.offset;
  for (int i = 0; i < g.ndim; ++i) {
    g.dims[i] = p.dout.dim(i);
    g.strides[i] = p.strides[i];
  }
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    TESS_RETURN_IF_ERROR(ZeroOutput(ctx));
    const int64_t n = p.dout.num_elements();
    if (n == 0) return Status::Ok();
    SliceGradKernel<<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(In<T>(ctx, 0), Out<T>(ctx, 0), n,
                                                                   g);
    return CheckLaunch(ctx, "SliceGradKernel");
  });
}

}  // namespace

Status RegisterGradKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"relu_grad", Checked<PairOp<Pair::kReluGrad, DTypeSet::kNumeric>>},
      {"gelu_grad", Checked<PairOp<Pair::kGeluGrad, DTypeSet::kFloating>>},
      {"equal_mask", Checked<PairOp<Pair::kEqualMask, DTypeSet::kFloating>>},
      {"xlogy", Checked<PairOp<Pair::kXlogy, DTypeSet::kFloating>>},
      {"sparse_softmax_cross_entropy_grad", Checked<SoftmaxXentGradOp>},
      {"gather_grad", Checked<GatherGradOp>},
      {"slice_grad", Checked<SliceGradOp>},
  };
  return RegisterAll(r, Device::kCuda, kernels);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
