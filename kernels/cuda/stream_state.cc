#include "kernels/cuda/stream_state.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "core/device/cuda_error.h"
#include "kernels/common/axis_plans.h"
#include "kernels/common/kernel_plans.h"
#include "kernels/common/optim_math.h"
#include "kernels/cuda/data_errors.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

std::atomic<StreamState*> g_slots[kMaxStreamStates];
std::mutex g_create_mu;  // serialises creation only

size_t SlotOf(int device, cudaStream_t stream) {
  const size_t h = std::hash<const void*>()(stream) * 31 + static_cast<size_t>(device);
  // Stream handles are pointers with zero low bits: mix before taking the remainder.
  return (h ^ (h >> 17) ^ (h >> 7)) % kMaxStreamStates;
}

// The slot holding (device, stream), or the first empty slot of its probe sequence
// (nullptr when every slot is taken by another pair).
std::atomic<StreamState*>* Probe(int device, cudaStream_t stream) {
  const size_t start = SlotOf(device, stream);
  for (int i = 0; i < kMaxStreamStates; ++i) {
    std::atomic<StreamState*>& slot = g_slots[(start + i) % kMaxStreamStates];
    StreamState* s = slot.load(std::memory_order_acquire);
    if (s == nullptr || (s->device() == device && s->stream() == stream)) return &slot;
  }
  return nullptr;
}

Result<int> CurrentDevice() {
  int device = 0;
  const cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return device::CudaError("cudaGetDevice", err);
  return device;
}

std::atomic<bool>& SyncChecksFlag() {
  static std::atomic<bool> flag([] {
    const char* v = std::getenv("TESSERA_CUDA_SYNC_CHECKS");
    return v != nullptr && std::string_view(v) == "1";
  }());
  return flag;
}

Shape ShapeOf(const int64_t* dims, int ndim) {
  Result<Shape> s = Shape::Make(dims, static_cast<size_t>(ndim));
  return s.ok() ? *s : Shape{};
}

// The CPU kernel's error for the recorded offender.
Status DataError(const DataErrorRecord& r) {
  const DataCheckInfo& info = r.info;
  const Shape checked = ShapeOf(info.checked_dims, info.checked_ndim);
  const Shape data = ShapeOf(info.data_dims, info.data_ndim);
  switch (info.kind) {
    case DataCheck::kGatherIndex:
    case DataCheck::kEmbeddingIndex: {
      GatherPlan plan;
      plan.axis = info.kind == DataCheck::kGatherIndex ? info.axis : -1;
      plan.axis_size = info.bound;
      return InvalidArgument(
          std::string(info.kind == DataCheck::kGatherIndex ? "gather: " : "embedding: ") +
          IndexError(plan, data, checked, r.flat, r.value));
    }
    case DataCheck::kLabel:
      return InvalidArgument("sparse_softmax_cross_entropy: " +
                             LabelError(data, checked, r.flat, r.value));
    case DataCheck::kZeroDivisor:
      return InvalidArgument("div: " + ZeroDivisorError(checked, r.flat));
    case DataCheck::kNllTarget:
      return InvalidArgument("nll_loss: " +
                             TargetError("log_probs", data, checked, r.flat, r.value));
    case DataCheck::kCrossEntropyTarget:
      return InvalidArgument("cross_entropy: " +
                             TargetError("logits", data, checked, r.flat, r.value));
    case DataCheck::kAdamStep:
      return InvalidArgument("adam_update_at_step: " + AdamStepError(r.value));
  }
  return Internal("SynchronizeStream: data error record of unknown kind " +
                  std::to_string(static_cast<int>(info.kind)));
}

}  // namespace

DataCheckInfo MakeDataCheckInfo(DataCheck kind, int axis, int64_t bound, const Shape& checked,
                                const Shape& data) {
  DataCheckInfo info;
  info.kind = kind;
  info.axis = axis;
  info.bound = bound;
  info.checked_ndim = checked.ndim();
  info.data_ndim = data.ndim();
  for (int i = 0; i < checked.ndim(); ++i) info.checked_dims[i] = checked.dim(i);
  for (int i = 0; i < data.ndim(); ++i) info.data_dims[i] = data.dim(i);
  return info;
}

Status CublasError(const std::string& call, cublasStatus_t status) {
  std::string message =
      call + " failed: " + cublasGetStatusName(status) + " (" + cublasGetStatusString(status) + ")";
  if (status == CUBLAS_STATUS_ALLOC_FAILED) {
    return Status(StatusCode::kResourceExhausted, std::move(message));
  }
  return Internal(std::move(message));
}

Result<cublasHandle_t> StreamState::Blas() {
  if (blas_ != nullptr) return blas_;
  cublasHandle_t handle = nullptr;
  cublasStatus_t status = cublasCreate(&handle);
  if (status != CUBLAS_STATUS_SUCCESS) {
    return CublasError("cublasCreate (device " + std::to_string(device_) + ")", status);
  }
  status = cublasSetStream(handle, stream_);
  if (status != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(handle);
    return CublasError("cublasSetStream", status);
  }
  blas_ = handle;
  return blas_;
}

