// layer_norm and bias_add on CUDA, with the CPU kernels' semantics (kernels/cpu/nn.cc).
//
// layer_norm: one block per row, two passes over it (the mean, then the mean squared
// deviation, so no cancellation), accumulated in the element type and combined by a
// shuffle tree. y uses mean and inv_variance as stored (rounded to T), as on the CPU.
// An empty row has mean and inv_variance NaN.
#include <cuda_runtime.h>

#include <cmath>

#include "kernels/common/arith.h"
#include "kernels/common/kernel_plans.h"
#include "kernels/cuda/families.h"
#include "kernels/cuda/launch.cu.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

// Computes in C = Compute<T> (float for f16/bf16); each output rounds once on store.
template <typename T>
__global__ void LayerNormKernel(const T* x, const T* gamma, const T* beta, T* y, T* mean,
                                T* inv_variance, LayerNormPlan p) {
  using C = Compute<T>;
  __shared__ C shared[32];
  for (int64_t r = blockIdx.x; r < p.rows; r += gridDim.x) {
    if (p.cols == 0) {
      if (threadIdx.x == 0) mean[r] = inv_variance[r] = T(NAN);
      continue;
    }
    const T* xr = x + r * p.cols;
    T* yr = y + r * p.cols;
    C sum = 0;
    for (int64_t c = threadIdx.x; c < p.cols; c += blockDim.x) sum += C(xr[c]);
    const C mu = BlockReduce(sum, AddOp(), shared) / static_cast<C>(p.cols);
    C sq = 0;
    for (int64_t c = threadIdx.x; c < p.cols; c += blockDim.x) {
      const C d = C(xr[c]) - mu;
      sq += d * d;
    }
    const C var = BlockReduce(sq, AddOp(), shared) / static_cast<C>(p.cols);
    const C inv = C(1) / Sqrt(var + static_cast<C>(p.epsilon));
    if (threadIdx.x == 0) {
      mean[r] = mu;
      inv_variance[r] = inv;
    }
    // gamma spans whole rows (params a multiple of cols: this row's stretch starts at
    // (r * cols) % params) or repeats inside the row (cols a multiple of params).
    const bool spans = p.params >= p.cols;
    const int64_t g0 = spans ? (r * p.cols) % p.params : 0;
    for (int64_t c = threadIdx.x; c < p.cols; c += blockDim.x) {
      const int64_t g = spans ? g0 + c : c % p.params;
      yr[c] = (C(xr[c]) - mu) * inv * C(gamma[g]) + C(beta[g]);
    }
  }
}

Status LayerNormOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const LayerNormPlan plan, PlanLayerNorm(ctx));
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    if (plan.rows == 0) return Status::Ok();
    LayerNormKernel<<<BlockCount(plan.rows, 1), ReduceThreads(plan.cols), 0, StreamOf(ctx)>>>(
        In<T>(ctx, 0), In<T>(ctx, 1), In<T>(ctx, 2), Out<T>(ctx, 0), Out<T>(ctx, 1), Out<T>(ctx, 2),
        plan);
    return CheckLaunch(ctx, "LayerNormKernel");
  });
}

// out[i] = a[i] + b[(i / inner) % len].
template <typename T>
__global__ void BiasAddKernel(const T* a, const T* b, T* out, int64_t n, int64_t len,
                              int64_t inner) {
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) {
    out[i] = Add(a[i], b[(i / inner) % len]);
  }
}

Status BiasAddOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const AxisSplit s, PlanBiasAdd(ctx));
  return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const int64_t n = ctx.inputs[0].shape.num_elements();
    if (n == 0) return Status::Ok();
    BiasAddKernel<<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(In<T>(ctx, 0), In<T>(ctx, 1),
                                                                 Out<T>(ctx, 0), n, s.len, s.inner);
    return CheckLaunch(ctx, "BiasAddKernel");
  });
}

}  // namespace

Status RegisterNnKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"layer_norm", Checked<LayerNormOp>},
      {"bias_add", Checked<BiasAddOp>},
  };
  return RegisterAll(r, Device::kCuda, kernels);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
