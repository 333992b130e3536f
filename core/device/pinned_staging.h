// Host <-> device copies of pageable host memory through reused pinned buffers.
//
// Why: a cudaMemcpyAsync from pageable memory makes the driver stage it through its own
// small pinned buffers, copying and waiting chunk by chunk (measured on an H100: 4.0 GB/s
// host -> device against 6.65 GB/s for PyTorch). Pinned memory is DMA'd directly at the
// link's speed. So each device gets two pinned buffers of kStagingChunkBytes, allocated
// once with cudaHostAlloc and never freed (like the streams: tensors may be copied during
// static destruction), and a large pageable copy is cut into chunks: while the device
// DMAs one chunk from (or to) one buffer, the host memcpys the next into (or out of) the
// other. Pinned sources and destinations, and copies under kStagingMinBytes, skip the
// staging (a copy that small is dominated by the call, not the bandwidth). The host's
// side of each chunk is a ParallelCopy (host_copy.h): one thread's memcpy (7.4 GB/s on
// the H100 host) is what bounded these copies, so the runtime lets its share of the
// machine's cores take parts of each chunk.
//
// The buffers of a device serve one copy at a time. A copy that finds them in use does
// not wait for them: it falls back to a plain cudaMemcpyAsync (correct, just the
// driver's speed), so no thread ever blocks behind another thread's copy.
#ifndef TESSERA_CORE_DEVICE_PINNED_STAGING_H_
#define TESSERA_CORE_DEVICE_PINNED_STAGING_H_

#include <cstddef>
#include <cstdint>

#include "core/common/status.h"

namespace tessera {
namespace device {

inline constexpr size_t kStagingChunkBytes = size_t{4} << 20;
inline constexpr size_t kStagingMinBytes = size_t{256} << 10;

// What the copies of this process did, for tests and benchmarks (monotonic counters).
struct StagingStats {
  uint64_t staged_copies = 0;   // copies that went through the pinned buffers
  uint64_t direct_copies = 0;   // pinned memory, small copies, or buffers busy
  uint64_t busy_fallbacks = 0;  // of direct_copies: buffers in use by another thread
};
StagingStats GetStagingStats();

// Whether `ptr` is page-locked host memory CUDA knows (cudaHostAlloc or
// cudaHostRegister). Unregistered memory, device memory and null are not.
bool IsPinnedHost(const void* ptr);

// Copies `bytes` from host `src` to `dst` on CUDA device `device` (the current device
// must be `device`), queued on `stream` (a cudaStream_t) behind its earlier work, and
// returns when the copy is complete, so `src` may be reused at once.
Status CopyHostToDeviceStaged(int device, void* stream, void* dst, const void* src, size_t bytes);

// Copies `bytes` from `src` on CUDA device `device` to host `dst`, queued on `stream`
// behind its earlier work (so it sees their results), and returns when `dst` holds them.
// Does not report the data errors of earlier kernels (SynchronizeStream does).
Status CopyDeviceToHostStaged(int device, void* stream, void* dst, const void* src, size_t bytes);

}  // namespace device
}  // namespace tessera

#endif  // TESSERA_CORE_DEVICE_PINNED_STAGING_H_
