// layer_norm and bias_add.
//
// layer_norm normalises each row x[r, :] over the axes >= begin_norm_axis (two passes in
// double: mean, then the mean squared deviation, so no cancellation), writes mean[r] and
// inv_variance[r] = 1 / sqrt(var + epsilon), and y = (x - mean) * inv_variance * gamma +
// beta with gamma/beta of shape x.shape[begin_params_axis:]. That shape is a suffix of
// x's, so the gamma entry for flat x index f is f % |gamma|: when begin_params_axis <=
// begin_norm_axis a row sees one contiguous stretch of gamma, otherwise gamma repeats
// within the row. Floating dtypes only. An empty row has mean and inv_variance NaN.
//
// bias_add adds the 1-d b along `axis` of a; every dtype.
#include <cmath>
#include <limits>

#include "kernels/common/arith.h"
#include "kernels/common/kernel_plans.h"
#include "kernels/cpu/families.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// ---- layer_norm ----

// y[i] = (x[i] - mean) * inv * gamma[i] + beta[i] over one contiguous stretch.
// mean and inv are in Compute<T> (float for f16/bf16: not rounded to the 2-byte type).
template <typename T, typename C>
void Normalize(const T* x, const T* gamma, const T* beta, T* y, int64_t n, C mean, C inv) {
  for (int64_t i = 0; i < n; ++i) y[i] = (C(x[i]) - mean) * inv * C(gamma[i]) + C(beta[i]);
}

template <typename T>
void LayerNorm(const LayerNormPlan& p, const T* x, const T* gamma, const T* beta, T* y, T* mean,
               T* inv_variance) {
  for (int64_t r = 0; r < p.rows; ++r) {
    const T* xr = x + r * p.cols;
    T* yr = y + r * p.cols;
    if (p.cols == 0) {
      mean[r] = inv_variance[r] = std::numeric_limits<T>::quiet_NaN();
      continue;
    }
    double sum = 0;
    for (int64_t c = 0; c < p.cols; ++c) sum += xr[c];
    const double mu = sum / static_cast<double>(p.cols);
    double sq = 0;
    for (int64_t c = 0; c < p.cols; ++c) {
      const double d = xr[c] - mu;
      sq += d * d;
    }
    const double inv = 1.0 / std::sqrt(sq / static_cast<double>(p.cols) + p.epsilon);
    mean[r] = static_cast<T>(mu);
    inv_variance[r] = static_cast<T>(inv);
    const auto mean_c = static_cast<Compute<T>>(mu);
    const auto inv_c = static_cast<Compute<T>>(inv);
    if (p.params >= p.cols) {
      // gamma spans whole rows: this row's stretch starts at (r * cols) % params.
      const int64_t g = (r * p.cols) % p.params;
      Normalize(xr, gamma + g, beta + g, yr, p.cols, mean_c, inv_c);
    } else {
      // gamma repeats params-long pieces inside the row.
      for (int64_t c = 0; c < p.cols; c += p.params) {
        Normalize(xr + c, gamma, beta, yr + c, p.params, mean_c, inv_c);
      }
    }
  }
}

Status LayerNormKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const LayerNormPlan plan, PlanLayerNorm(ctx));
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    LayerNorm(plan, In<T>(ctx, 0), In<T>(ctx, 1), In<T>(ctx, 2), Out<T>(ctx, 0), Out<T>(ctx, 1),
              Out<T>(ctx, 2));
    return Status::Ok();
  });
}

// ---- bias_add ----

Status BiasAddKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const AxisSplit s, PlanBiasAdd(ctx));
  const int64_t outer = s.outer, len = s.len, inner = s.inner;
  // Empty: nothing to write, and the outer loop alone could run 2^40 times (softmax's
  // case, found by the capi_ops fuzzer).
  if (outer == 0 || len == 0 || inner == 0) return Status::Ok();
  return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const T* ap = In<T>(ctx, 0);
    const T* bp = In<T>(ctx, 1);
    T* out = Out<T>(ctx, 0);
    for (int64_t o = 0; o < outer; ++o) {
      const T* ar = ap + o * len * inner;
      T* orow = out + o * len * inner;
      if (inner == 1) {
        for (int64_t k = 0; k < len; ++k) orow[k] = Add(ar[k], bp[k]);
        continue;
      }
      for (int64_t k = 0; k < len; ++k) {
        const T bias = bp[k];
        const T* src = ar + k * inner;
        T* dst = orow + k * inner;
        for (int64_t j = 0; j < inner; ++j) dst[j] = Add(src[j], bias);
      }
    }
    return Status::Ok();
  });
}

}  // namespace

Status RegisterNnKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"layer_norm", Checked<LayerNormKernel>},
      {"bias_add", Checked<BiasAddKernel>},
  };
  return RegisterAll(r, Device::kCpu, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