Result<StreamState*> FindStreamState(void* stream) {
  TESS_ASSIGN_OR_RETURN(const int device, CurrentDevice());
  std::atomic<StreamState*>* slot = Probe(device, static_cast<cudaStream_t>(stream));
  return slot == nullptr ? nullptr : slot->load(std::memory_order_acquire);
}

Result<StreamState*> GetStreamState(void* stream) {
  TESS_ASSIGN_OR_RETURN(const int device, CurrentDevice());
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  std::atomic<StreamState*>* slot = Probe(device, s);
  if (slot != nullptr) {
    if (StreamState* state = slot->load(std::memory_order_acquire)) return state;
  }
  std::lock_guard<std::mutex> lock(g_create_mu);
  slot = Probe(device, s);  // again: another thread may have created it meanwhile
  if (slot == nullptr) {
    return Status(StatusCode::kResourceExhausted,
                  "GetStreamState: the CUDA kernels keep state for at most " +
                      std::to_string(kMaxStreamStates) + " (device, stream) pairs");
  }
  if (StreamState* state = slot->load(std::memory_order_acquire)) return state;
  DataErrorRecord* record = nullptr;
  cudaError_t err = cudaMalloc(&record, sizeof(DataErrorRecord));
  if (err != cudaSuccess) {
    return device::CudaError("cudaMalloc(" + std::to_string(sizeof(DataErrorRecord)) + " bytes)",
                             err);
  }
  // On the stream itself, so every later kernel on it sees the zeroed record.
  err = cudaMemsetAsync(record, 0, sizeof(DataErrorRecord), s);
  if (err != cudaSuccess) {
    cudaFree(record);
    return device::CudaError("cudaMemsetAsync", err);
  }
  DataErrorRecord* mirror = nullptr;
  err = cudaHostAlloc(reinterpret_cast<void**>(&mirror), sizeof(DataErrorRecord),
                      cudaHostAllocDefault);
  if (err != cudaSuccess) {
    cudaFree(record);
    return device::CudaError("cudaHostAlloc(" + std::to_string(sizeof(DataErrorRecord)) + " bytes)",
                             err);
  }
  StreamState* state = new StreamState(device, s, record, mirror);
  slot->store(state, std::memory_order_release);
  return state;
}

Status PrefetchDataError(void* stream) {
  TESS_ASSIGN_OR_RETURN(StreamState * state, FindStreamState(stream));
  if (state == nullptr) return Status::Ok();  // no kernel here ever checked data
  // Nothing checked since the record was last read: it is still empty.
  if (!state->checks_queued().exchange(false, std::memory_order_acq_rel)) return Status::Ok();
  const cudaError_t err =
      cudaMemcpyAsync(state->host_mirror(), state->record(), sizeof(DataErrorRecord),
                      cudaMemcpyDeviceToHost, static_cast<cudaStream_t>(stream));
  if (err != cudaSuccess) {
    state->checks_queued().store(true, std::memory_order_release);  // still unread
    return device::CudaError("SynchronizeStream: queueing the data error record's copy", err);
  }
  state->mirror_queued().store(true, std::memory_order_release);
  return Status::Ok();
}

void NoteGraphReplay(void* stream) {
  Result<StreamState*> state = FindStreamState(stream);
  // No state: no check kernel was ever captured on this stream either.
  if (state.ok() && *state != nullptr) {
    (*state)->checks_queued().store(true, std::memory_order_release);
  }
}

Status TakeDataError(void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  TESS_ASSIGN_OR_RETURN(StreamState * state, FindStreamState(stream));
  if (state == nullptr) return Status::Ok();  // no kernel here ever checked data
  DataErrorRecord record;
  if (state->mirror_queued().exchange(false, std::memory_order_acq_rel)) {
    // SynchronizeStream queued the copy before its wait, which it covered.
    record = *state->host_mirror();
  } else if (!state->checks_queued().exchange(false, std::memory_order_acq_rel)) {
    return Status::Ok();  // nothing checked since the record was last read: still empty
  } else {
    cudaError_t err =
        cudaMemcpyAsync(&record, state->record(), sizeof(record), cudaMemcpyDeviceToHost, s);
    if (err == cudaSuccess) err = cudaStreamSynchronize(s);
    if (err != cudaSuccess) {
      state->checks_queued().store(true, std::memory_order_release);  // still unread
      return device::CudaError("SynchronizeStream: reading the data error record", err);
    }
  }
  if (record.claimed == 0) return Status::Ok();
  const cudaError_t err = cudaMemsetAsync(state->record(), 0, sizeof(DataErrorRecord), s);
  if (err != cudaSuccess)
    return device::CudaError("SynchronizeStream: clearing the data error record", err);
  return DataError(record);
}

// The device layer's SynchronizeStream reports this family's data errors from the moment
// the library is loaded (it is alwayslink).
const bool kDataErrorsInstalled =
    (device::SetStreamErrorSource(&TakeDataError, &PrefetchDataError, &NoteGraphReplay), true);

void SetSynchronousDataChecks(bool on) { SyncChecksFlag().store(on, std::memory_order_relaxed); }

bool SynchronousDataChecks() { return SyncChecksFlag().load(std::memory_order_relaxed); }

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
