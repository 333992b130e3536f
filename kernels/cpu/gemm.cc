#include "kernels/cpu/gemm.h"

#include <cblas.h>

#include <algorithm>
#include <limits>
#include <string>

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// Every argument in one line, so any error names the full call.
std::string Describe(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n, int64_t k,
                     int64_t lda, int64_t ldb, int64_t ldc) {
  return "(transpose_a=" + std::string(transpose_a == Transpose::kYes ? "yes" : "no") +
         ", transpose_b=" + std::string(transpose_b == Transpose::kYes ? "yes" : "no") +
         ", m=" + std::to_string(m) + ", n=" + std::to_string(n) + ", k=" + std::to_string(k) +
         ", lda=" + std::to_string(lda) + ", ldb=" + std::to_string(ldb) +
         ", ldc=" + std::to_string(ldc) + ")";
}

// Checks everything BLAS would reject (it would print to stderr and return silently), plus
// the int64 -> blasint narrowing.
Status CheckArguments(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n, int64_t k,
                      const void* a, int64_t lda, const void* b, int64_t ldb, const void* c,
                      int64_t ldc) {
  // Built only on failure: the success path is the matmul hot path and allocates nothing.
  auto call = [&] { return Describe(transpose_a, transpose_b, m, n, k, lda, ldb, ldc); };
  constexpr int64_t kMaxBlasInt = std::numeric_limits<blasint>::max();
  const struct {
    const char* name;
    int64_t value;
  } sizes[] = {{"m", m}, {"n", n}, {"k", k}, {"lda", lda}, {"ldb", ldb}, {"ldc", ldc}};
  for (const auto& size : sizes) {
    if (size.value < 0 || size.value > kMaxBlasInt) {
      return InvalidArgument("Gemm: " + std::string(size.name) + "=" + std::to_string(size.value) +
                             " is outside [0, " + std::to_string(kMaxBlasInt) + "] " + call());
    }
  }
  // Row-major storage: the stride of each matrix must cover the columns it stores.
  const int64_t a_cols = transpose_a == Transpose::kYes ? m : k;
  const int64_t b_cols = transpose_b == Transpose::kYes ? k : n;
  if (lda < std::max<int64_t>(1, a_cols)) {
    return InvalidArgument("Gemm: lda=" + std::to_string(lda) + " is less than max(1, " +
                           std::to_string(a_cols) + "), the column count of A " + call());
  }
  if (ldb < std::max<int64_t>(1, b_cols)) {
    return InvalidArgument("Gemm: ldb=" + std::to_string(ldb) + " is less than max(1, " +
                           std::to_string(b_cols) + "), the column count of B " + call());
  }
  if (ldc < std::max<int64_t>(1, n)) {
    return InvalidArgument("Gemm: ldc=" + std::to_string(ldc) + " is less than max(1, " +
                           std::to_string(n) + "), the column count of C " + call());
  }
  if (a == nullptr && m > 0 && k > 0) return InvalidArgument("Gemm: a is null " + call());
  if (b == nullptr && k > 0 && n > 0) return InvalidArgument("Gemm: b is null " + call());
  if (c == nullptr && m > 0 && n > 0) return InvalidArgument("Gemm: c is null " + call());
  return Status::Ok();
}

CBLAS_TRANSPOSE ToCblas(Transpose transpose) {
  return transpose == Transpose::kYes ? CblasTrans : CblasNoTrans;
}

}  // namespace

Status Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n, int64_t k,
            float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
            float* c, int64_t ldc) {
  TESS_RETURN_IF_ERROR(CheckArguments(transpose_a, transpose_b, m, n, k, a, lda, b, ldb, c, ldc));
  // An empty C needs no work, and BLAS must not see the null pointers allowed for it.
  if (m == 0 || n == 0) return Status::Ok();
  cblas_sgemm(CblasRowMajor, ToCblas(transpose_a), ToCblas(transpose_b), m, n, k, alpha, a, lda, b,
              ldb, beta, c, ldc);
  return Status::Ok();
}

Status Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n, int64_t k,
            double alpha, const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
            double* c, int64_t ldc) {
  TESS_RETURN_IF_ERROR(CheckArguments(transpose_a, transpose_b, m, n, k, a, lda, b, ldb, c, ldc));
  if (m == 0 || n == 0) return Status::Ok();
  cblas_dgemm(CblasRowMajor, ToCblas(transpose_a), ToCblas(transpose_b), m, n, k, alpha, a, lda, b,
              ldb, beta, c, ldc);
  return Status::Ok();
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
