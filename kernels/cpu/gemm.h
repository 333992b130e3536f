// Dense matrix multiply on the CPU through OpenBLAS (cblas_sgemm / cblas_dgemm).
#ifndef TESSERA_KERNELS_CPU_GEMM_H_
#define TESSERA_KERNELS_CPU_GEMM_H_

#include <cstdint>

#include "core/common/status.h"

namespace tessera {
namespace kernels {
namespace cpu {

enum class Transpose { kNo, kYes };

// C = alpha * op(A) * op(B) + beta * C on row-major matrices, where op(X) is X or X^T.
// op(A) is m x k, op(B) is k x n and C is m x n. lda, ldb and ldc are row strides in
// elements: A is stored as m x k (k x m when transposed), so lda >= its column count, and
// likewise for B; ldc >= n. When beta is 0, C need not be initialized.
// Sizes beyond the BLAS integer range, negative sizes, short strides and null pointers to
// non-empty matrices are INVALID_ARGUMENT; nothing is read or written then.
Status Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n, int64_t k,
            float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
            float* c, int64_t ldc);
Status Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n, int64_t k,
            double alpha, const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
            double* c, int64_t ldc);

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_CPU_GEMM_H_
