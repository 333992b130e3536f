// Waiting for a CUDA stream, and the point where data errors that kernels recorded on
// the stream are reported.
//
// The device layer knows streams but not kernels: a kernel family that can only record
// a bad input value on the device (an index out of range, a zero divisor; see
// kernels/cuda/data_errors.h) installs a StreamErrorSource when it is linked in, and
// SynchronizeStream asks it after the wait. A process without such kernels just waits.
#ifndef TESSERA_CORE_DEVICE_STREAM_SYNC_H_
#define TESSERA_CORE_DEVICE_STREAM_SYNC_H_

#include "core/common/status.h"

namespace tessera {
namespace device {

// Called after `stream` finished all its work: the first error recorded on it since the
// last call (which it clears), else OK.
using StreamErrorSource = Status (*)(void* stream);
// Called before the wait: queues on `stream` what the source reads after it (a copy of
// the error record into host memory), so that one wait covers the work and the copy.
using StreamErrorPrefetch = Status (*)(void* stream);

// Called when work that may record errors was queued on `stream` behind the source's
// back: a CUDA graph replay, whose kernels the source saw queued only once, at capture.
// A source that skips reading an untouched stream's record then reads it again.
using StreamReplayNote = void (*)(void* stream);

// Installs the one source, its prefetch and its replay note (a later call replaces all
// three; nullptr removes them). Meant for static initialisers of the library that
// records the errors. Thread-safe.
void SetStreamErrorSource(StreamErrorSource source, StreamErrorPrefetch prefetch = nullptr,
                          StreamReplayNote replay_note = nullptr);

// Tells the installed source that a CUDA graph was launched on `stream` (a cudaStream_t
// on the current device): whoever launches graphs calls it after each launch.
// Thread-safe and allocation-free.
void NoteReplayedWork(void* stream);

// Waits for all work on `stream` (a cudaStream_t on the current device; null is the
// legacy default stream). A CUDA execution error (INTERNAL) if the stream failed, else
// what the installed StreamErrorSource reports, else OK. Thread-safe.
Status SynchronizeStream(void* stream);

}  // namespace device
}  // namespace tessera

#endif  // TESSERA_CORE_DEVICE_STREAM_SYNC_H_
