#include <algorithm>
#include <string>

#include "core/comm/nccl/ordered_keys.h"
#include "core/device/cuda_error.h"

namespace tessera::comm {
namespace {

constexpr int kThreads = 256;
// Grid-stride loops: any count, and a grid far below gridDim.x's limit.
constexpr int64_t kMaxBlocks = 4096;

template <typename Float>
__global__ void ToKeysKernel(const Float* src, OrderedKeyOf<Float>* dst, int64_t count,
                             NanKey nan) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    dst[i] = OrderedKey(src[i], nan);
  }
}

template <typename Float>
__global__ void FromKeysKernel(OrderedKeyOf<Float>* buffer, int64_t count) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const Float x = FromOrderedKey<Float>(buffer[i]);
    reinterpret_cast<Float*>(buffer)[i] = x;
  }
}

unsigned int Blocks(int64_t count) {
  return static_cast<unsigned int>(
      std::min<int64_t>((count + kThreads - 1) / kThreads, kMaxBlocks));
}

Status Launched(const char* what, int64_t count) {
  const cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) return Status::Ok();
  return device::CudaError(std::string(what) + " launch (" + std::to_string(count) + " elements)",
                           err);
}

Status NotKeyed(const char* what, DType dtype) {
  return InvalidArgument(std::string(what) + ": dtype " + DTypeName(dtype) +
                         " has no ordered keys (f32 and f64 do)");
}

}  // namespace

Status ToOrderedKeysAsync(const void* src, void* dst, int64_t count, DType dtype, NanKey nan,
                          cudaStream_t stream) {
  if (count <= 0) return Status::Ok();
  if (dtype == DType::kF32) {
    ToKeysKernel<float><<<Blocks(count), kThreads, 0, stream>>>(
        static_cast<const float*>(src), static_cast<int32_t*>(dst), count, nan);
  } else if (dtype == DType::kF64) {
    ToKeysKernel<double><<<Blocks(count), kThreads, 0, stream>>>(
        static_cast<const double*>(src), static_cast<int64_t*>(dst), count, nan);
  } else {
    return NotKeyed("ToOrderedKeysAsync", dtype);
  }
  return Launched("ToOrderedKeysAsync", count);
}

Status FromOrderedKeysAsync(void* buffer, int64_t count, DType dtype, cudaStream_t stream) {
  if (count <= 0) return Status::Ok();
  if (dtype == DType::kF32) {
    FromKeysKernel<float>
        <<<Blocks(count), kThreads, 0, stream>>>(static_cast<int32_t*>(buffer), count);
  } else if (dtype == DType::kF64) {
    FromKeysKernel<double>
        <<<Blocks(count), kThreads, 0, stream>>>(static_cast<int64_t*>(buffer), count);
  } else {
    return NotKeyed("FromOrderedKeysAsync", dtype);
  }
  return Launched("FromOrderedKeysAsync", count);
}

}  // namespace tessera::comm
