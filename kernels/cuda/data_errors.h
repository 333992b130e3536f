// Data-dependent errors of the CUDA kernels, and the point where they are reported.
//
// A few kernels can meet an input value they cannot honour: an index outside its axis
// (gather, embedding), a label outside the classes (sparse_softmax_cross_entropy) and
// an integer zero divisor (div on i32/i64). The CPU kernels return INVALID_ARGUMENT at
// once. A CUDA kernel only enqueues work, so it cannot know without waiting; waiting
// inside every kernel would serialise the host with the device. So, by default:
//
// - Before the op's own kernel, a small check kernel on the same stream reads the
//   indices (labels, divisors) and records the first offender it meets in a record
//   that belongs to the (device, stream) pair. Which offender wins when several
//   threads race is not specified.
// - The op's kernel never reads out of bounds: an out-of-range index yields zeros in
//   its output rows, a bad label a NaN loss for its row (prob is still the softmax),
//   a zero integer divisor a 0 quotient. The call itself returns OK.
// - device::SynchronizeStream(stream), which the runtime calls where it waits for the stream
//   anyway (before copying a result to the host), reports the recorded error as the
//   CPU kernel would have (same code, same message) and clears the record.
//
// With synchronous checks on (SetSynchronousDataChecks(true), or the environment
// variable TESSERA_CUDA_SYNC_CHECKS=1 at start-up), these kernels wait for their check
// kernel and return the error themselves before writing any output, exactly like the
// CPU kernels. That costs a stream synchronisation per such call: a debugging mode.
#ifndef TESSERA_KERNELS_CUDA_DATA_ERRORS_H_
#define TESSERA_KERNELS_CUDA_DATA_ERRORS_H_

#include "core/common/status.h"
#include "core/device/stream_sync.h"

namespace tessera {
namespace kernels {
namespace cuda {

// The first data error a kernel recorded on `stream` (a cudaStream_t on the current
// device) since the last call, as INVALID_ARGUMENT with the CPU kernel's message, which
// it clears; else OK. Waits for the stream, unless a PrefetchDataError copy is pending
// (its caller then waited). Installed as the device layer's StreamErrorSource, so
// device::SynchronizeStream reports it. Thread-safe.
//
// Both read the record only when a check kernel (or a CUDA graph) was queued on the
// stream since it was last read (StreamState::checks_queued): a stream that only ran
// kernels without checks (matmul, elementwise) is synchronised with no copy of the
// record at all.
Status TakeDataError(void* stream);
// Queues a copy of the stream's record into pinned host memory, which the next
// TakeDataError reads instead of copying and waiting again. Installed as the device
// layer's StreamErrorPrefetch (SynchronizeStream calls it before its wait).
Status PrefetchDataError(void* stream);
// Marks the stream's record as possibly written: a CUDA graph replayed there may hold
// check kernels, which ran CheckData only when captured. Installed as the device layer's
// StreamReplayNote (device::NoteReplayedWork).
void NoteGraphReplay(void* stream);

// Process-wide; see the file comment. Thread-safe.
void SetSynchronousDataChecks(bool on);
bool SynchronousDataChecks();

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_CUDA_DATA_ERRORS_H_
