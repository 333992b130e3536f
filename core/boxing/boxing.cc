#include "core/boxing/boxing.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "core/boxing/boxing_backend.h"
#include "core/boxing/plan_cache.h"
#include "core/boxing/planner.h"
#include "core/boxing/rank_program.h"
#include "core/comm/mpi_world.h"

namespace tessera::boxing {
namespace {

// The calling thread's most recent entries of the global cache, so that a repeated
// Box takes no lock. Entries are dropped when the global cache's generation changes
// (Clear / SetCapacity), so they never outlive what the global cache promises.
class FrontCache {
 public:
  static constexpr int kSize = 4;

  bool Find(const PlanKeyRef& key, size_t hash, uint64_t generation, CachedBoxing* out) {
    if (generation != generation_) return false;
    for (Slot& slot : slots_) {
      if (slot.value.program != nullptr && slot.hash == hash && Matches(*slot.value.plan, key)) {
        *out = slot.value;
        return true;
      }
    }
    return false;
  }
  void Put(size_t hash, uint64_t generation, const CachedBoxing& value) {
    if (generation != generation_) {
      for (Slot& slot : slots_) slot = Slot();
      generation_ = generation;
    }
    Slot& slot = slots_[next_];
    next_ = (next_ + 1) % kSize;
    slot.hash = hash;
    slot.value = value;
  }

 private:
  struct Slot {
    size_t hash = 0;
    CachedBoxing value;
  };
  static bool Matches(const BoxingPlan& plan, const PlanKeyRef& key) {
    return plan.shape() == key.shape && plan.dtype() == key.dtype && plan.src() == key.src &&
           plan.dst() == key.dst && plan.src_placement() == key.src_placement &&
           plan.dst_placement() == key.dst_placement;
  }

