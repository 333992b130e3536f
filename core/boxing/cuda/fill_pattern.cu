#include <algorithm>
#include <cstring>
#include <string>

#include "core/boxing/cuda/fill_pattern.h"
#include "core/device/cuda_error.h"

namespace tessera::boxing {
namespace {

constexpr int kThreads = 256;
// Grid-stride loop: any count, and a grid far below gridDim.x's limit.
constexpr int64_t kMaxBlocks = 4096;

template <typename Word>
__global__ void FillKernel(Word* data, int64_t count, Word value) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    data[i] = value;
  }
}

template <typename Word>
void Launch(void* buffer, int64_t count, const void* pattern, cudaStream_t stream) {
  Word value;
  std::memcpy(&value, pattern, sizeof(Word));  // a float's or int's bits alike
  const auto blocks =
      static_cast<unsigned int>(std::min<int64_t>((count + kThreads - 1) / kThreads, kMaxBlocks));
  FillKernel<Word><<<blocks, kThreads, 0, stream>>>(static_cast<Word*>(buffer), count, value);
}

}  // namespace

Status FillPatternAsync(void* buffer, int64_t count, int element_bytes, const void* pattern,
                        cudaStream_t stream) {
  if (count <= 0) return Status::Ok();
  if (element_bytes == 4) {
    Launch<uint32_t>(buffer, count, pattern, stream);
  } else if (element_bytes == 8) {
    Launch<uint64_t>(buffer, count, pattern, stream);
  } else {
    return InvalidArgument("FillPatternAsync: element size " + std::to_string(element_bytes) +
                           " bytes is not 4 or 8");
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    return device::CudaError("FillPatternAsync launch (" + std::to_string(count) + " elements)",
                             err);
  }
  return Status::Ok();
}

}  // namespace tessera::boxing
