#include "core/comm/nccl/copy_piece_cuda.h"

namespace tessera::comm {

cudaError_t EnqueueCopyPiece(const CopyPiece& p, const void* src, void* dst, cudaStream_t stream,
                             const char** call) {
  const char* from = static_cast<const char*>(src);
  char* to = static_cast<char*>(dst);
  if (p.height == 1 && p.depth == 1) {
    *call = "cudaMemcpyAsync";
    return cudaMemcpyAsync(to + p.dst, from + p.src, p.width, cudaMemcpyDeviceToDevice, stream);
  }
  if (p.depth == 1) {
    *call = "cudaMemcpy2DAsync";
    return cudaMemcpy2DAsync(to + p.dst, p.dst_pitch, from + p.src, p.src_pitch, p.width, p.height,
                             cudaMemcpyDeviceToDevice, stream);
  }
  *call = "cudaMemcpy3DAsync";
  cudaMemcpy3DParms parms = {};
  parms.srcPtr =
      make_cudaPitchedPtr(const_cast<char*>(from + p.src), p.src_pitch, p.width, p.src_rows);
  parms.dstPtr = make_cudaPitchedPtr(to + p.dst, p.dst_pitch, p.width, p.dst_rows);
  parms.extent = make_cudaExtent(p.width, p.height, p.depth);
  parms.kind = cudaMemcpyDeviceToDevice;
  return cudaMemcpy3DAsync(&parms, stream);
}

}  // namespace tessera::comm
