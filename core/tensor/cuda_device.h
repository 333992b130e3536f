// The CUDA device that holds this rank's pieces of cuda-placed eager tensors, and the
// only places where eager data crosses between host and device.
//
// Device choice: comm::DefaultDevice(), local_rank % device count (DESIGN.md), the same
// device the NCCL layer drives. Memory comes from memory::DeviceCachingAllocator(device);
// every kernel and copy on an eager tensor is queued on one Tessera-owned non-blocking
// stream per device. One stream is what makes the caching allocator's immediate reuse
// of a freed block safe: a later user of the block is queued behind every earlier one.
//
// Ordering: kernels are queued without waiting. The host waits where data leaves the
// device (CopyDeviceToHost, Synchronize), and that is where errors of queued work
// surface: a failed kernel, or the data errors of kernels/cuda/data_errors.h (an index
// out of range, an integer zero divisor) with the CPU kernel's message.
//
// The header is plain C++ (streams are void*), so g++-compiled code uses it in every
// build. Without --config=cuda the functions exist but fail with UNIMPLEMENTED saying
// Tessera was built without CUDA (cuda_device_none.cc).
#ifndef TESSERA_CORE_TENSOR_CUDA_DEVICE_H_
#define TESSERA_CORE_TENSOR_CUDA_DEVICE_H_

#include <cstddef>

#include "core/common/status.h"
#include "core/kernel/kernel.h"
#include "core/memory/allocator.h"
#include "core/placement/placement.h"

namespace tessera {
namespace tensor {

struct CudaDevice {
  int index = 0;                           // local CUDA device index
  void* stream = nullptr;                  // cudaStream_t, never destroyed
  memory::Allocator* allocator = nullptr;  // DeviceCachingAllocator(index)
};

// OK when this build can hold eager tensors on `placement`'s device type: cpu always,
// cuda only in a CUDA build. Answers without asking the device, so every rank of the
// world (inside the placement or not) gives the same answer before any collective.
Status CheckDeviceBuild(const Placement& placement);

// This rank's device, set up on the first successful call (thread-safe; a failure is
// not remembered, so a later call retries) and afterwards a lock-free load.
// UNIMPLEMENTED without a CUDA build; UNAVAILABLE "no CUDA device visible" without a
// GPU; FAILED_PRECONDITION when the local rank is unknown (comm::LocalRank).
Result<const CudaDevice*> LocalCudaDevice();

// Copies `bytes` between host memory and memory of `device`, on its stream, and waits
// for the copy (and so for every earlier kernel on the stream). CopyDeviceToHost also
// reports an error of earlier work on the stream (see the file comment).
Status CopyHostToDevice(const CudaDevice& device, void* dst, const void* src, size_t bytes);
Status CopyDeviceToHost(const CudaDevice& device, void* dst, const void* src, size_t bytes);
// Copies `bytes` between two places in memory of `device`, on its stream, and waits for
// the copy, so `src` may be freed or rewritten as soon as it returns.
Status CopyDeviceToDevice(const CudaDevice& device, void* dst, const void* src, size_t bytes);

// Waits for everything queued on the device's stream; reports its errors.
Status SynchronizeDevice(const CudaDevice& device);

// Runs a CUDA kernel on the device's stream (sets ctx->stream) with the device current
// for the call; the caller's current device is restored afterwards. Does not wait.
Status RunCudaKernel(const CudaDevice& device, kernels::KernelFn kernel,
                     kernels::KernelContext* ctx);

// Copies `bytes` at `src`, which must be memory of CUDA device `device` (any visible
// device, not only this rank's; checked, INVALID_ARGUMENT otherwise), to host memory
// `dst`. For imports (DLPack): the producer must have finished writing `src`.
Status CopyForeignDeviceToHost(int device, const void* src, size_t bytes, void* dst);

}  // namespace tensor
}  // namespace tessera

#endif  // TESSERA_CORE_TENSOR_CUDA_DEVICE_H_
