// matmul and batch_matmul. f32/f64 go straight to cblas_sgemm/dgemm (through Gemm) on
// the callers' buffers with the transposes as BLAS flags: no copies. i32/i64 use plain
// loops with wrapping arithmetic. batch_matmul runs one GEMM per batch entry; its
// shape function requires equal batch axes, so there is no batch broadcasting.
#include <algorithm>
#include <type_traits>

#include "kernels/cpu/arith.h"
#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/families.h"
#include "kernels/cpu/gemm.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

struct MatmulDims {
  int64_t batch, m, n, k;
  bool ta, tb;
};

// Reads the local shapes of a and b (rank 2 for matmul, equal ranks >= 3 with equal
// batch axes for batch_matmul) and checks the output against them.
Result<MatmulDims> CheckMatmul(const KernelContext& ctx, bool batched) {
  const LocalTensor& a = ctx.inputs[0];
  const LocalTensor& b = ctx.inputs[1];
  TESS_RETURN_IF_ERROR(ExpectDType(ctx, 1, a.dtype, "a"));
  TESS_ASSIGN_OR_RETURN(const bool ta, BoolAttr(ctx, "transpose_a"));
  TESS_ASSIGN_OR_RETURN(const bool tb, BoolAttr(ctx, "transpose_b"));
  const int nd = a.shape.ndim();
  const bool ranks_ok = batched ? nd >= 3 && b.shape.ndim() == nd : nd == 2 && b.shape.ndim() == 2;
  if (!ranks_ok) {
    return KernelError(ctx, "inputs \"a\" " + a.shape.ToString() + " and \"b\" " +
                                b.shape.ToString() + " must both have " +
                                (batched ? "the same rank, at least 3" : "rank 2"));
  }
  MatmulDims d{1, 0, 0, 0, ta, tb};
  Shape out = a.shape;
  for (int i = 0; i < nd - 2; ++i) {
    if (a.shape.dim(i) != b.shape.dim(i)) {
      return KernelError(ctx, "input \"b\" has shape " + b.shape.ToString() + " but \"a\" has " +
                                  a.shape.ToString() + ": batch axis " + std::to_string(i) +
                                  " differs");
    }
    d.batch *= a.shape.dim(i);
  }
  d.m = a.shape.dim(ta ? nd - 1 : nd - 2);
  d.k = a.shape.dim(ta ? nd - 2 : nd - 1);
  const int64_t kb = b.shape.dim(tb ? nd - 1 : nd - 2);
  d.n = b.shape.dim(tb ? nd - 2 : nd - 1);
  if (kb != d.k) {
    return KernelError(
        ctx, "input \"b\" has shape " + b.shape.ToString() + (tb ? " (transpose_b)" : "") +
                 " with " + std::to_string(kb) + " rows but \"a\" " + a.shape.ToString() +
                 (ta ? " (transpose_a)" : "") + " has " + std::to_string(d.k) + " columns");
  }
  out.set_dim(nd - 2, d.m);
  out.set_dim(nd - 1, d.n);
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, out, a.dtype));
  return d;
}

// One integer product out = op(a) op(b), i-p-j order so the inner loop runs along
// contiguous rows of b and out when b is not transposed.
template <typename T>
void IntegerMatmul(const MatmulDims& d, const T* a, const T* b, T* out) {
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

template <bool kBatched>
Status MatmulKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const MatmulDims d, CheckMatmul(ctx, kBatched));
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
      const T* bi = b + i * d.k * d.n;
      T* oi = out + i * out_size;
      if constexpr (std::is_floating_point_v<T>) {
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
  return RegisterAll(r, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
