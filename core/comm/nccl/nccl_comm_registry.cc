#include "core/comm/nccl/nccl_comm_registry.h"

#include <numeric>
#include <utility>

#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_world.h"

namespace tessera::comm {

NcclCommRegistry& NcclCommRegistry::Global() {
  static NcclCommRegistry* registry = new NcclCommRegistry;  // outlives static destructors
  return *registry;
}

Status NcclCommRegistry::CheckCuda(const char* method, const Placement& placement) {
  if (placement.device_type() != DeviceType::kCuda) {
    return InvalidArgument(std::string(method) + ": placement " + placement.ToString() + " is on " +
                           DeviceTypeName(placement.device_type()) +
                           "; NCCL communicators are for cuda placements");
  }
  return Status::Ok();
}

Result<NcclCommunicator*> NcclCommRegistry::GetOrCreate(const std::vector<int32_t>& ranks,
                                                        MpiCommunicator& bootstrap) {
  auto it = by_ranks_.find(ranks);
  if (it != by_ranks_.end()) return it->second.get();
  TESS_ASSIGN_OR_RETURN(std::unique_ptr<NcclCommunicator> created,
                        NcclCommunicator::Create(bootstrap));
  if (!hook_registered_) {
    // Registered after the MPI registry's hook (the bootstrap exists already), so it runs
    // first: NCCL communicators go while MPI is still up.
    AddPreFinalizeHook([] { Global().Clear(); });
    hook_registered_ = true;
  }
  NcclCommunicator* result = created.get();
  by_ranks_.emplace(ranks, std::move(created));
  return result;
}

NcclCommRegistry::PlacementEntry& NcclCommRegistry::EntryFor(const Placement& placement) {
  return by_placement_[placement.ToString()];  // copies the key only on insertion
}

Result<NcclCommunicator*> NcclCommRegistry::World() {
  TESS_ASSIGN_OR_RETURN(MpiCommunicator * bootstrap, MpiCommRegistry::Global().World());
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<int32_t> ranks(bootstrap->size());
  std::iota(ranks.begin(), ranks.end(), 0);
  return GetOrCreate(ranks, *bootstrap);
}

Result<NcclCommunicator*> NcclCommRegistry::ForPlacement(const Placement& placement) {
  TESS_RETURN_IF_ERROR(CheckCuda("NcclCommRegistry::ForPlacement", placement));
  {
    std::lock_guard<std::mutex> lock(mu_);
    PlacementEntry& entry = EntryFor(placement);
    if (entry.whole != nullptr) return entry.whole;
  }
  // The MPI registry checks world ranks and membership, before any collective call.
  TESS_ASSIGN_OR_RETURN(MpiCommunicator * bootstrap,
                        MpiCommRegistry::Global().ForPlacement(placement));
  std::lock_guard<std::mutex> lock(mu_);
  PlacementEntry& entry = EntryFor(placement);
  TESS_ASSIGN_OR_RETURN(entry.whole, GetOrCreate(placement.ranks(), *bootstrap));
  return entry.whole;
}

Result<NcclCommunicator*> NcclCommRegistry::ForAxis(const Placement& placement, int axis) {
  TESS_RETURN_IF_ERROR(CheckCuda("NcclCommRegistry::ForAxis", placement));
  if (axis >= 0 && axis < placement.num_axes()) {
    std::lock_guard<std::mutex> lock(mu_);
    PlacementEntry& entry = EntryFor(placement);
    if (entry.axes[axis] != nullptr) return entry.axes[axis];
  }
  // Checks the axis, world ranks and membership, before any collective call.
  TESS_ASSIGN_OR_RETURN(MpiCommunicator * bootstrap,
                        MpiCommRegistry::Global().ForAxis(placement, axis));
  TESS_ASSIGN_OR_RETURN(int32_t me, WorldRank());
  TESS_ASSIGN_OR_RETURN(Placement group, placement.AxisGroup(axis, me));
  std::lock_guard<std::mutex> lock(mu_);
  PlacementEntry& entry = EntryFor(placement);
  TESS_ASSIGN_OR_RETURN(entry.axes[axis], GetOrCreate(group.ranks(), *bootstrap));
  return entry.axes[axis];
}

Result<NcclCommunicator*> NcclCommRegistry::ForRanks(const std::vector<int32_t>& world_ranks) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_ranks_.find(world_ranks);
    if (it != by_ranks_.end()) return it->second.get();
  }
  // Checks the list, world ranks and membership, before any collective call.
  TESS_ASSIGN_OR_RETURN(MpiCommunicator * bootstrap,
                        MpiCommRegistry::Global().ForRanks(world_ranks));
  std::lock_guard<std::mutex> lock(mu_);
  return GetOrCreate(world_ranks, *bootstrap);
}

void NcclCommRegistry::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  by_placement_.clear();
  for (auto& entry : by_ranks_) entry.second.reset();  // ascending rank lists
  by_ranks_.clear();
  hook_registered_ = false;
}

}  // namespace tessera::comm
