// One CopyPiece (strided_copy.h) as one CUDA call on a stream: cudaMemcpyAsync,
// cudaMemcpy2DAsync or cudaMemcpy3DAsync, device to device. Shared by AllToAllBlocks'
// packing (nccl_communicator.cc) and device boxing's CopyBox (core/boxing/cuda).
#ifndef TESSERA_CORE_COMM_NCCL_COPY_PIECE_CUDA_H_
#define TESSERA_CORE_COMM_NCCL_COPY_PIECE_CUDA_H_

#include <cuda_runtime.h>

#include "core/comm/nccl/strided_copy.h"

namespace tessera::comm {

// Enqueues `piece` from `src` to `dst` (the piece's offsets are bytes from them) on
// `stream` and returns the CUDA call's result; `*call` names the call made, for the
// caller's error message. Does not wait.
cudaError_t EnqueueCopyPiece(const CopyPiece& piece, const void* src, void* dst,
                             cudaStream_t stream, const char** call);

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_NCCL_COPY_PIECE_CUDA_H_
