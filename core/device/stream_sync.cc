#include "core/device/stream_sync.h"

#include <cuda_runtime.h>

#include <atomic>

#include "core/device/cuda_error.h"

namespace tessera {
namespace device {
namespace {

std::atomic<StreamErrorSource>& Source() {
  static std::atomic<StreamErrorSource> source{nullptr};
  return source;
}

std::atomic<StreamErrorPrefetch>& Prefetch() {
  static std::atomic<StreamErrorPrefetch> prefetch{nullptr};
  return prefetch;
}

std::atomic<StreamReplayNote>& ReplayNote() {
  static std::atomic<StreamReplayNote> note{nullptr};
  return note;
}

}  // namespace

void SetStreamErrorSource(StreamErrorSource source, StreamErrorPrefetch prefetch,
                          StreamReplayNote replay_note) {
  ReplayNote().store(replay_note, std::memory_order_release);
  Prefetch().store(prefetch, std::memory_order_release);
  Source().store(source, std::memory_order_release);
}

void NoteReplayedWork(void* stream) {
  if (const StreamReplayNote note = ReplayNote().load(std::memory_order_acquire)) note(stream);
}

Status SynchronizeStream(void* stream) {
  if (const StreamErrorPrefetch prefetch = Prefetch().load(std::memory_order_acquire)) {
    TESS_RETURN_IF_ERROR(prefetch(stream));
  }
  const cudaError_t err = cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
  if (err != cudaSuccess) return CudaError("cudaStreamSynchronize", err);
  const StreamErrorSource source = Source().load(std::memory_order_acquire);
  return source == nullptr ? Status::Ok() : source(stream);
}

}  // namespace device
}  // namespace tessera
