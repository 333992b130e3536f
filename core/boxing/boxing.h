// Boxing: converts this rank's local piece of a global tensor from one placed nd-sbp
// (src placement, src nd-sbp) to another (dst placement, dst nd-sbp) of the same
// logical shape and dtype. The planner (planner.h) picks the cheapest sequence of
// Box1d moves (along one hierarchy axis or several flattened), generic reshards and
// relabels between hierarchies of the same ranks; plans are cached process-wide
// (plan_cache.h), and BoxingPlan::ToString() is what `explain` prints.
//
// Box moves host memory between cpu placements; BoxOnDevice moves device memory
// between cuda placements (NCCL, in a CUDA build). Boxing between device types is
// UNIMPLEMENTED in both: callers stage such moves through the host (core/tensor).
#ifndef TESSERA_CORE_BOXING_BOXING_H_
#define TESSERA_CORE_BOXING_BOXING_H_

#include <memory>

#include "core/boxing/boxing_layouts.h"
#include "core/boxing/boxing_plan.h"
#include "core/boxing/boxing_workspace.h"
#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera::boxing {

// One boxing to run: what moves (checked once, at the boundary, into `layouts`) and
// this rank's buffers. in_local is read on ranks of the source placement (NULL allowed
// when the local piece is empty), out_local written on ranks of the destination
// (likewise). Local pieces are row-major with PhysicalLayoutOfRank's shapes; in_local
// and out_local must not overlap unless the layouts are unchanged (then in place is a
// no-op), and neither may lie in `workspace`'s staging. `workspace` (optional, one per
// thread) keeps staging between calls, so a steady stream of boxings allocates
// nothing; without one, staging is allocated per call.
struct BoxingRequest {
  BoxingLayouts layouts;
  const void* in_local = nullptr;
  void* out_local = nullptr;
  BoxingWorkspace* workspace = nullptr;
};

// Runs `request` on host memory between cpu placements. SPMD: every rank of the world
// may call it with the same layouts and its own buffers; ranks in neither placement
// return OK at once (after the local checks). Errors (messages start with "Box"):
// RequireBoxable's; UNIMPLEMENTED for cuda placements (their pieces are device memory:
// BoxOnDevice); FAILED_PRECONDITION without the MPI world (comm::InitWorld);
// OUT_OF_RANGE when a placement names a rank the world lacks; INVALID_ARGUMENT for
// buffers that break the contract above. Threads: the plan cache is shared and safe,
// but the collectives of one placement must be issued in the same order on every
// rank, so box on one placement from one thread.
Status Box(const BoxingRequest& request);

// Runs `request` on device memory: the same contract as Box, for two placements of one
// device type other than cpu (cuda): in_local, out_local and `workspace`'s staging are
// memory of this rank's CUDA device (comm::DefaultDevice), the collectives are NCCL's
// (NcclCommRegistry, created on first use, collective over each group's members) and
// the local copies run on their streams. Inputs must be complete before the call (the
// caller synchronises the stream that wrote them); `out_local` is complete when it
// returns OK. Without a workspace, staging comes from the device's caching allocator
// per call. Errors: as Box (messages start with "BoxOnDevice"); INVALID_ARGUMENT for
// cpu placements (Box boxes those) or a workspace whose staging is not on the
// placements' device type; UNIMPLEMENTED on cuda placements in a build without CUDA
// (naming the placements); UNAVAILABLE "no CUDA device visible" on every member of a
// group that has a rank without a device.
Status BoxOnDevice(const BoxingRequest& request);

// The (cached) plan Box or BoxOnDevice runs for `layouts` (any two placements of one
// device type: RequireBoxable, messages start with "PlanBoxing"); the same layouts
// give the same plan on every rank. Needs no MPI world.
Result<std::shared_ptr<const BoxingPlan>> PlanBoxing(const BoxingLayouts& layouts);

// Box and PlanBoxing from unchecked values, for callers that hold no BoxingLayouts (plan
// steps, tests, benchmarks): each validates once (BoxingLayouts::Make in its own name,
// "Box" or "PlanBoxing") and runs the call above.
Status Box(const void* in_local, void* out_local, const Shape& shape, DType dtype,
           const Placement& src_placement, const NdSbp& src, const Placement& dst_placement,
           const NdSbp& dst, BoxingWorkspace* workspace = nullptr);
Result<std::shared_ptr<const BoxingPlan>> PlanBoxing(const Shape& shape, DType dtype,
                                                     const Placement& src_placement,
                                                     const NdSbp& src,
                                                     const Placement& dst_placement,
                                                     const NdSbp& dst);

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_BOXING_H_
