#include "core/device/pinned_staging.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>

#include "core/device/cuda_error.h"
#include "core/device/host_copy.h"

namespace tessera {
namespace device {
namespace {

// Devices past this index copy directly (no machine Tessera runs on has more).
constexpr int kMaxDevices = 64;

std::atomic<uint64_t> g_staged{0};
std::atomic<uint64_t> g_direct{0};
std::atomic<uint64_t> g_busy{0};

// One device's two pinned buffers and the events that say when the device is done
// with each. Guarded by `mu`, taken with try_lock only.
struct Staging {
  std::mutex mu;
  bool tried = false;  // set up once; a failed set-up is not retried
  bool ready = false;
  void* buffer[2] = {nullptr, nullptr};
  cudaEvent_t done[2] = {nullptr, nullptr};

  // Called with `mu` held and the device current. False when pinned memory or events
  // could not be had: the caller copies directly then.
  bool SetUp() {
    if (tried) return ready;
    tried = true;
    for (int b = 0; b < 2; ++b) {
      if (cudaHostAlloc(&buffer[b], kStagingChunkBytes, cudaHostAllocDefault) != cudaSuccess ||
          cudaEventCreateWithFlags(&done[b], cudaEventDisableTiming) != cudaSuccess) {
        cudaGetLastError();  // not sticky; keep it out of later launch checks
        return false;
      }
    }
    ready = true;
    return true;
  }
};

Staging g_staging[kMaxDevices];

cudaStream_t AsStream(void* stream) { return static_cast<cudaStream_t>(stream); }

std::string Bytes(size_t bytes) { return std::to_string(bytes) + " bytes"; }

Status DirectCopy(cudaMemcpyKind kind, void* stream, void* dst, const void* src, size_t bytes) {
  g_direct.fetch_add(1, std::memory_order_relaxed);
  const char* what = kind == cudaMemcpyHostToDevice ? "host to device" : "device to host";
  cudaError_t err = cudaMemcpyAsync(dst, src, bytes, kind, AsStream(stream));
  if (err != cudaSuccess) {
    return CudaError(std::string("cudaMemcpyAsync ") + what + " (" + Bytes(bytes) + ")", err);
  }
  // From pinned memory the copy is still running when cudaMemcpyAsync returns.
  err = cudaStreamSynchronize(AsStream(stream));
  if (err != cudaSuccess) return CudaError("cudaStreamSynchronize", err);
  return Status::Ok();
}

// The staging buffers of `device` with their lock held, or null when this copy should
// go directly (small, pinned, unknown device, buffers busy or unavailable).
Staging* TakeStaging(int device, const void* host, size_t bytes,
                     std::unique_lock<std::mutex>* lock) {
  if (bytes < kStagingMinBytes || device < 0 || device >= kMaxDevices || IsPinnedHost(host)) {
    return nullptr;
  }
  Staging& staging = g_staging[device];
  *lock = std::unique_lock<std::mutex>(staging.mu, std::try_to_lock);
  if (!lock->owns_lock()) {
    g_busy.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  if (!staging.SetUp()) {
    lock->unlock();
    return nullptr;
  }
  return &staging;
}

// Waits for the buffers still in flight, so the next copy may reuse them. Keeps the
// first error.
Status Drain(Staging& staging, const bool pending[2], Status status) {
  for (int b = 0; b < 2; ++b) {
    if (!pending[b]) continue;
    const cudaError_t err = cudaEventSynchronize(staging.done[b]);
    if (err != cudaSuccess && status.ok()) status = CudaError("cudaEventSynchronize", err);
  }
  return status;
}

}  // namespace

StagingStats GetStagingStats() {
  StagingStats stats;
  stats.staged_copies = g_staged.load(std::memory_order_relaxed);
  stats.direct_copies = g_direct.load(std::memory_order_relaxed);
  stats.busy_fallbacks = g_busy.load(std::memory_order_relaxed);
  return stats;
}

bool IsPinnedHost(const void* ptr) {
  if (ptr == nullptr) return false;
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    cudaGetLastError();  // not sticky
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

Status CopyHostToDeviceStaged(int device, void* stream, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return Status::Ok();
  std::unique_lock<std::mutex> lock;
  Staging* staging = TakeStaging(device, src, bytes, &lock);
  if (staging == nullptr) return DirectCopy(cudaMemcpyHostToDevice, stream, dst, src, bytes);
  g_staged.fetch_add(1, std::memory_order_relaxed);
  auto* to = static_cast<char*>(dst);
  const auto* from = static_cast<const char*>(src);
  bool pending[2] = {false, false};
  Status status;
  for (size_t offset = 0, k = 0; offset < bytes && status.ok(); ++k) {
    const size_t n = std::min(kStagingChunkBytes, bytes - offset);
    const int b = static_cast<int>(k & 1);
    // The buffer's previous chunk must have reached the device before it is refilled;
    // meanwhile the other buffer's chunk was in flight while the host copied.
    if (pending[b]) {
      pending[b] = false;
      const cudaError_t err = cudaEventSynchronize(staging->done[b]);
      if (err != cudaSuccess) {
        status = CudaError("cudaEventSynchronize", err);
        break;
      }
    }
    ParallelCopy(staging->buffer[b], from + offset, n);
    cudaError_t err = cudaMemcpyAsync(to + offset, staging->buffer[b], n, cudaMemcpyHostToDevice,
                                      AsStream(stream));
    if (err == cudaSuccess) err = cudaEventRecord(staging->done[b], AsStream(stream));
    if (err != cudaSuccess) {
      status = CudaError("cudaMemcpyAsync host to device (staged chunk of " + Bytes(n) +
                             " at offset " + std::to_string(offset) + " of " + Bytes(bytes) + ")",
                         err);
      break;
    }
    pending[b] = true;
    offset += n;
  }
  return Drain(*staging, pending, status);
}

Status CopyDeviceToHostStaged(int device, void* stream, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return Status::Ok();
  std::unique_lock<std::mutex> lock;
  Staging* staging = TakeStaging(device, dst, bytes, &lock);
  if (staging == nullptr) return DirectCopy(cudaMemcpyDeviceToHost, stream, dst, src, bytes);
  g_staged.fetch_add(1, std::memory_order_relaxed);
  auto* to = static_cast<char*>(dst);
  const auto* from = static_cast<const char*>(src);
  const size_t chunks = (bytes + kStagingChunkBytes - 1) / kStagingChunkBytes;
  bool pending[2] = {false, false};
  // Queues chunk k into buffer k % 2.
  auto issue = [&](size_t k) -> Status {
    const size_t offset = k * kStagingChunkBytes;
    const size_t n = std::min(kStagingChunkBytes, bytes - offset);
    const int b = static_cast<int>(k & 1);
    cudaError_t err = cudaMemcpyAsync(staging->buffer[b], from + offset, n, cudaMemcpyDeviceToHost,
                                      AsStream(stream));
    if (err == cudaSuccess) err = cudaEventRecord(staging->done[b], AsStream(stream));
    if (err != cudaSuccess) {
      return CudaError("cudaMemcpyAsync device to host (staged chunk of " + Bytes(n) +
                           " at offset " + std::to_string(offset) + " of " + Bytes(bytes) + ")",
                       err);
    }
    pending[b] = true;
    return Status::Ok();
  };
  Status status = issue(0);
  for (size_t k = 0; k < chunks && status.ok(); ++k) {
    // The next chunk goes to the other buffer, whose contents the host already took.
    if (k + 1 < chunks) {
      status = issue(k + 1);
      if (!status.ok()) break;
    }
    const int b = static_cast<int>(k & 1);
    pending[b] = false;
    const cudaError_t err = cudaEventSynchronize(staging->done[b]);
    if (err != cudaSuccess) {
      status = CudaError("cudaEventSynchronize", err);
      break;
    }
    const size_t offset = k * kStagingChunkBytes;
    ParallelCopy(to + offset, staging->buffer[b], std::min(kStagingChunkBytes, bytes - offset));
  }
  return Drain(*staging, pending, status);
}

}  // namespace device
}  // namespace tessera
