// Launch plumbing and device-side helpers shared by the CUDA kernels. CUDA source: include
// it from .cu files only.
#ifndef TESSERA_KERNELS_CUDA_LAUNCH_CU_H_
#define TESSERA_KERNELS_CUDA_LAUNCH_CU_H_

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/device/cuda_error.h"
#include "core/kernel/kernel.h"
#include "kernels/common/arith.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/kernel_args.h"
#include "kernels/common/strided_loop.h"
#include "kernels/cuda/stream_state.h"

namespace tessera {
namespace kernels {
namespace cuda {

inline constexpr int kThreads = 256;
// Grid-stride loops cover any n; capping the grid keeps launches cheap and far below
// gridDim.x's limit (2^31 - 1) even for n near INT64_MAX. 8192 blocks of 256 threads
// fill any current GPU many times over.
inline constexpr int64_t kMaxBlocks = 8192;

inline unsigned int BlockCount(int64_t n, int64_t threads = kThreads) {
  return static_cast<unsigned int>(std::min<int64_t>((n + threads - 1) / threads, kMaxBlocks));
}

// Threads for one block that reduces `count` elements: a whole number of warps, no more
// than the elements need and at most kThreads.
inline int ReduceThreads(int64_t count) {
  int threads = 32;
  while (threads < kThreads && threads < count) threads *= 2;
  return threads;
}

inline cudaStream_t StreamOf(const KernelContext& ctx) {
  return static_cast<cudaStream_t>(ctx.stream);
}

// Launch failures (no device, bad configuration) are reported by cudaGetLastError,
// which also clears them so they do not leak into the caller's next CUDA call:
// "<op>: <kernel> launch failed: ...".
inline Status CheckLaunch(const KernelContext& ctx, std::string_view kernel) {
  const cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) return Status::Ok();
  return device::CudaError(std::string(OpName(ctx)) + ": " + std::string(kernel) + " launch", err);
}
// The same for a runtime call that enqueues work (cudaMemcpyAsync, ...).
inline Status CheckCall(const KernelContext& ctx, std::string_view call, cudaError_t err) {
  if (err == cudaSuccess) return Status::Ok();
  return device::CudaError(std::string(OpName(ctx)) + ": " + std::string(call), err);
}

// `status` with the op's name in front: "<op>: cudaGetDevice failed: ...".
inline Status Named(const KernelContext& ctx, const Status& status) {
  return Status(status.code(), std::string(OpName(ctx)) + ": " + status.message());
}

// The call's stream state (stream_state.h), with a failure named after the op.
inline Result<StreamState*> StateOf(const KernelContext& ctx) {
  Result<StreamState*> state = GetStreamState(ctx.stream);
  if (state.ok()) return state;
  return Named(ctx, state.status());
}

__device__ inline int64_t GlobalThread() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline int64_t GridThreads() { return static_cast<int64_t>(blockDim.x) * gridDim.x; }

// Math overloads that pick CUDA's float or double function by argument type.
__device__ inline float Erf(float x) { return erff(x); }
__device__ inline double Erf(double x) { return erf(x); }
__device__ inline float Exp(float x) { return expf(x); }
__device__ inline double Exp(double x) { return exp(x); }
__device__ inline float Log(float x) { return logf(x); }
__device__ inline double Log(double x) { return log(x); }
__device__ inline float Sin(float x) { return sinf(x); }
__device__ inline double Sin(double x) { return sin(x); }
__device__ inline float Cos(float x) { return cosf(x); }
__device__ inline double Cos(double x) { return cos(x); }
__device__ inline float Sqrt(float x) { return sqrtf(x); }
__device__ inline double Sqrt(double x) { return sqrt(x); }
__device__ inline float Fabs(float x) { return fabsf(x); }
__device__ inline double Fabs(double x) { return fabs(x); }
__device__ inline float Pow(float x, float y) { return powf(x, y); }
__device__ inline double Pow(double x, double y) { return pow(x, y); }
__device__ inline float Tanh(float x) { return tanhf(x); }
__device__ inline double Tanh(double x) { return tanh(x); }

// Functors for BlockReduce.
struct AddOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return a + b;
  }
};
struct MaxOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return Max(a, b);
  }
};

