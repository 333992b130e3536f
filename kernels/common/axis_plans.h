// Plans (kernel_plans.h's contract) of the ops added for training that work along one
// axis or a set of axes: argmax, cumsum, var / std, and the row losses nll_loss and
// cross_entropy. The var geometry is shared by the
// CPU and CUDA kernels as host/device code.
#ifndef TESSERA_KERNELS_COMMON_AXIS_PLANS_H_
#define TESSERA_KERNELS_COMMON_AXIS_PLANS_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/common/exact_minmax.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/kernel/kernel.h"
#include "kernels/common/kernel_plans.h"

namespace tessera {
namespace kernels {

// argmax: x [outer, len, inner] around attribute "axis"; out i64, x's shape without
// the axis (size 1 there with "keepdims"). An empty axis is an error (no index to
// give) unless there are no rows at all.
Result<AxisSplit> PlanArgmax(const KernelContext& ctx);

// cumsum: x [outer, len, inner] around attribute "axis"; out like x.
Result<AxisSplit> PlanCumsum(const KernelContext& ctx);

// var, std over attribute "axes" ([] = all) with "keepdims" and "correction": output
// element o reduces the x elements at Base(o) + Offset(e) for e in [0, count).
struct VarPlan {
  int64_t out_count = 0;
  int64_t count = 0;
  double divisor = 0;  // count - correction; <= 0 makes the result NaN
  int kept = 0, reduced = 0;
  int64_t kept_dims[Shape::kMaxDims] = {}, kept_strides[Shape::kMaxDims] = {};
  int64_t reduced_dims[Shape::kMaxDims] = {}, reduced_strides[Shape::kMaxDims] = {};

  TESS_HOST_DEVICE int64_t Base(int64_t o) const {
    return Unravel(o, kept, kept_dims, kept_strides);
  }
  TESS_HOST_DEVICE int64_t Offset(int64_t e) const {
    return Unravel(e, reduced, reduced_dims, reduced_strides);
  }

 private:
  // The element offset of row-major index `flat` over `n` axes of the given dims and
  // element strides.
  TESS_HOST_DEVICE static int64_t Unravel(int64_t flat, int n, const int64_t* dims,
                                          const int64_t* strides) {
    int64_t off = 0;
    for (int a = n - 1; a >= 0; --a) {
      const int64_t q = flat / dims[a];
      off += (flat - q * dims[a]) * strides[a];
      flat = q;
    }
    return off;
  }
};
Result<VarPlan> PlanVar(const KernelContext& ctx);

// ---- the per-row math both devices run (host and device code) ----

// argmax's order: a replaces the best b when it is larger, or NaN (the first NaN
// wins); ties keep the first index.
template <typename T>
TESS_HOST_DEVICE inline bool ArgmaxBeats(T a, T b) {
  if constexpr (kIsFloating<T>) {  // f16/bf16 included
    if (b != b) return false;      // a NaN best stays
    if (a != a) return true;
  }
  return a > b;
}

// var of output element `o` (two passes in double: the mean, then the squared
// deviations), or its square root for std; NaN for a divisor <= 0.
template <bool kSqrt, typename T>
TESS_HOST_DEVICE inline T VarianceAt(const VarPlan& p, const T* x, int64_t o) {
  if (p.divisor <= 0) return static_cast<T>(NAN);
  const T* base = x + p.Base(o);
  double sum = 0;
  for (int64_t e = 0; e < p.count; ++e) sum += base[p.Offset(e)];
  const double mean = sum / static_cast<double>(p.count);
  double sq = 0;
  for (int64_t e = 0; e < p.count; ++e) {
    const double d = base[p.Offset(e)] - mean;
    sq += d * d;
  }
  const double var = sq / p.divisor;
  return static_cast<T>(kSqrt ? ::sqrt(var) : var);
}

// One row's loss in double: -row[t] (nll_loss) or -log_softmax(row)[t] with a
// max-shifted log-sum-exp (cross_entropy, kLogits).
template <bool kLogits, typename T>
TESS_HOST_DEVICE inline double RowLoss(const T* row, int64_t classes, int64_t t) {
  if constexpr (!kLogits) {
    return -static_cast<double>(row[t]);
  } else {
    double m = row[0];
    for (int64_t c = 1; c < classes; ++c) m = row[c] > m ? static_cast<double>(row[c]) : m;
    double s = 0;
    for (int64_t c = 0; c < classes; ++c) s += ::exp(static_cast<double>(row[c]) - m);
    return ::log(s) + m - static_cast<double>(row[t]);
  }
}

// nll_loss (log_probs) and cross_entropy (logits): scores [rows, classes] floating,
// target [rows] i32/i64 (dispatched by the kernel), attribute "reduction" (0 none:
// out [rows]; 1 mean, 2 sum: out []). A mean divides by the LOGICAL batch size (the
// caller's logical_input_shapes, else the local rows), so per-rank means of a batch
// split add up to the global mean.
struct LossPlan {
  int64_t rows = 0, classes = 0;
  int64_t reduction = 1;
  double divisor = 1;  // the logical rows for a mean, else 1
};
Result<LossPlan> PlanLoss(const KernelContext& ctx);
// "target[1] = 7 is outside [0, 4), the classes of \"log_probs\" [2,4]".
std::string TargetError(const char* scores_name, const Shape& scores, const Shape& target,
                        int64_t flat, int64_t value);

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_COMMON_AXIS_PLANS_H_
