// LocalOps (core/boxing/local_ops.h) on one CUDA device's memory, queued on one stream:
// the stream of the NCCL communicator a boxing step runs on, so the step's packs,
// copies and fills are ordered with its collectives without waiting in between.
//
//   CopyBytes              one cudaMemcpyAsync, device to device
//   CopyBox                StridedCopyOfBox (box_copy.h) cut by ForEachCopyPiece into
//                          cudaMemcpyAsync / 2DAsync / 3DAsync calls (pitches up to
//                          cudaDevAttrMaxPitch; beyond it rows are looped over)
//   FillReductionIdentity  cudaMemsetAsync for P (all-zero bytes are 0 in every
//                          supported dtype), else a fill kernel with the identity's bits
//   Finish                 cudaStreamSynchronize
//
// Every call makes the device current for its duration (the caller's is restored).
#ifndef TESSERA_CORE_BOXING_CUDA_CUDA_LOCAL_OPS_H_
#define TESSERA_CORE_BOXING_CUDA_CUDA_LOCAL_OPS_H_

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>

#include "core/boxing/local_ops.h"
#include "core/common/status.h"

namespace tessera::boxing {

class CudaLocalOps final : public LocalOps {
 public:
  // Ops on `stream`, a stream of CUDA device `device` that outlives them. Queries the
  // device's maximum pitch.
  static Result<std::shared_ptr<const CudaLocalOps>> Make(int device, cudaStream_t stream);

  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }

  DeviceType device_type() const override { return DeviceType::kCuda; }
  Status CopyBytes(void* dst, const void* src, size_t bytes) const override;
  Status CopyBox(const void* src, const Shape& src_shape, const int64_t* src_begin, void* dst,
                 const Shape& dst_shape, const int64_t* dst_begin, const Shape& box,
                 size_t elem_size) const override;
  Status FillReductionIdentity(void* buffer, int64_t count, DType dtype,
                               comm::ReduceOp op) const override;
  Status Finish() const override;

 private:
  CudaLocalOps(int device, cudaStream_t stream, int64_t max_pitch)
      : device_(device), stream_(stream), max_pitch_(max_pitch) {}

  int device_;
  cudaStream_t stream_;
  int64_t max_pitch_;  // cudaDevAttrMaxPitch, bytes
};

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_CUDA_CUDA_LOCAL_OPS_H_
