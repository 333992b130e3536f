// Kernels of the backward-only ops (core/op/ops/grad_ops.cc, scatter_grad_ops.cc):
// relu_grad, gelu_grad, equal_mask, xlogy, sparse_softmax_cross_entropy_grad,
// gather_grad and slice_grad.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/common/arith.h"
#include "kernels/common/grad_plans.h"
#include "kernels/common/kernel_plans.h"
#include "kernels/cpu/families.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// The elementwise backward ops: out[i] = f(a[i], b[i]) over two same-shape inputs.
enum class Pair { kReluGrad, kGeluGrad, kEqualMask, kXlogy };

template <Pair kOp, typename T>
T ApplyPair(T a, T b) {
  // relu_grad(y, dy): a NaN y passes no gradient (NaN > 0 is false).
  if constexpr (kOp == Pair::kReluGrad) return a > T(0) ? b : T(0);
  if constexpr (kOp == Pair::kGeluGrad) {
    // gelu'(x) = Phi(x) + x phi(x), in double for both float types.
    const double x = static_cast<double>(a);
    const double cdf = 0.5 * (1.0 + std::erf(x * 0.70710678118654752440));
    const double pdf = 0.39894228040143267794 * std::exp(-0.5 * x * x);
    return static_cast<T>(static_cast<double>(b) * (cdf + x * pdf));
  }
  if constexpr (kOp == Pair::kEqualMask) return a == b ? T(1) : T(0);
  if constexpr (kOp == Pair::kXlogy) return a == T(0) ? T(0) : a * std::log(b);
}

template <Pair kOp, DTypeSet kSet>
Status PairKernel(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(CheckSameShapePair(ctx));
  return Dispatch<kSet>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const T* a = In<T>(ctx, 0);
    const T* b = In<T>(ctx, 1);
    T* out = Out<T>(ctx, 0);
    const int64_t n = ctx.inputs[0].shape.num_elements();
    // f16/bf16 compute in float, rounding once on store.
    for (int64_t i = 0; i < n; ++i) out[i] = ApplyPair<kOp, Compute<T>>(a[i], b[i]);
    return Status::Ok();
  });
}

// dx[r, c] = (prob[r, c] - (c == label[r])) * dout[r].
Status SoftmaxXentGradKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const CrossEntropyPlan plan, PlanSparseSoftmaxXentGrad(ctx));
  const Shape& batch = plan.batch;
  const int64_t rows = plan.rows;
  const int64_t classes = plan.classes;
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    return Dispatch<DTypeSet::kIndex>(ctx, 1, [&](auto it) {
      using I = typename decltype(it)::type;
      const I* labels = In<I>(ctx, 1);
      for (int64_t r = 0; r < rows; ++r) {
        if (labels[r] < 0 || labels[r] >= classes) {
          return KernelError(ctx, LabelError(ctx.inputs[0].shape, batch, r, labels[r]));
        }
      }
      const T* p = In<T>(ctx, 0);
      const T* dout = static_cast<const T*>(ctx.inputs[2].data);
      T* dx = Out<T>(ctx, 0);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < classes; ++c) {
          using C = Compute<T>;
          const C onehot = c == static_cast<int64_t>(labels[r]) ? C(1) : C(0);
          dx[r * classes + c] = (C(p[r * classes + c]) - onehot) * C(dout[r]);
        }
      }
      return Status::Ok();
    });
  });
}

// dx = zeros; dx[o, indices[i], p] += dout[o, i, p]. Every index is checked first.
Status GatherGradKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const ScatterPlan p, PlanGatherGrad(ctx));
  return Dispatch<DTypeSet::kIndex>(ctx, 1, [&](auto it) {
    using I = typename decltype(it)::type;
    const I* indices = In<I>(ctx, 1);
    // The dtypes first, then the data (as on CUDA, where the data check runs later).
    return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
      using T = typename decltype(t)::type;
      for (int64_t i = 0; i < p.n; ++i) {
        if (indices[i] < 0 || indices[i] >= p.size) {
          const int axis = static_cast<int>(*IntAttr(ctx, "axis"));
          return KernelError(ctx, IndexError(AsGatherPlan(p, axis), ctx.outputs[0].shape,
                                             ctx.inputs[1].shape, i, indices[i]));
        }
      }
      const T* dout = In<T>(ctx, 0);
      T* dx = Out<T>(ctx, 0);
      std::fill_n(dx, p.pre * p.size * p.post, T(0));
      for (int64_t o = 0; o < p.pre; ++o) {
        for (int64_t i = 0; i < p.n; ++i) {
          const T* src = dout + (o * p.n + i) * p.post;
          T* dst = dx + (o * p.size + static_cast<int64_t>(indices[i])) * p.post;
          // f16/bf16: each addition in float, rounded on store (a repeated index
          // accumulates in the 2-byte type, as torch's index_add does).
          for (int64_t c = 0; c < p.post; ++c) dst[c] = Add<Compute<T>>(dst[c], src[c]);
        }
      }
      return Status::Ok();
    });
  });
}

// dx = zeros with dout written at the sliced positions.
Status SliceGradKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const SliceGradPlan p, PlanSliceGrad(ctx));
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const T* dout = In<T>(ctx, 0);
    T* dx = Out<T>(ctx, 0);
    std::fill_n(dx, ctx.outputs[0].shape.num_elements(), T(0));
    const int64_t n = p.dout.num_elements();
    const int nd = p.dout.ndim();
    for (int64_t e = 0; e < n; ++e) {
      int64_t rest = e, at = p.offset;
      for (int i = nd - 1; i >= 0; --i) {
        at += (rest % p.dout.dim(i)) * p.strides[i];
        rest /= p.dout.dim(i);
      }
      dx[at] = dout[e];
    }
    return Status::Ok();
  });
}

}  // namespace

Status RegisterGradKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"relu_grad", Checked<PairKernel<Pair::kReluGrad, DTypeSet::kNumeric>>},
      {"gelu_grad", Checked<PairKernel<Pair::kGeluGrad, DTypeSet::kFloating>>},
      {"equal_mask", Checked<PairKernel<Pair::kEqualMask, DTypeSet::kFloating>>},
      {"xlogy", Checked<PairKernel<Pair::kXlogy, DTypeSet::kFloating>>},
      {"sparse_softmax_cross_entropy_grad", Checked<SoftmaxXentGradKernel>},
      {"gather_grad", Checked<GatherGradKernel>},
      {"slice_grad", Checked<SliceGradKernel>},
  };
  return RegisterAll(r, Device::kCpu, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
