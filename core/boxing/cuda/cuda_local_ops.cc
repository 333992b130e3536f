#include "core/boxing/cuda/cuda_local_ops.h"

#include <string>

#include "core/boxing/box_copy.h"
#include "core/boxing/cuda/fill_pattern.h"
#include "core/boxing/reduction_identity.h"
#include "core/comm/nccl/copy_piece_cuda.h"
#include "core/comm/nccl/strided_copy.h"
#include "core/device/cuda_error.h"
#include "core/device/device_scope.h"

namespace tessera::boxing {
namespace {

using device::CudaError;
using device::DeviceScope;

Status Checked(const char* call, cudaError_t err) {
  if (err == cudaSuccess) return Status::Ok();
  return CudaError(std::string("device boxing: ") + call, err);
}

}  // namespace

Result<std::shared_ptr<const CudaLocalOps>> CudaLocalOps::Make(int device, cudaStream_t stream) {
  int max_pitch = 0;
  TESS_RETURN_IF_ERROR(Checked("cudaDeviceGetAttribute(cudaDevAttrMaxPitch)",
                               cudaDeviceGetAttribute(&max_pitch, cudaDevAttrMaxPitch, device)));
  return std::shared_ptr<const CudaLocalOps>(new CudaLocalOps(device, stream, max_pitch));
}

Status CudaLocalOps::CopyBytes(void* dst, const void* src, size_t bytes) const {
  if (bytes == 0) return Status::Ok();
  DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device_));
  return Checked("cudaMemcpyAsync",
                 cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_));
}

Status CudaLocalOps::CopyBox(const void* src, const Shape& src_shape, const int64_t* src_begin,
                             void* dst, const Shape& dst_shape, const int64_t* dst_begin,
                             const Shape& box, size_t elem_size) const {
  const comm::StridedCopy copy = StridedCopyOfBox(src_shape, src_begin, dst_shape, dst_begin, box);
  if (copy.run == 0) return Status::Ok();
  DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device_));
  return comm::ForEachCopyPiece(copy, static_cast<int64_t>(elem_size), max_pitch_,
                                [&](const comm::CopyPiece& piece) -> Status {
                                  const char* call = nullptr;
                                  const cudaError_t err =
                                      comm::EnqueueCopyPiece(piece, src, dst, stream_, &call);
                                  return Checked(call, err);
                                });
}

Status CudaLocalOps::FillReductionIdentity(void* buffer, int64_t count, DType dtype,
                                           comm::ReduceOp op) const {
  if (count == 0) return Status::Ok();
  const size_t elem = DTypeSize(dtype);
  DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device_));
  if (op == comm::ReduceOp::kSum && dtype != DType::kF32 && dtype != DType::kF64) {
    // All-zero bytes are an integer 0 (float sums fill -0.0, below).
    return Checked("cudaMemsetAsync",
                   cudaMemsetAsync(buffer, 0, static_cast<size_t>(count) * elem, stream_));
  }
  // The host's definition of the identity, one element of it, as the fill's bits.
  alignas(8) unsigned char pattern[8] = {};
  boxing::FillReductionIdentity(pattern, 1, dtype, op);
  return FillPatternAsync(buffer, count, static_cast<int>(elem), pattern, stream_);
}

Status CudaLocalOps::Finish() const {
  DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device_));
  return Checked("cudaStreamSynchronize", cudaStreamSynchronize(stream_));
}

}  // namespace tessera::boxing
