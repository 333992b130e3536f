// BoxingBackend: what the boxing executor needs from where a placement's pieces live:
// the communicators of rank groups, the local ops that go with each one (local_ops.h)
// and the memory that staging comes from. Two backends: host memory over MPI
// (HostBoxingBackend, cpu placements) and CUDA device memory over NCCL
// (CudaBoxingBackend, cuda placements; core/boxing/cuda), chosen by device type.
//
// Communicators are borrowed from the process-wide registries (MpiCommRegistry,
// NcclCommRegistry) and live until FinalizeWorld; creating one is collective over its
// members, so every member asks in the same order (SPMD).
#ifndef TESSERA_CORE_BOXING_BOXING_BACKEND_H_
#define TESSERA_CORE_BOXING_BOXING_BACKEND_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "core/boxing/local_ops.h"
#include "core/comm/communicator.h"
#include "core/common/status.h"
#include "core/memory/allocator.h"
#include "core/placement/placement.h"

namespace tessera::boxing {

class BoxingBackend {
 public:
  virtual ~BoxingBackend() = default;

  virtual DeviceType device_type() const = 0;

  // The calling rank's group along hierarchy axis `axis` of `placement`, in axis order.
  virtual Result<comm::Communicator*> ForAxis(const Placement& placement, int axis) = 0;
  // The world ranks `world_ranks`, in the order given (must hold the calling rank).
  virtual Result<comm::Communicator*> ForRanks(const std::vector<int32_t>& world_ranks) = 0;
  // The local ops of a step on `comm` (a communicator this backend handed out), ordered
  // with its collectives; for nullptr, of a step with no collective (a relabel, a plan
  // with no steps). Asked only on ranks that hold a piece.
  virtual Result<std::shared_ptr<const LocalOps>> OpsFor(comm::Communicator* comm) = 0;
  // Where a BoxingWorkspace for these pieces takes its staging; nullptr means host
  // memory (BoxingWorkspace's default). Asked only on ranks that hold a piece.
  virtual Result<memory::Allocator*> StagingAllocator() = 0;
};

// cpu placements: MpiCommRegistry's communicators and HostLocalOps. Process-wide.
BoxingBackend& HostBoxingBackend();

// cuda placements: NcclCommRegistry's communicators, ops queued on their streams,
// staging in this rank's device (comm::DefaultDevice) from its caching allocator.
// Defined by :cuda_backend: in a build without CUDA, UNIMPLEMENTED "Tessera was built
// without CUDA (build with --config=cuda)".
Result<BoxingBackend*> CudaBoxingBackend();

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_BOXING_BACKEND_H_
