// matmul and batch_matmul on CUDA. f32/f64 go to cuBLAS (64-bit-size API, so no int
// limits) on the callers' row-major buffers with no copies: a row-major product
// C = op(A) op(B) is the column-major product C^T = op(B)^T op(A)^T, so the operands are
// passed swapped. Batches use the strided-batched GEMM. Each stream has its own cuBLAS
// handle (stream_state.h). i32/i64 use a shared-memory tiled kernel with wrapping
// arithmetic.
//
// f16/bf16 go to cublasGemmEx with CUBLAS_COMPUTE_32F: tensor cores, products
// accumulated in f32, the result rounded once to the 2-byte type. f32 uses the full
// f32 cublasSgemm unless TESSERA_CUDA_ALLOW_TF32=1 is set in the environment (read
// once): then cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32, whose inputs round to
// TF32 (10-bit mantissa) on tensor cores; an explicit opt-in, as the precision drops
// (docs/dtypes.md).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "kernels/common/arith.h"
#include "kernels/common/kernel_plans.h"
#include "kernels/cuda/families.h"
#include "kernels/cuda/launch.cu.h"
#include "kernels/cuda/stream_state.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

// ---- cuBLAS ----

// The one GemmEx call behind the f16/bf16 (and opted-in TF32) products.
cublasStatus_t GemmEx(cublasHandle_t h, cublasOperation_t tb, cublasOperation_t ta, int64_t n,
                      int64_t m, int64_t k, const void* b, int64_t ldb, const void* a, int64_t lda,
                      void* c, int64_t batch, int64_t b_stride, cudaDataType type,
                      cublasComputeType_t compute) {
  const float one = 1, zero = 0;
  if (batch == 1) {
    return cublasGemmEx_64(h, tb, ta, n, m, k, &one, b, type, ldb, a, type, lda, &zero, c, type, n,
                           compute, CUBLAS_GEMM_DEFAULT);
  }
  return cublasGemmStridedBatchedEx_64(h, tb, ta, n, m, k, &one, b, type, ldb, b_stride, a, type,
                                       lda, m * k, &zero, c, type, n, m * n, batch, compute,
                                       CUBLAS_GEMM_DEFAULT);
}

