// cuda_device.h in a CUDA build (--config=cuda).
#include "core/tensor/cuda_device.h"

#include <cuda_runtime.h>

#include <atomic>
#include <mutex>
#include <string>

#include "core/comm/nccl/local_device.h"
#include "core/device/cuda_error.h"
#include "core/device/device_scope.h"
#include "core/device/pinned_staging.h"
#include "core/device/stream_sync.h"
#include "core/memory/device_caching_allocator.h"

namespace tessera {
namespace tensor {
namespace {

using device::CudaError;
// Eager calls leave a thread that also drives CUDA itself on the device it chose.
using device::DeviceScope;

std::atomic<const CudaDevice*> g_device{nullptr};
std::mutex g_setup_mu;  // serialises set-up only

Result<const CudaDevice*> SetUpDevice() {
  TESS_ASSIGN_OR_RETURN(const int index, comm::DefaultDevice());
  TESS_ASSIGN_OR_RETURN(memory::CachingAllocator * allocator,
                        memory::DeviceCachingAllocator(index));
  DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(index));
  // Non-blocking: work other code queues on the legacy default stream neither waits
  // for eager work nor holds it up.
  cudaStream_t stream = nullptr;
  const cudaError_t err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (err != cudaSuccess) {
    return CudaError("cudaStreamCreateWithFlags (device " + std::to_string(index) + ")", err);
  }
  // Never destroyed, like the caching allocators: tensors may be freed during static
  // destruction, and destroying a stream then races CUDA's own teardown.
  return new CudaDevice{index, stream, allocator};
}

cudaStream_t StreamOf(const CudaDevice& device) { return static_cast<cudaStream_t>(device.stream); }

const char* MemoryTypeName(cudaMemoryType type) {
  switch (type) {
    case cudaMemoryTypeUnregistered: return "unregistered host memory";
    case cudaMemoryTypeHost: return "pinned host memory";
    case cudaMemoryTypeDevice: return "device memory";
    case cudaMemoryTypeManaged: return "managed memory";
  }
  return "memory of an unknown kind";
}

}  // namespace

Status CheckDeviceBuild(const Placement&) { return Status::Ok(); }

Result<const CudaDevice*> LocalCudaDevice() {
  if (const CudaDevice* ready = g_device.load(std::memory_order_acquire)) return ready;
  std::lock_guard<std::mutex> lock(g_setup_mu);
  if (const CudaDevice* ready = g_device.load(std::memory_order_acquire)) return ready;
  TESS_ASSIGN_OR_RETURN(const CudaDevice* device, SetUpDevice());
  g_device.store(device, std::memory_order_release);
  return device;
}

Status CopyHostToDevice(const CudaDevice& device, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return Status::Ok();
  DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device.index));
  // Large pageable sources go through the pinned buffers (core/device/pinned_staging.h).
  return device::CopyHostToDeviceStaged(device.index, device.stream, dst, src, bytes);
}

Status CopyDeviceToHost(const CudaDevice& device, void* dst, const void* src, size_t bytes) {
  DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device.index));
  TESS_RETURN_IF_ERROR(
      device::CopyDeviceToHostStaged(device.index, device.stream, dst, src, bytes));
  // Also collects the data errors recorded by the kernels that made `src`.
  return device::SynchronizeStream(device.stream);
}

Status CopyDeviceToDevice(const CudaDevice& device, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return Status::Ok();
  DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device.index));
  cudaError_t err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, StreamOf(device));
  if (err != cudaSuccess) {
    return CudaError("cudaMemcpyAsync cuda:" + std::to_string(device.index) + " to cuda:" +
                         std::to_string(device.index) + " (" + std::to_string(bytes) + " bytes)",
                     err);
  }
  err = cudaStreamSynchronize(StreamOf(device));
  if (err != cudaSuccess) return CudaError("cudaStreamSynchronize", err);
  return Status::Ok();
}

Status SynchronizeDevice(const CudaDevice& device) {
  DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device.index));
  return device::SynchronizeStream(device.stream);
}

Status RunCudaKernel(const CudaDevice& device, kernels::KernelFn kernel,
                     kernels::KernelContext* ctx) {
  DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device.index));
  ctx->stream = device.stream;
  return kernel(*ctx);
}

Status CopyForeignDeviceToHost(int device, const void* src, size_t bytes, void* dst) {
  TESS_RETURN_IF_ERROR(comm::CheckDevice(device));
  if (bytes == 0) return Status::Ok();
  cudaPointerAttributes attributes;
  cudaError_t err = cudaPointerGetAttributes(&attributes, src);
  if (err != cudaSuccess) {
    cudaGetLastError();  // not sticky: keep it out of later launch checks
    return InvalidArgument("pointer " + memory::PointerString(src) +
                           " is not memory CUDA knows: cudaPointerGetAttributes failed with " +
                           cudaGetErrorName(err));
  }
  const bool on_device =
      attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
  if (!on_device || attributes.device != device) {
    std::string is = MemoryTypeName(attributes.type);
    if (on_device) is += " of CUDA device " + std::to_string(attributes.device);
    return InvalidArgument("pointer " + memory::PointerString(src) + " is " + is +
                           ", not memory of CUDA device " + std::to_string(device));
  }
  DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device));
  err = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    return CudaError("cudaMemcpy cuda:" + std::to_string(device) + " to host (" +
                         std::to_string(bytes) + " bytes)",
                     err);
  }
  return Status::Ok();
}

}  // namespace tensor
}  // namespace tessera
