// The MPI communicators of placements: one per placement (its ranks in row-major
// order, so communicator rank i is parallel index i) and one per hierarchy axis
// group, created on first use and cached until FinalizeWorld (or Clear).
//
// Creation is collective over the new communicator's members only
// (MPI_Comm_create_group): every member must ask for it, and members must ask for
// their communicators in the same order (Tessera's SPMD rule). Ranks outside a
// placement never take part. Communicators are cached by their world-rank list, so
// placements with the same ranks in the same order (cpu:[0,1,2,3],
// cpu:[[0,1],[2,3]], cuda:0-3) share one, and no collective on one placement can
// match a collective on another.
//
// Timeouts. With a timeout set (DefaultCollectiveTimeout() > 0 when the communicator
// is first asked for), creating a communicator of several ranks is bounded like a
// collective: a member that does not arrive within the timeout gives
// DEADLINE_EXCEEDED on the members waiting for it, naming what was being created
// (placement, axis or rank list), its world ranks and the ranks that never arrived.
// A member that arrives and then stalls or dies before MPI has made the communicator
// can make it take up to twice the timeout (see GetOrCreate). A failed creation is
// not cached as good: the rank list is remembered as failed, and every later request
// for it (any placement with those ranks in that order) fails at once with
// FAILED_PRECONDITION quoting the first error; other rank lists are unaffected. The
// fault is noted (mpi_world.h NoteFault), so FinalizeWorld is bounded afterwards.
// Without a timeout, creation is MPI's blocking call, as every collective is.
#ifndef TESSERA_CORE_COMM_MPI_COMM_REGISTRY_H_
#define TESSERA_CORE_COMM_MPI_COMM_REGISTRY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/comm/mpi_communicator.h"
#include "core/common/status.h"
#include "core/placement/placement.h"

namespace tessera::comm {

class MpiCommRegistry {
 public:
  // The process-wide registry. Needs InitWorld.
  static MpiCommRegistry& Global();

  // All world ranks in world order (a duplicate of MPI_COMM_WORLD's group, so user
  // traffic on MPI_COMM_WORLD cannot match Tessera's).
  Result<MpiCommunicator*> World();
  // The placement's ranks in row-major order. NOT_FOUND on a rank the placement does
  // not hold (no MPI call is made there); OUT_OF_RANGE when it names a rank the
  // world lacks.
  Result<MpiCommunicator*> ForPlacement(const Placement& placement);
  // The calling rank's group along hierarchy axis `axis` (Placement::AxisGroup),
  // in axis order. NOT_FOUND on a rank the placement does not hold.
  Result<MpiCommunicator*> ForAxis(const Placement& placement, int axis);
  // The world ranks `world_ranks` in the order given (e.g. the sorted union of two
  // placements' ranks, for boxing between them). Every listed rank must ask, in the
  // same order relative to its other creations. INVALID_ARGUMENT on an empty list or
  // a duplicate; OUT_OF_RANGE on a rank the world lacks; NOT_FOUND on a rank the list
  // does not hold (no MPI call is made there).
  Result<MpiCommunicator*> ForRanks(const std::vector<int32_t>& world_ranks);

  // SetTimeout(seconds) on every cached communicator (local, no communication).
  // INVALID_ARGUMENT, changing none, for a negative, NaN or infinite value. Must not
  // race with collectives on those communicators.
  Status SetTimeout(double seconds);

  // Frees every cached communicator and forgets failed creations; pointers handed out
  // become dangling. Runs automatically inside FinalizeWorld.
  void Clear();

 private:
  MpiCommRegistry() = default;

  struct PlacementEntry {
    MpiCommunicator* whole = nullptr;
    MpiCommunicator* axes[Placement::kMaxAxes] = {};
  };

  Status CheckWorldRanks(const Placement& placement, int32_t world_size) const;
  // Cached or newly created communicator over `ranks` (must hold this rank); `what`
  // names it in errors ("placement cpu:0-2").
  Result<MpiCommunicator*> GetOrCreate(const std::vector<int32_t>& ranks, const std::string& what);
  PlacementEntry& EntryFor(const Placement& placement);

  std::mutex mu_;
  bool hook_registered_ = false;
  std::map<std::vector<int32_t>, std::unique_ptr<MpiCommunicator>> by_ranks_;
  // Rank lists whose creation failed, with the error (see Timeouts above).
  std::map<std::vector<int32_t>, Status> failed_;
  std::unordered_map<std::string, PlacementEntry> by_placement_;
};

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_MPI_COMM_REGISTRY_H_