  Slot slots_[kSize];
  int next_ = 0;
  uint64_t generation_ = 0;
};

FrontCache& ThreadFrontCache() {
  thread_local FrontCache cache;
  return cache;
}

// The plan of `layouts` (whose key is `key`) from the global cache, found and inserted
// on a miss; `cached` receives the entry.
Result<std::shared_ptr<const BoxingPlan>> CachedPlan(const BoxingLayouts& layouts,
                                                     const PlanKeyRef& key, size_t hash,
                                                     CachedBoxing* cached) {
  PlanCache& cache = PlanCache::Global();
  if (cache.Find(key, hash, cached)) return cached->plan;
  TESS_ASSIGN_OR_RETURN(cached->plan, FindBoxingPlan(layouts));
  cached->program = nullptr;
  cache.Put(key, hash, *cached);
  return cached->plan;
}

Status CheckWorldRanks(const char* caller, const Placement& placement, const char* name,
                       int32_t world_size) {
  for (int32_t r : placement.ranks()) {
    if (r >= world_size) {
      return OutOfRange(std::string(caller) + ": " + name + " placement " + placement.ToString() +
                        " names rank " + std::to_string(r) + " but the world has " +
                        std::to_string(world_size) + " ranks");
    }
  }
  return Status::Ok();
}

// Programs borrow the registry's communicators, which FinalizeWorld frees: drop
// every cached program (and, through the generation, every front cache) first.
void RegisterFinalizeHookOnce() {
  static std::once_flag once;
  std::call_once(once, [] { comm::AddPreFinalizeHook([] { PlanCache::Global().Clear(); }); });
}

bool Overlap(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  if (a == nullptr || b == nullptr || a_bytes == 0 || b_bytes == 0) return false;
  const auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return x < y + b_bytes && y < x + a_bytes;
}

// Box and BoxOnDevice after their entry checks: `backend` serves the placements'
// device; messages start with `caller`.
Status BoxWith(const char* caller, BoxingBackend& backend, const BoxingRequest& request) {
  if (!comm::WorldInitialized()) {
    return FailedPrecondition(std::string(caller) +
                              ": the MPI world is not initialised: call tess_runtime_init first");
  }
  const BoxingLayouts& layouts = request.layouts;
  const int32_t me = comm::WorldRank().value();
  const PlanKeyRef key = PlanKeyRef::Of(layouts);
  const size_t hash = key.Hash();
  const uint64_t generation = PlanCache::Global().generation();
  FrontCache& front = ThreadFrontCache();
  CachedBoxing cached;
  if (!front.Find(key, hash, generation, &cached) || cached.program->world_rank() != me) {
    TESS_RETURN_IF_ERROR(CachedPlan(layouts, key, hash, &cached));
    if (cached.program == nullptr || cached.program->world_rank() != me) {
      // Checked once per plan: the world's size does not change while it lives.
      const int32_t world_size = comm::WorldSize().value();
      TESS_RETURN_IF_ERROR(CheckWorldRanks(caller, layouts.src_placement(), "src", world_size));
      TESS_RETURN_IF_ERROR(CheckWorldRanks(caller, layouts.dst_placement(), "dst", world_size));
      RegisterFinalizeHookOnce();
      TESS_ASSIGN_OR_RETURN(cached.program, RankProgram::Make(cached.plan, me, backend));
      PlanCache::Global().Put(key, hash, cached);
    }
    front.Put(hash, generation, cached);
  }
  const RankProgram& program = *cached.program;
  if (!layouts.src_placement().contains(me) && !layouts.dst_placement().contains(me)) {
    return Status::Ok();
  }

  const void* in_local = request.in_local;
  void* out_local = request.out_local;
  const size_t elem = DTypeSize(layouts.dtype());
  const size_t in_bytes = program.in_count() * elem, out_bytes = program.out_count() * elem;
  if (in_local == nullptr && in_bytes > 0) {
    return InvalidArgument(std::string(caller) + ": in_local is NULL but this rank's " +
                           layouts.src().ToString() + " piece holds " +
                           std::to_string(program.in_count()) + " elements");
  }
  if (out_local == nullptr && out_bytes > 0) {
    return InvalidArgument(std::string(caller) + ": out_local is NULL but this rank's " +
                           layouts.dst().ToString() + " piece holds " +
                           std::to_string(program.out_count()) + " elements");
  }
  const bool identity = program.plan().steps().empty();
  if (Overlap(in_local, in_bytes, out_local, out_bytes) && !(identity && in_local == out_local)) {
    return InvalidArgument(std::string(caller) + ": in_local and out_local overlap (" +
                           std::to_string(in_bytes) + " and " + std::to_string(out_bytes) +
                           " bytes); they may only coincide when src and dst are the same");
  }
  std::optional<BoxingWorkspace> call_workspace;
  BoxingWorkspace* workspace = request.workspace;
  if (workspace == nullptr) {
    TESS_ASSIGN_OR_RETURN(memory::Allocator * staging, backend.StagingAllocator());
    call_workspace.emplace(staging);
  } else if (workspace->device_type() != backend.device_type()) {
    return InvalidArgument(std::string(caller) + ": the workspace's staging is " +
                           DeviceTypeName(workspace->device_type()) + " memory but the pieces of " +
                           layouts.src_placement().ToString() + " are " +
                           DeviceTypeName(backend.device_type()) + " memory");
  }
  BoxingWorkspace& ws = workspace != nullptr ? *workspace : *call_workspace;
  if (ws.Overlaps(in_local, in_bytes) || ws.Overlaps(out_local, out_bytes)) {
    return InvalidArgument(std::string(caller) +
                           ": in_local or out_local lies inside the workspace's staging buffers, "
                           "which the boxing overwrites; pass a different workspace or buffer");
  }
  if (layouts.shape().num_elements() == 0) return Status::Ok();
  return program.Run(in_local, out_local, ws);
}

}  // namespace

Result<std::shared_ptr<const BoxingPlan>> PlanBoxing(const BoxingLayouts& layouts) {
  TESS_RETURN_IF_ERROR(layouts.RequireBoxable("PlanBoxing"));
  const PlanKeyRef key = PlanKeyRef::Of(layouts);
  CachedBoxing cached;
  return CachedPlan(layouts, key, key.Hash(), &cached);
}

Status Box(const BoxingRequest& request) {
  constexpr const char* kCaller = "Box";
  const BoxingLayouts& layouts = request.layouts;
  TESS_RETURN_IF_ERROR(layouts.RequireBoxable(kCaller));
  const DeviceType device_type = layouts.src_placement().device_type();
  if (device_type != DeviceType::kCpu) {
    const char* device = DeviceTypeName(device_type);
    return Unimplemented(std::string(kCaller) + ": the pieces of " + device + " placements " +
                         layouts.PlacementsText() +
                         " are device memory and this call moves host memory; " + device +
                         " tensors' to_global boxes them on the devices");
  }
  return BoxWith(kCaller, HostBoxingBackend(), request);
}

Status BoxOnDevice(const BoxingRequest& request) {
  constexpr const char* kCaller = "BoxOnDevice";
  const BoxingLayouts& layouts = request.layouts;
  TESS_RETURN_IF_ERROR(layouts.RequireBoxable(kCaller));
  if (layouts.src_placement().device_type() == DeviceType::kCpu) {
    return InvalidArgument(std::string(kCaller) + ": both placements are on cpu " +
                           layouts.PlacementsText() + "; Box boxes host memory");
  }
  Result<BoxingBackend*> backend = CudaBoxingBackend();
  if (!backend.ok()) {
    return Status(backend.status().code(), std::string(kCaller) + ": boxing on cuda placements " +
                                               layouts.PlacementsText() + ": " +
                                               backend.status().message());
  }
  return BoxWith(kCaller, **backend, request);
}

Result<std::shared_ptr<const BoxingPlan>> PlanBoxing(const Shape& shape, DType dtype,
                                                     const Placement& src_placement,
                                                     const NdSbp& src,
                                                     const Placement& dst_placement,
                                                     const NdSbp& dst) {
  TESS_ASSIGN_OR_RETURN(
      BoxingLayouts layouts,
      BoxingLayouts::Make("PlanBoxing", shape, dtype, src_placement, src, dst_placement, dst));
  return PlanBoxing(layouts);
}

Status Box(const void* in_local, void* out_local, const Shape& shape, DType dtype,
           const Placement& src_placement, const NdSbp& src, const Placement& dst_placement,
           const NdSbp& dst, BoxingWorkspace* workspace) {
  TESS_ASSIGN_OR_RETURN(
      BoxingLayouts layouts,
      BoxingLayouts::Make("Box", shape, dtype, src_placement, src, dst_placement, dst));
  return Box(BoxingRequest{std::move(layouts), in_local, out_local, workspace});
}

}  // namespace tessera::boxing
