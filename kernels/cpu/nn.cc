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

#include "kernels/cpu/arith.h"
#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/families.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// ---- layer_norm ----

struct LayerNormPlan {
  int64_t rows = 1, cols = 1, params = 1;  // params = |gamma| = |beta|
  double epsilon = 0;
};

Result<LayerNormPlan> PlanLayerNorm(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  const int nd = x.shape.ndim();
  if (nd < 1) {
    return KernelError(ctx,
                       "input \"x\" has shape " + x.shape.ToString() + "; expected at least 1 dim");
  }
  TESS_ASSIGN_OR_RETURN(const int64_t norm_attr, IntAttr(ctx, "begin_norm_axis"));
  TESS_ASSIGN_OR_RETURN(const int64_t params_attr, IntAttr(ctx, "begin_params_axis"));
  TESS_ASSIGN_OR_RETURN(const int norm, NormalizeAxis(ctx, "begin_norm_axis", norm_attr, 0));
  TESS_ASSIGN_OR_RETURN(const int params, NormalizeAxis(ctx, "begin_params_axis", params_attr, 0));
  LayerNormPlan plan;
  TESS_ASSIGN_OR_RETURN(plan.epsilon, FloatAttr(ctx, "epsilon"));
  TESS_ASSIGN_OR_RETURN(const Shape param_shape,
                        Shape::Make(x.shape.data() + params, static_cast<size_t>(nd - params)));
  for (int slot : {1, 2}) {
    TESS_RETURN_IF_ERROR(ExpectDType(ctx, slot, x.dtype, "x"));
    if (ctx.inputs[slot].shape != param_shape) {
      return KernelError(ctx, "input \"" + InputName(ctx, slot) + "\" has shape " +
                                  ctx.inputs[slot].shape.ToString() + " but input \"x\" " +
                                  x.shape.ToString() + " with begin_params_axis " +
                                  std::to_string(params) + " needs " + param_shape.ToString());
    }
  }
  TESS_ASSIGN_OR_RETURN(const Shape stats, Shape::Make(x.shape.data(), static_cast<size_t>(norm)));
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, x.shape, x.dtype));
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 1, stats, x.dtype));
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 2, stats, x.dtype));
  plan.rows = stats.num_elements();
  for (int i = norm; i < nd; ++i) plan.cols *= x.shape.dim(i);
  plan.params = param_shape.num_elements();
  return plan;
}

// y[i] = (x[i] - mean) * inv * gamma[i] + beta[i] over one contiguous stretch.
template <typename T>
void Normalize(const T* x, const T* gamma, const T* beta, T* y, int64_t n, T mean, T inv) {
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * inv * gamma[i] + beta[i];
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
    if (p.params >= p.cols) {
      // gamma spans whole rows: this row's stretch starts at (r * cols) % params.
      const int64_t g = (r * p.cols) % p.params;
      Normalize(xr, gamma + g, beta + g, yr, p.cols, mean[r], inv_variance[r]);
    } else {
      // gamma repeats params-long pieces inside the row.
      for (int64_t c = 0; c < p.cols; c += p.params) {
        Normalize(xr + c, gamma, beta, yr + c, p.params, mean[r], inv_variance[r]);
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
  const LocalTensor& a = ctx.inputs[0];
  const LocalTensor& b = ctx.inputs[1];
  TESS_RETURN_IF_ERROR(ExpectDType(ctx, 1, a.dtype, "a"));
  TESS_ASSIGN_OR_RETURN(const int64_t axis_attr, IntAttr(ctx, "axis"));
  TESS_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, "axis", axis_attr, 0));
  const int64_t len = a.shape.dim(axis);
  if (b.shape.ndim() != 1 || b.shape.dim(0) != len) {
    return KernelError(ctx, "input \"b\" has shape " + b.shape.ToString() + " but \"a\" " +
                                a.shape.ToString() + " needs [" + std::to_string(len) +
                                "] (its axis " + std::to_string(axis) + ")");
  }
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, a.shape, a.dtype));
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= a.shape.dim(i);
  for (int i = axis + 1; i < a.shape.ndim(); ++i) inner *= a.shape.dim(i);
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
  return RegisterAll(r, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
