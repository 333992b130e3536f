// For multi-rank tests of NCCL-backed code: why this process cannot run its GPU cases.
// NCCL refuses two ranks of one communicator on one device ("Duplicate GPU detected"), so
// a world of N ranks needs N visible GPUs (every test rank runs on one host).
#ifndef TESSERA_CORE_COMM_NCCL_GPU_SKIP_H_
#define TESSERA_CORE_COMM_NCCL_GPU_SKIP_H_

#include <cstdint>
#include <string>

namespace tessera::comm {

// "" when `world_size` ranks can each drive a GPU of their own; else the reason, e.g.
// "no CUDA device visible".
std::string NcclGpuSkipReason(int32_t world_size);

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_NCCL_GPU_SKIP_H_
