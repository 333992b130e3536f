// softmax and log_softmax along any axis, and sparse_softmax_cross_entropy along the
// last. Numerically stable: every exponent is x - max(row) <= 0, sums accumulate in
// double, and log_softmax is (x - max) - log(sum) rather than log(softmax). A row
// holding NaN or +inf (or only -inf) comes out NaN, as in NumPy-style references.
//
// A row along the last axis is contiguous. Along an inner axis, rows are strided by
// `inner`, so the kernel handles a block of up to kBlock neighbouring rows at once with
// their maxima and sums on the stack: every loop then runs along contiguous memory.
//
// f16/bf16 compute in float (C = Compute<T>) and round once on store: out holds only
// the final value, so the last pass recomputes exp(x - max) rather than rescaling a
// rounded intermediate.
#include <algorithm>
#include <cmath>

#include "kernels/common/arith.h"
#include "kernels/common/kernel_plans.h"
#include "kernels/cpu/families.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

constexpr int64_t kBlock = 64;

template <typename T>
struct RowStats {
  T max;
  double sum;  // of exp(x - max)
};

// One contiguous row: writes softmax (or log_softmax) to out, returns max and sum.
template <bool kLog, typename T>
RowStats<T> SoftmaxRow(const T* x, T* out, int64_t n) {
  using C = Compute<T>;
  T m = Lowest<T>();
  for (int64_t i = 0; i < n; ++i) m = Max(m, x[i]);
  const C mc = m;
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const C e = std::exp(C(x[i]) - mc);
    if constexpr (!kLog && !kIsHalf<T>) out[i] = e;
    sum += e;
  }
  if constexpr (kLog) {
    const C log_sum = static_cast<C>(std::log(sum));
    for (int64_t i = 0; i < n; ++i) out[i] = (C(x[i]) - mc) - log_sum;
  } else if constexpr (kIsHalf<T>) {
    const C inv = static_cast<C>(1.0 / sum);
    for (int64_t i = 0; i < n; ++i) out[i] = std::exp(C(x[i]) - mc) * inv;
  } else {
    const T inv = static_cast<T>(1.0 / sum);
    for (int64_t i = 0; i < n; ++i) out[i] *= inv;
  }
  return {m, sum};
}

// `width` <= kBlock rows along an inner axis: element a of row j sits at a * inner + j.
template <bool kLog, typename T>
void SoftmaxBlock(const T* x, T* out, int64_t len, int64_t inner, int64_t width) {
  using C = Compute<T>;
  T m[kBlock];
  double sum[kBlock];
  C scale[kBlock];
  std::fill(m, m + width, Lowest<T>());
  std::fill(sum, sum + width, 0.0);
  for (int64_t a = 0; a < len; ++a) {
    const T* row = x + a * inner;
    for (int64_t j = 0; j < width; ++j) m[j] = Max(m[j], row[j]);
  }
  for (int64_t a = 0; a < len; ++a) {
    const T* row = x + a * inner;
    T* o = out + a * inner;
    for (int64_t j = 0; j < width; ++j) {
      const C e = std::exp(C(row[j]) - C(m[j]));
      if constexpr (!kIsHalf<T>) o[j] = kLog ? row[j] - m[j] : e;
      sum[j] += e;
    }
  }
  for (int64_t j = 0; j < width; ++j) {
    scale[j] = static_cast<C>(kLog ? std::log(sum[j]) : 1.0 / sum[j]);
  }
  for (int64_t a = 0; a < len; ++a) {
    T* o = out + a * inner;
    if constexpr (kIsHalf<T>) {
      const T* row = x + a * inner;
      for (int64_t j = 0; j < width; ++j) {
        const C d = C(row[j]) - C(m[j]);
        o[j] = kLog ? d - scale[j] : std::exp(d) * scale[j];
      }
    } else {
      for (int64_t j = 0; j < width; ++j) o[j] = kLog ? o[j] - scale[j] : o[j] * scale[j];
    }
  }
}

template <bool kLog>
Status SoftmaxKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const AxisSplit s, PlanSoftmax(ctx));
  // Nothing to write; and the loops below would still walk every outer index, 2^40 of
  // them for a [2^40, 1, 0] tensor (found by the capi_ops fuzzer).
  if (s.outer == 0 || s.len == 0 || s.inner == 0) return Status::Ok();
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const T* in = In<T>(ctx, 0);
    T* out = Out<T>(ctx, 0);
    for (int64_t o = 0; o < s.outer; ++o) {
      const int64_t base = o * s.len * s.inner;
      if (s.inner == 1) {
        SoftmaxRow<kLog>(in + base, out + base, s.len);
        continue;
      }
      for (int64_t j = 0; j < s.inner; j += kBlock) {
        SoftmaxBlock<kLog>(in + base + j, out + base + j, s.len, s.inner,
                           std::min(kBlock, s.inner - j));
      }
    }
    return Status::Ok();
  });
}

// prob = softmax(prediction) over the last axis; out = -log prob[label], computed as
// log(sum) - (x[label] - max) so a vanishing probability still gives a finite loss.
Status SparseSoftmaxCrossEntropyKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const CrossEntropyPlan plan, PlanSparseSoftmaxCrossEntropy(ctx));
  const int64_t rows = plan.rows;
  const int64_t classes = plan.classes;
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    return Dispatch<DTypeSet::kIndex>(ctx, 1, [&](auto it) {
      using I = typename decltype(it)::type;
      const I* labels = In<I>(ctx, 1);
      // All labels first, so a bad one leaves the outputs untouched.
      for (int64_t r = 0; r < rows; ++r) {
        if (labels[r] < 0 || labels[r] >= classes) {
          return KernelError(ctx, LabelError(ctx.inputs[0].shape, plan.batch, r, labels[r]));
        }
      }
      const T* x = In<T>(ctx, 0);
      T* prob = Out<T>(ctx, 0);
      T* loss = Out<T>(ctx, 1);
      for (int64_t r = 0; r < rows; ++r) {
        const T* row = x + r * classes;
        const RowStats<T> s = SoftmaxRow<false>(row, prob + r * classes, classes);
        loss[r] = static_cast<T>(
            std::log(s.sum) - (static_cast<double>(row[labels[r]]) - static_cast<double>(s.max)));
      }
      return Status::Ok();
    });
  });
}

}  // namespace

Status RegisterSoftmaxKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"softmax", Checked<SoftmaxKernel<false>>},
      {"log_softmax", Checked<SoftmaxKernel<true>>},
      {"sparse_softmax_cross_entropy", Checked<SparseSoftmaxCrossEntropyKernel>},
  };
  return RegisterAll(r, Device::kCpu, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
