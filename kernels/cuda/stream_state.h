// What the CUDA kernels keep per (device, stream) pair: the record that check kernels
// write data errors into (see data_errors.h) and the cuBLAS handle that matmul
// enqueues on. One of each per stream means no cuBLAS workspace or error record is
// ever shared by two streams, so stream order alone keeps them consistent.
//
// States are created on first use and live until the process exits (destroying
// cuBLAS handles or device memory from a static destructor races CUDA's own
// teardown). They are keyed by the stream's handle value: a stream created where a
// destroyed one was reuses its state, whose handle then enqueues on the new stream. Lookup is lock-
// and allocation-free: a fixed open-addressing table whose slots are published with release stores
// and never removed.
#ifndef TESSERA_KERNELS_CUDA_STREAM_STATE_H_
#define TESSERA_KERNELS_CUDA_STREAM_STATE_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "core/common/shape.h"
#include "core/common/status.h"

namespace tessera {
namespace kernels {
namespace cuda {

// The data a check kernel rejects, which also names the op.
enum class DataCheck : int {
  kGatherIndex = 1,         // gather: indices in [0, bound)
  kEmbeddingIndex = 2,      // embedding: indices in [0, bound)
  kLabel = 3,               // sparse_softmax_cross_entropy: labels in [0, bound)
  kZeroDivisor = 4,         // div: integer divisors != 0
  kNllTarget = 5,           // nll_loss: targets in [0, bound)
  kCrossEntropyTarget = 6,  // cross_entropy: targets in [0, bound)
  kAdamStep = 7,            // adam_update_at_step: the step number >= 1 (lower = 1)
};

// Everything a data error's message needs besides the offender: the checked tensor's
// shape (indices, label or y), the tensor it indexes (params, weight, prediction) and
// the indexed axis. Passed to the check kernel by value.
struct DataCheckInfo {
  DataCheck kind = DataCheck::kGatherIndex;
  int axis = 0;  // gather's axis
  int checked_ndim = 0, data_ndim = 0;
  int64_t lower = 0;  // range checks: values in [lower, bound)
  int64_t bound = 0;
  int64_t checked_dims[Shape::kMaxDims] = {};
  int64_t data_dims[Shape::kMaxDims] = {};
};
DataCheckInfo MakeDataCheckInfo(DataCheck kind, int axis, int64_t bound, const Shape& checked,
                                const Shape& data);

// In device memory, zero when empty. The first offending thread claims it with
// atomicCAS on `claimed` and then writes the rest.
struct DataErrorRecord {
  unsigned int claimed;
  int64_t flat;   // the offender's position in the checked tensor
  int64_t value;  // and its value
  DataCheckInfo info;
};

// cublasStatus_t -> Status: "<call> failed: CUBLAS_STATUS_... (<text>)"; allocation
// failures are RESOURCE_EXHAUSTED, everything else INTERNAL.
Status CublasError(const std::string& call, cublasStatus_t status);

class StreamState {
 public:
  StreamState(int device, cudaStream_t stream, DataErrorRecord* record,
              DataErrorRecord* host_mirror)
      : device_(device), stream_(stream), record_(record), host_mirror_(host_mirror) {}
  StreamState(const StreamState&) = delete;
  StreamState& operator=(const StreamState&) = delete;

  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  DataErrorRecord* record() const { return record_; }
  // Pinned host memory the record is copied into before a SynchronizeStream waits
  // (PrefetchDataError), so reading it after the wait costs no second round trip.
  DataErrorRecord* host_mirror() const { return host_mirror_; }
  // Set when a copy into the mirror was queued and not yet read.
  std::atomic<bool>& mirror_queued() { return mirror_queued_; }
  // Set after a check kernel (or a CUDA graph that may hold one) was queued on the
  // stream, cleared when a synchronisation takes the record's copy: while it is clear
  // the record is known to be empty, and a synchronisation need not copy it (a small
  // device-to-host copy per wait, the price of every matmul stream otherwise).
  std::atomic<bool>& checks_queued() { return checks_queued_; }

  // A cuBLAS handle may not be used by two threads at once: hold this from Blas() until
  // the last cuBLAS call is enqueued. Contended only by threads sharing a stream.
  std::mutex& blas_mutex() { return blas_mu_; }
  // The stream's handle (its stream set once with cublasSetStream), created on first
  // use on the state's device, which must be current. Requires blas_mutex().
  Result<cublasHandle_t> Blas();

 private:
  const int device_;
  const cudaStream_t stream_;
  DataErrorRecord* const record_;
  DataErrorRecord* const host_mirror_;
  std::atomic<bool> mirror_queued_{false};
  std::atomic<bool> checks_queued_{false};
  std::mutex blas_mu_;
  cublasHandle_t blas_ = nullptr;  // guarded by blas_mu_
};

// (current device, stream) pairs a process may use; beyond it GetStreamState is
// RESOURCE_EXHAUSTED.
inline constexpr int kMaxStreamStates = 1024;

// The state of `stream` (a cudaStream_t, null = legacy default stream) on the current
// device, created on first use with one cudaMalloc and a cudaMemsetAsync on the stream.
// Thread-safe; lock- and allocation-free once created.
Result<StreamState*> GetStreamState(void* stream);
// Null when GetStreamState was never called for the pair.
Result<StreamState*> FindStreamState(void* stream);

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_CUDA_STREAM_STATE_H_
