#include "core/comm/mpi_comm_registry.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "core/comm/comm_checks.h"
#include "core/comm/mpi_world.h"

namespace tessera::comm {
namespace {

// Every creation is ordered by the SPMD rule, so one tag serves them all.
constexpr int kCreateGroupTag = 0x7e55;

}  // namespace

MpiCommRegistry& MpiCommRegistry::Global() {
  static MpiCommRegistry* registry = new MpiCommRegistry;  // outlives static destructors
  return *registry;
}

Status MpiCommRegistry::CheckWorldRanks(const Placement& placement, int32_t world_size) const {
  for (int32_t r : placement.ranks()) {
    if (r >= world_size) {
      return OutOfRange("placement " + placement.ToString() + " names rank " + std::to_string(r) +
                        " but the world has " + std::to_string(world_size) + " ranks");
    }
  }
  return Status::Ok();
}

Result<MpiCommunicator*> MpiCommRegistry::GetOrCreate(const std::vector<int32_t>& ranks) {
  auto it = by_ranks_.find(ranks);
  if (it != by_ranks_.end()) return it->second.get();

  MPI_Group world_group = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
  int rc = MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_group", rc);
  rc = MPI_Group_incl(world_group, static_cast<int>(ranks.size()), ranks.data(), &group);
  MPI_Group_free(&world_group);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Group_incl", rc);
  MPI_Comm comm = MPI_COMM_NULL;
  rc = MPI_Comm_create_group(MPI_COMM_WORLD, group, kCreateGroupTag, &comm);
  MPI_Group_free(&group);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_create_group", rc);
  auto wrapped = MpiCommunicator::Wrap(comm, /*owned=*/true);
  if (!wrapped.ok()) {
    MPI_Comm_free(&comm);
    return wrapped.status();
  }
  if (!hook_registered_) {
    AddPreFinalizeHook([] { Global().Clear(); });
    hook_registered_ = true;
  }
  MpiCommunicator* result = wrapped->get();
  by_ranks_.emplace(ranks, std::move(wrapped).value());
  return result;
}

MpiCommRegistry::PlacementEntry& MpiCommRegistry::EntryFor(const Placement& placement) {
  return by_placement_[placement.ToString()];  // copies the key only on insertion
}

Result<MpiCommunicator*> MpiCommRegistry::World() {
  TESS_ASSIGN_OR_RETURN(int32_t size, WorldSize());
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<int32_t> ranks(size);
  std::iota(ranks.begin(), ranks.end(), 0);
  return GetOrCreate(ranks);
}

Result<MpiCommunicator*> MpiCommRegistry::ForPlacement(const Placement& placement) {
  TESS_ASSIGN_OR_RETURN(int32_t me, WorldRank());
  TESS_ASSIGN_OR_RETURN(int32_t size, WorldSize());
  std::lock_guard<std::mutex> lock(mu_);
  PlacementEntry& entry = EntryFor(placement);
  if (entry.whole != nullptr) return entry.whole;
  TESS_RETURN_IF_ERROR(CheckWorldRanks(placement, size));
  if (!placement.contains(me)) {
    return NotFound("rank " + std::to_string(me) + " is not in placement " + placement.ToString() +
                    ", so it has no communicator for it");
  }
  TESS_ASSIGN_OR_RETURN(entry.whole, GetOrCreate(placement.ranks()));
  return entry.whole;
}

Result<MpiCommunicator*> MpiCommRegistry::ForAxis(const Placement& placement, int axis) {
  TESS_ASSIGN_OR_RETURN(int32_t me, WorldRank());
  TESS_ASSIGN_OR_RETURN(int32_t size, WorldSize());
  if (axis < 0 || axis >= placement.num_axes()) {
    return OutOfRange("hierarchy axis " + std::to_string(axis) + " is outside " +
                      placement.ToString() + ", which has " + std::to_string(placement.num_axes()) +
                      " axes");
  }
  std::lock_guard<std::mutex> lock(mu_);
  PlacementEntry& entry = EntryFor(placement);
  if (entry.axes[axis] != nullptr) return entry.axes[axis];
  TESS_RETURN_IF_ERROR(CheckWorldRanks(placement, size));
  if (!placement.contains(me)) {
    return NotFound("rank " + std::to_string(me) + " is not in placement " + placement.ToString() +
                    ", so it has no communicator for its axis " + std::to_string(axis));
  }
  TESS_ASSIGN_OR_RETURN(Placement group, placement.AxisGroup(axis, me));
  TESS_ASSIGN_OR_RETURN(entry.axes[axis], GetOrCreate(group.ranks()));
  return entry.axes[axis];
}

Result<MpiCommunicator*> MpiCommRegistry::ForRanks(const std::vector<int32_t>& world_ranks) {
  TESS_ASSIGN_OR_RETURN(int32_t me, WorldRank());
  TESS_ASSIGN_OR_RETURN(int32_t size, WorldSize());
  std::lock_guard<std::mutex> lock(mu_);
  // A cached list was checked when it was created; a hit costs one map lookup.
  auto it = by_ranks_.find(world_ranks);
  if (it != by_ranks_.end()) return it->second.get();
  if (world_ranks.empty()) return InvalidArgument("ForRanks: the rank list is empty");
  std::vector<int32_t> sorted = world_ranks;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] < 0 || sorted[i] >= size) {
      return OutOfRange("ForRanks: rank " + std::to_string(sorted[i]) +
                        " is outside the world of " + std::to_string(size) + " ranks");
    }
    if (i > 0 && sorted[i] == sorted[i - 1]) {
      return InvalidArgument("ForRanks: rank " + std::to_string(sorted[i]) + " is listed twice");
    }
  }
  if (!std::binary_search(sorted.begin(), sorted.end(), me)) {
    return NotFound("ForRanks: rank " + std::to_string(me) +
                    " is not in the rank list, so it has no communicator for it");
  }
  return GetOrCreate(world_ranks);
}

Status MpiCommRegistry::SetTimeout(double seconds) {
  // Checked here too: with no communicator cached, nothing else would check it.
  TESS_RETURN_IF_ERROR(CheckTimeout("MpiCommRegistry::SetTimeout", seconds));
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [ranks, comm] : by_ranks_) TESS_RETURN_IF_ERROR(comm->SetTimeout(seconds));
  return Status::Ok();
}

void MpiCommRegistry::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  by_placement_.clear();
  by_ranks_.clear();
  hook_registered_ = false;
}

}  // namespace tessera::comm
