// The NCCL communicators of cuda placements, like MpiCommRegistry for MPI: one per
// placement (its ranks in row-major order, so communicator rank i is parallel index i)
// and one per hierarchy axis group or any rank list (ForRanks), created on first use
// and cached by world-rank list until FinalizeWorld (or Clear).
//
// Creation is collective over the new communicator's members only: each one is
// bootstrapped over the MPI communicator of the same ranks (MpiCommRegistry), whose rank
// 0 makes the ncclUniqueId. Every member must ask for it, in the same order as the other
// members (Tessera's SPMD rule). Each rank drives device LocalRank() % device count
// (local_device.h). A creation that fails (e.g. "no CUDA device visible") fails on
// every member and is not cached, so asking again tries again.
#ifndef TESSERA_CORE_COMM_NCCL_NCCL_COMM_REGISTRY_H_
#define TESSERA_CORE_COMM_NCCL_NCCL_COMM_REGISTRY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/comm/mpi_communicator.h"
#include "core/comm/nccl/nccl_communicator.h"
#include "core/common/status.h"
#include "core/placement/placement.h"

namespace tessera::comm {

class NcclCommRegistry {
 public:
  // The process-wide registry. Needs InitWorld.
  static NcclCommRegistry& Global();

  // All world ranks in world order.
  Result<NcclCommunicator*> World();
  // INVALID_ARGUMENT for a placement that is not on cuda; otherwise as
  // MpiCommRegistry::ForPlacement: NOT_FOUND on a rank the placement does not hold (no
  // collective call is made there), OUT_OF_RANGE when it names a rank the world lacks.
  Result<NcclCommunicator*> ForPlacement(const Placement& placement);
  // The calling rank's group along hierarchy axis `axis` (Placement::AxisGroup), in
  // axis order. Errors as ForPlacement, plus OUT_OF_RANGE for a bad axis.
  Result<NcclCommunicator*> ForAxis(const Placement& placement, int axis);
  // The world ranks `world_ranks` in the order given (the sorted union of two
  // placements' ranks for a reshard, a flattened group of several hierarchy axes), as
  // MpiCommRegistry::ForRanks, whose checks and errors it shares (INVALID_ARGUMENT for
  // an empty list or a duplicate, OUT_OF_RANGE for a rank the world lacks, NOT_FOUND on
  // a rank the list does not hold; no collective call is made on such errors). Every
  // listed rank must ask, in the same order relative to its other creations.
  Result<NcclCommunicator*> ForRanks(const std::vector<int32_t>& world_ranks);

  // Destroys every cached communicator in ascending order of their rank lists, the same
  // order on every rank, because destruction waits for the other members (NCCL's
  // finalize); pointers handed out become dangling. Runs inside FinalizeWorld, before
  // MPI is finalised.
  void Clear();

 private:
  NcclCommRegistry() = default;

  struct PlacementEntry {
    NcclCommunicator* whole = nullptr;
    NcclCommunicator* axes[Placement::kMaxAxes] = {};
  };

  static Status CheckCuda(const char* method, const Placement& placement);
  // Cached or newly created communicator over `ranks`, bootstrapped over `bootstrap`
  // (the MPI communicator of the same ranks).
  Result<NcclCommunicator*> GetOrCreate(const std::vector<int32_t>& ranks,
                                        MpiCommunicator& bootstrap);
  PlacementEntry& EntryFor(const Placement& placement);

  std::mutex mu_;
  bool hook_registered_ = false;
  std::map<std::vector<int32_t>, std::unique_ptr<NcclCommunicator>> by_ranks_;
  std::unordered_map<std::string, PlacementEntry> by_placement_;
};

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_NCCL_NCCL_COMM_REGISTRY_H_