// An unsigned type of the element's size: kernels that only move elements copy bits.
template <size_t kSize>
struct Bits;
template <>
struct Bits<1> {
  using type = uint8_t;
};
template <>
struct Bits<2> {
  using type = uint16_t;
};
template <>
struct Bits<4> {
  using type = uint32_t;
};
template <>
struct Bits<8> {
  using type = uint64_t;
};

// Calls fn(Type<U>{}) with U the unsigned type of `dtype`'s size (every supported
// dtype has 1 (bool), 2 (f16, bf16), 4 or 8 bytes).
template <typename Fn>
Status VisitBits(DType dtype, Fn&& fn) {
  switch (DTypeSize(dtype)) {
    case 8: return fn(Type<Bits<8>::type>{});
    case 2: return fn(Type<Bits<2>::type>{});
    case 1: return fn(Type<Bits<1>::type>{});
    default: return fn(Type<Bits<4>::type>{});
  }
}

// Maps the flat row-major index of a contiguous output to the element offsets of N
// input operands, over the merged axes of a StridedLoop (the output is its last
// operand). Passed to kernels by value.
template <int N>
struct IndexMap {
  int ndim = 0;
  int64_t dims[Shape::kMaxDims] = {};
  int64_t strides[N][Shape::kMaxDims] = {};

  __device__ void Offsets(int64_t flat, int64_t (&offsets)[N]) const {
    for (int k = 0; k < N; ++k) offsets[k] = 0;
    for (int a = ndim - 1; a >= 0; --a) {
      const int64_t q = flat / dims[a];
      const int64_t r = flat - q * dims[a];
      for (int k = 0; k < N; ++k) offsets[k] += r * strides[k][a];
      flat = q;
    }
  }
};

// The first N operands of `loop` (whose last operand is the contiguous output).
template <int N, int M>
IndexMap<N> MakeIndexMap(const StridedLoop<M>& loop) {
  static_assert(N < M, "the last operand is the output");
  IndexMap<N> map;
  map.ndim = loop.ndim();
  for (int a = 0; a < loop.ndim(); ++a) {
    map.dims[a] = loop.dim(a);
    for (int k = 0; k < N; ++k) map.strides[k][a] = loop.stride(k, a);
  }
  return map;
}

// *address += value for f16/bf16 (Float16/BFloat16), added in float and rounded: a
// compare-and-swap loop on the aligned 32-bit word holding the element (the other half
// of the word is written back as it was read, or the swap fails and retries). Device
// allocations are at least 256-byte aligned and sized in whole words by the caching
// allocator, so the word never leaves the allocation.
template <typename H>
__device__ inline void AtomicAddHalf(H* address, float value) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(address);
  unsigned int* word = reinterpret_cast<unsigned int*>(at & ~uintptr_t{3});
  const unsigned int shift = (at & 2) != 0 ? 16u : 0u;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    const H current = H::FromBits(static_cast<uint16_t>(assumed >> shift));
    const H sum(static_cast<float>(current) + value);
    const unsigned int updated =
        (assumed & ~(0xffffu << shift)) | (static_cast<unsigned int>(sum.bits) << shift);
    old = atomicCAS(word, assumed, updated);
  } while (assumed != old);
}

// Reduces v over the block with `op` (associative and commutative); every thread gets
// the result. blockDim.x must be a multiple of 32; `shared` holds 32 T.
template <typename T, typename Op>
__device__ T BlockReduce(T v, Op op, T* shared) {
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, o));
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  __syncthreads();  // `shared` may still be read from a previous call
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    // Lanes past the block's warps hold no partial: every step folds in only lanes
    // below `warps`, so lane 0 ends with all of them.
    const int warps = blockDim.x / 32;
    v = shared[lane < warps ? lane : 0];
    for (int o = 16; o > 0; o >>= 1) {
      const T other = __shfl_down_sync(0xffffffffu, v, o);
      if (lane + o < warps) v = op(v, other);
    }
    if (lane == 0) shared[0] = v;
  }
  __syncthreads();
  return shared[0];
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_CUDA_LAUNCH_CU_H_
