// reduce_sum, reduce_mean, reduce_max, reduce_min over a set of axes ([] = all), with
// keepdims. One pass over x in memory order: each inner run either folds into one
// output element (a reduced innermost axis) or combines elementwise into a row of the
// output (a kept innermost axis), so both cases read x contiguously.
//
// Float sums accumulate each run in double; integer sums wrap. An empty max (min) is
// the identity -inf / lowest (+inf / highest), which the P(max) signatures over split
// axes rely on; an empty mean is NaN. max and min propagate NaN. f16/bf16 sums and
// means accumulate in float (double within a run) and round once into the output.
#include <limits>
#include <type_traits>

#include "kernels/common/arith.h"
#include "kernels/common/kernel_plans.h"
#include "kernels/common/strided_loop.h"
#include "kernels/cpu/families.h"
#include "kernels/cpu/scratch.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

enum class Kind { kSum, kMean, kMax, kMin };

template <Kind kKind, typename T>
struct Reducer {
  using A = std::conditional_t<kKind == Kind::kSum || kKind == Kind::kMean, Acc<T>, T>;
  static constexpr T Identity() {
    if constexpr (kKind == Kind::kMax) return Lowest<T>();
    if constexpr (kKind == Kind::kMin) return Highest<T>();
    return T(0);
  }
  template <typename U>
  static U Combine(U a, U b) {
    if constexpr (kKind == Kind::kMax) return Max(a, b);
    if constexpr (kKind == Kind::kMin) return Min(a, b);
    return Add(a, b);
  }
};

// Reduces x (of T) into out (of O: T, or float for f16/bf16 sums, whose partial sums
// must not round to the 2-byte type along the way).
template <Kind kKind, typename T, typename O>
void Reduce(const ReducePlan& plan, const Shape& xs, const T* x, O* out) {
  using R = Reducer<kKind, O>;
  using A = typename R::A;
  const int64_t out_n = plan.out.num_elements();
  for (int64_t i = 0; i < out_n; ++i) out[i] = R::Identity();
  // Output strides over x's axes: kept axes step through the output (whose layout is
  // the same with or without keepdims), reduced axes stay put.
  int64_t strides[2][Shape::kMaxDims];
  ContiguousStrides(xs, strides[0]);
  int64_t s = 1;
  for (int i = xs.ndim() - 1; i >= 0; --i) {
    strides[1][i] = plan.reduced[i] ? 0 : s;
    if (!plan.reduced[i]) s *= xs.dim(i);
  }
  StridedLoop<2>(xs, strides).Run([&](const int64_t* off, int64_t n, const int64_t* st) {
    const T* in = x + off[0];
    O* o = out + off[1];
    if (st[1] == 0) {
      A acc = static_cast<A>(R::Identity());
      for (int64_t i = 0; i < n; ++i) acc = R::Combine(acc, static_cast<A>(in[i * st[0]]));
      *o = static_cast<O>(R::Combine(static_cast<A>(*o), acc));
    } else if (st[0] == 1 && st[1] == 1) {
      for (int64_t i = 0; i < n; ++i) o[i] = R::Combine(o[i], static_cast<O>(in[i]));
    } else {
      for (int64_t i = 0; i < n; ++i) {
        o[i * st[1]] = R::Combine(o[i * st[1]], static_cast<O>(in[i * st[0]]));
      }
    }
  });
  if constexpr (kKind == Kind::kMean) {
    if (plan.count == 0) {
      for (int64_t i = 0; i < out_n; ++i) out[i] = std::numeric_limits<O>::quiet_NaN();
    } else {
      const O count = static_cast<O>(plan.count);
      for (int64_t i = 0; i < out_n; ++i) out[i] /= count;
    }
  }
}

template <Kind kKind>
Status ReduceKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const ReducePlan plan, PlanReduce(ctx));
  constexpr DTypeSet kSet = kKind == Kind::kMean ? DTypeSet::kFloating : DTypeSet::kNumeric;
  return Dispatch<kSet>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    if constexpr (kIsHalf<T> && (kKind == Kind::kSum || kKind == Kind::kMean)) {
      // Sum in float, round once (max/min need no accumulator: they pick a value).
      const int64_t out_n = ctx.outputs[0].shape.num_elements();
      float* acc = FloatScratch(0, out_n);
      Reduce<kKind>(plan, ctx.inputs[0].shape, In<T>(ctx, 0), acc);
      ConvertRange(acc, Out<T>(ctx, 0), out_n);
    } else {
      Reduce<kKind>(plan, ctx.inputs[0].shape, In<T>(ctx, 0), Out<T>(ctx, 0));
    }
    return Status::Ok();
  });
}

}  // namespace

Status RegisterReduceKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"reduce_sum", Checked<ReduceKernel<Kind::kSum>>},
      {"reduce_mean", Checked<ReduceKernel<Kind::kMean>>},
      {"reduce_max", Checked<ReduceKernel<Kind::kMax>>},
      {"reduce_min", Checked<ReduceKernel<Kind::kMin>>},
  };
  return RegisterAll(r, Device::kCpu, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
