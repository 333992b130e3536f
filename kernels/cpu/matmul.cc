// matmul and batch_matmul. f32/f64 go straight to cblas_sgemm/dgemm (through Gemm) on
// the callers' buffers with the transposes as BLAS flags: no copies. i32/i64 use plain
// loops with wrapping arithmetic. batch_matmul runs one GEMM per batch entry; its
// shape function requires equal batch axes, so there is no batch broadcasting. matmul
// with a of rank > 2 shares its 2-d b across a's leading axes: one GEMM over all of
// a's rows, or (transpose_a) one per batch entry with the same b.
// f16/bf16: each batch entry's a and b are converted to float (per-thread scratch),
// multiplied by cblas_sgemm (float accumulation) and rounded once into out.
#include <algorithm>
#include <type_traits>

#include "kernels/common/arith.h"
#include "kernels/common/kernel_plans.h"
#include "kernels/cpu/families.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/scratch.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// One integer product out = op(a) op(b), i-p-j order so the inner loop runs along
// contiguous rows of b and out when b is not transposed.
template <typename T>
void IntegerMatmul(const MatmulPlan& d, const T* a, const T* b, T* out) {
  std::fill(out, out + d.m * d.n, T(0));
  for (int64_t i = 0; i < d.m; ++i) {
    T* row = out + i * d.n;
    for (int64_t p = 0; p < d.k; ++p) {
      const T av = d.ta ? a[p * d.m + i] : a[i * d.k + p];
      if (d.tb) {
        for (int64_t j = 0; j < d.n; ++j) row[j] = Add(row[j], Mul(av, b[j * d.k + p]));
      } else {
        const T* brow = b + p * d.n;
        for (int64_t j = 0; j < d.n; ++j) row[j] = Add(row[j], Mul(av, brow[j]));
      }
    }
  }
}

// One f16/bf16 product: float copies of a and b, sgemm, rounded store.
template <typename T>
Status HalfMatmul(const MatmulPlan& d, const T* a, const T* b, T* out) {
  const int64_t a_n = d.m * d.k, b_n = d.k * d.n, out_n = d.m * d.n;
  float* af = FloatScratch(0, a_n);
  float* bf = FloatScratch(1, b_n);
  float* cf = FloatScratch(2, out_n);
  ConvertRange(a, af, a_n);
  ConvertRange(b, bf, b_n);
  TESS_RETURN_IF_ERROR(Gemm(d.ta ? Transpose::kYes : Transpose::kNo,
                            d.tb ? Transpose::kYes : Transpose::kNo, d.m, d.n, d.k, 1.0f, af,
                            d.ta ? d.m : d.k, bf, d.tb ? d.k : d.n, 0.0f, cf, d.n));
  ConvertRange(cf, out, out_n);
  return Status::Ok();
}

template <bool kBatched>
Status MatmulKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const MatmulPlan d, PlanMatmul(ctx, kBatched));
  return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const T* a = In<T>(ctx, 0);
    const T* b = In<T>(ctx, 1);
    T* out = Out<T>(ctx, 0);
    const int64_t out_size = d.m * d.n;
    if (d.batch * out_size == 0) return Status::Ok();
    if (d.k == 0) {
      // An empty sum: BLAS would read C to scale it, and C is uninitialised.
      std::fill(out, out + d.batch * out_size, T(0));
      return Status::Ok();
    }
    for (int64_t i = 0; i < d.batch; ++i) {
      const T* ai = a + i * d.m * d.k;
      const T* bi = b + i * d.b_stride;
      T* oi = out + i * out_size;
      if constexpr (kIsHalf<T>) {
        Status s = HalfMatmul(d, ai, bi, oi);
        if (!s.ok()) return KernelError(ctx, s.message());
      } else if constexpr (std::is_floating_point_v<T>) {
        Status s =
            Gemm(d.ta ? Transpose::kYes : Transpose::kNo, d.tb ? Transpose::kYes : Transpose::kNo,
                 d.m, d.n, d.k, T(1), ai, d.ta ? d.m : d.k, bi, d.tb ? d.k : d.n, T(0), oi, d.n);
        if (!s.ok()) return KernelError(ctx, s.message());  // e.g. sizes beyond BLAS's int
      } else {
        IntegerMatmul(d, ai, bi, oi);
      }
    }
    return Status::Ok();
  });
}

}  // namespace

Status RegisterMatmulKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"matmul", Checked<MatmulKernel<false>>},
      {"batch_matmul", Checked<MatmulKernel<true>>},
  };
  return RegisterAll(r, Device::kCpu, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
