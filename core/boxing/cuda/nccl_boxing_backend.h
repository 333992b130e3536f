// The boxing backend of cuda placements (boxing_backend.h): NcclCommRegistry's
// communicators, CudaLocalOps on each one's stream (and, for steps with no collective,
// on a stream of this library's own per device), and staging from the device's
// caching allocator. Defines boxing::CudaBoxingBackend() for --config=cuda builds.
//
// Why stream syncs rather than events: every NCCL collective already returns only when
// its work is done (nccl_communicator.h), so the only queued work left at the end of a
// step is its trailing local copies; one cudaStreamSynchronize there (LocalOps::Finish)
// lets the next step run on another communicator's stream and makes the output complete
// when Box returns, which its callers need anyway.
#ifndef TESSERA_CORE_BOXING_CUDA_NCCL_BOXING_BACKEND_H_
#define TESSERA_CORE_BOXING_CUDA_NCCL_BOXING_BACKEND_H_

#include "core/boxing/boxing_backend.h"

namespace tessera::boxing {

// The process-wide instance; creating it touches no device (each method asks for the
// device when it needs it).
BoxingBackend& NcclBoxingBackend();

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_CUDA_NCCL_BOXING_BACKEND_H_