// TESSERA_CUDA_ALLOW_TF32=1: f32 products on TF32 tensor cores.
bool AllowTf32() {
  static const bool allow = [] {
    const char* v = std::getenv("TESSERA_CUDA_ALLOW_TF32");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  return allow;
}

cublasStatus_t Gemm(cublasHandle_t h, cublasOperation_t tb, cublasOperation_t ta, int64_t n,
                    int64_t m, int64_t k, const Float16* b, int64_t ldb, const Float16* a,
                    int64_t lda, Float16* c, int64_t batch, int64_t b_stride) {
  return GemmEx(h, tb, ta, n, m, k, b, ldb, a, lda, c, batch, b_stride, CUDA_R_16F,
                CUBLAS_COMPUTE_32F);
}

cublasStatus_t Gemm(cublasHandle_t h, cublasOperation_t tb, cublasOperation_t ta, int64_t n,
                    int64_t m, int64_t k, const BFloat16* b, int64_t ldb, const BFloat16* a,
                    int64_t lda, BFloat16* c, int64_t batch, int64_t b_stride) {
  return GemmEx(h, tb, ta, n, m, k, b, ldb, a, lda, c, batch, b_stride, CUDA_R_16BF,
                CUBLAS_COMPUTE_32F);
}

cublasStatus_t Gemm(cublasHandle_t h, cublasOperation_t tb, cublasOperation_t ta, int64_t n,
                    int64_t m, int64_t k, const float* b, int64_t ldb, const float* a, int64_t lda,
                    float* c, int64_t batch, int64_t b_stride) {
  if (AllowTf32()) {
    return GemmEx(h, tb, ta, n, m, k, b, ldb, a, lda, c, batch, b_stride, CUDA_R_32F,
                  CUBLAS_COMPUTE_32F_FAST_TF32);
  }
  const float one = 1, zero = 0;
  if (batch == 1) return cublasSgemm_64(h, tb, ta, n, m, k, &one, b, ldb, a, lda, &zero, c, n);
  return cublasSgemmStridedBatched_64(h, tb, ta, n, m, k, &one, b, ldb, b_stride, a, lda, m * k,
                                      &zero, c, n, m * n, batch);
}

cublasStatus_t Gemm(cublasHandle_t h, cublasOperation_t tb, cublasOperation_t ta, int64_t n,
                    int64_t m, int64_t k, const double* b, int64_t ldb, const double* a,
                    int64_t lda, double* c, int64_t batch, int64_t b_stride) {
  const double one = 1, zero = 0;
  if (batch == 1) return cublasDgemm_64(h, tb, ta, n, m, k, &one, b, ldb, a, lda, &zero, c, n);
  return cublasDgemmStridedBatched_64(h, tb, ta, n, m, k, &one, b, ldb, b_stride, a, lda, m * k,
                                      &zero, c, n, m * n, batch);
}

template <typename T>
Status BlasMatmul(const KernelContext& ctx, const MatmulPlan& d) {
  TESS_ASSIGN_OR_RETURN(StreamState * state, StateOf(ctx));
  std::lock_guard<std::mutex> lock(state->blas_mutex());
  Result<cublasHandle_t> blas = state->Blas();
  if (!blas.ok()) return Named(ctx, blas.status());
  const cublasHandle_t handle = *blas;
  // Row-major A is m x k (k x m when transposed): as column-major its leading dimension
  // is its row length. Likewise B.
  const cublasStatus_t status =
      Gemm(handle, d.tb ? CUBLAS_OP_T : CUBLAS_OP_N, d.ta ? CUBLAS_OP_T : CUBLAS_OP_N, d.n, d.m,
           d.k, In<T>(ctx, 1), d.tb ? d.k : d.n, In<T>(ctx, 0), d.ta ? d.m : d.k, Out<T>(ctx, 0),
           d.batch, d.b_stride);
  if (status == CUBLAS_STATUS_SUCCESS) return Status::Ok();
  const char* call = kIsHalf<T> || (std::is_same_v<T, float> && AllowTf32()) ? "cublasGemmEx"
                     : std::is_same_v<T, float>                              ? "cublasSgemm"
                                                                             : "cublasDgemm";
  return CublasError(std::string(OpName(ctx)) + ": " + call +
                         (d.batch > 1 ? "StridedBatched" : "") + " (m=" + std::to_string(d.m) +
                         ", n=" + std::to_string(d.n) + ", k=" + std::to_string(d.k) +
                         ", batch=" + std::to_string(d.batch) + ")",
                     status);
}

// ---- integers ----

constexpr int kTile = 16;

// One kTile x kTile tile of out per block (blockDim kTile x kTile), tiles numbered over
// (batch, row tiles, column tiles) and walked grid-stride, so any size fits the grid.
template <typename T>
__global__ void IntegerMatmulKernel(const T* a, const T* b, T* out, MatmulPlan d) {
  __shared__ T as[kTile][kTile];
  __shared__ T bs[kTile][kTile + 1];  // +1: column reads do not conflict on banks
  const int64_t row_tiles = (d.m + kTile - 1) / kTile;
  const int64_t col_tiles = (d.n + kTile - 1) / kTile;
  const int64_t tiles = d.batch * row_tiles * col_tiles;
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t batch = tile / (row_tiles * col_tiles);
    const int64_t rest = tile - batch * row_tiles * col_tiles;
    const int64_t i = (rest / col_tiles) * kTile + ty;  // out row
    const int64_t j = (rest % col_tiles) * kTile + tx;  // out column
    const T* ab = a + batch * d.m * d.k;
    const T* bb = b + batch * d.b_stride;
    T acc = 0;
    for (int64_t p0 = 0; p0 < d.k; p0 += kTile) {
      // as[ty][tx] = op(a)[i][p0 + tx]; bs[ty][tx] = op(b)[p0 + ty][j].
      const int64_t pa = p0 + tx, pb = p0 + ty;
      as[ty][tx] = (i < d.m && pa < d.k) ? (d.ta ? ab[pa * d.m + i] : ab[i * d.k + pa]) : T(0);
      bs[ty][tx] = (pb < d.k && j < d.n) ? (d.tb ? bb[j * d.k + pb] : bb[pb * d.n + j]) : T(0);
      __syncthreads();
      for (int p = 0; p < kTile; ++p) acc = Add(acc, Mul(as[ty][p], bs[p][tx]));
      __syncthreads();
    }
    if (i < d.m && j < d.n) out[batch * d.m * d.n + i * d.n + j] = acc;
  }
}

template <bool kBatched>
Status MatmulOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const MatmulPlan d, PlanMatmul(ctx, kBatched));
  return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const int64_t out_elements = d.batch * d.m * d.n;
    if (out_elements == 0) return Status::Ok();
    if (d.k == 0) {
      // An empty sum; all-zero bits are 0 in every dtype.
      return CheckCall(ctx, "cudaMemsetAsync",
                       cudaMemsetAsync(Out<T>(ctx, 0), 0, out_elements * sizeof(T), StreamOf(ctx)));
    }
    if constexpr (kIsFloating<T>) {
      return BlasMatmul<T>(ctx, d);
    } else {
      const int64_t tiles = d.batch * ((d.m + kTile - 1) / kTile) * ((d.n + kTile - 1) / kTile);
      IntegerMatmulKernel<<<static_cast<unsigned int>(std::min<int64_t>(tiles, kMaxBlocks)),
                            dim3(kTile, kTile), 0, StreamOf(ctx)>>>(In<T>(ctx, 0), In<T>(ctx, 1),
                                                                    Out<T>(ctx, 0), d);
      return CheckLaunch(ctx, "IntegerMatmulKernel");
    }
  });
}

}  // namespace

Status RegisterMatmulKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"matmul", Checked<MatmulOp<false>>},
      {"batch_matmul", Checked<MatmulOp<true>>},
  };
  return RegisterAll(r, Device::kCuda, kernels);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
