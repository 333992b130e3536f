// Fills device memory with one repeated 4- or 8-byte element (a reduction identity
// such as -inf or INT32_MAX, which cudaMemsetAsync's byte value cannot express).
#ifndef TESSERA_CORE_BOXING_CUDA_FILL_PATTERN_H_
#define TESSERA_CORE_BOXING_CUDA_FILL_PATTERN_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "core/common/status.h"

namespace tessera::boxing {

// Queues on `stream` (of the current device): element i of `buffer` (`count`
// elements of `element_bytes` bytes, 4 or 8, aligned to it) becomes the bytes at
// `pattern`, which is read before the call returns. Does not wait; reports launch
// errors only.
Status FillPatternAsync(void* buffer, int64_t count, int element_bytes, const void* pattern,
                        cudaStream_t stream);

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_CUDA_FILL_PATTERN_H_
