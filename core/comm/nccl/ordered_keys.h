// Elementwise maps between f32 / f64 and their order-preserving integer keys
// (core/common/ordered_key.h) on a CUDA stream. The NCCL backend reduces keys with
// NCCL's exact integer max / min instead of its float max / min, which drop NaN.
#ifndef TESSERA_CORE_COMM_NCCL_ORDERED_KEYS_H_
#define TESSERA_CORE_COMM_NCCL_ORDERED_KEYS_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "core/common/dtype.h"
#include "core/common/ordered_key.h"
#include "core/common/status.h"

namespace tessera::comm {

// Queues on `stream` (of the current device): dst[i] = OrderedKey(src[i], nan) for
// `count` elements of `dtype` (f32 -> int32 keys, f64 -> int64 keys); src may be dst.
// Does not wait; reports launch errors only. INVALID_ARGUMENT for another dtype.
Status ToOrderedKeysAsync(const void* src, void* dst, int64_t count, DType dtype, NanKey nan,
                          cudaStream_t stream);

// Queues buffer[i] = FromOrderedKey(buffer[i]) in place, the inverse.
Status FromOrderedKeysAsync(void* buffer, int64_t count, DType dtype, cudaStream_t stream);

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_NCCL_ORDERED_KEYS_H_
