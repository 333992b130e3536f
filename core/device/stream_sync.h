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

// Installs the one source and its prefetch (a later call replaces both; nullptr removes
// them). Meant for static initialisers of the library that records the errors.
// Thread-safe.
void SetStreamErrorSource(StreamErrorSource source, StreamErrorPrefetch prefetch = nullptr);

// Waits for all work on `stream` (a cudaStream_t on the current device; null is the
// legacy default stream). A CUDA execution error (INTERNAL) if the stream failed, else
// what the installed StreamErrorSource reports, else OK. Thread-safe.
Status SynchronizeStream(void* stream);

}  // namespace device
}  // namespace tessera

#endif  // TESSERA_CORE_DEVICE_STREAM_SYNC_H_
