// Large host-memory copies on several threads, for the pinned staging of pageable
// host <-> device copies (pinned_staging.h).
//
// Why: a staged copy of pageable memory runs at the speed of the host's memcpy into
// (or out of) the pinned buffers, and one thread's memcpy is far below the link: on the
// H100 host, 7.4 GB/s host -> device from pageable memory against 52.7 GB/s from
// pinned memory (bench/results/2026-11-27-gpu-h100.jsonl). Memory bandwidth of a
// server's sockets is several times one core's, so the copy is split into parts that
// the calling thread and a few helper threads take in turn.
//
// Helpers: created on the first parallel copy, never destroyed (they may serve copies
// during static destruction, like the staging buffers); between copies they spin
// briefly, then sleep. One parallel copy runs at a time: a copy that finds the helpers
// busy does not wait for them, it copies alone on its own thread.
//
// Plain C++ (no CUDA): built and tested in every configuration.
#ifndef TESSERA_CORE_DEVICE_HOST_COPY_H_
#define TESSERA_CORE_DEVICE_HOST_COPY_H_

#include <cstddef>
#include <cstdint>

#include "core/common/status.h"

namespace tessera {
namespace device {

// Copies under this many bytes always run on the calling thread alone: below it,
// waking helpers costs more than it saves.
inline constexpr size_t kParallelCopyMinBytes = size_t{1} << 20;
// The most threads (the caller included) a copy may use.
inline constexpr int kMaxCopyThreads = 64;
// The default's cap (see DefaultCopyThreads): more rarely pays on one socket.
inline constexpr int kMaxDefaultCopyThreads = 8;

// Sets how many threads (the caller included) ParallelCopy uses from now on: 1 to
// kMaxCopyThreads, INVALID_ARGUMENT naming `threads` otherwise. 1 (the setting until
// something sets it) copies on the calling thread only. Helpers already started stay;
// a copy uses at most threads - 1 of them. Thread-safe.
Status SetCopyThreads(int threads);
// The current setting.
int CopyThreads();

// The threads a process sharing its machine with `ranks_on_machine` ranks should use:
// its share of the hardware threads (`hardware_threads`), at least 1 and at most
// kMaxDefaultCopyThreads. Arguments below 1 count as 1.
int DefaultCopyThreads(int hardware_threads, int ranks_on_machine);

// Copies `bytes` from `src` to `dst` (they must not overlap; NULL allowed when bytes is
// 0) with up to CopyThreads() threads. Returns once every byte is copied.
void ParallelCopy(void* dst, const void* src, size_t bytes);

// What ParallelCopy did in this process (monotonic counters, for tests and benchmarks).
struct HostCopyStats {
  uint64_t parallel_copies = 0;  // copies split among helpers
  uint64_t alone_copies = 0;     // small copies, one thread configured, or helpers busy
  uint64_t busy_fallbacks = 0;   // of alone_copies: helpers busy with another copy
  int helper_threads = 0;        // helpers started so far
};
HostCopyStats GetHostCopyStats();

}  // namespace device
}  // namespace tessera

#endif  // TESSERA_CORE_DEVICE_HOST_COPY_H_
