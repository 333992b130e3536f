// The boxing planner: the cheapest sequence of steps (boxing_plan.h) between two placed
// nd-sbps, found by Dijkstra's shortest path over states (placement, nd-sbp), where
// the placement is the source's or the destination's. Edges:
//
//   axis move     one hierarchy axis changes, as one Box1d along it (axis_move.h says
//                 which moves are valid); costed per collective (boxing_cost.h).
//                 Includes the local ones: B -> S, B -> P, S -> P.
//   flattened     several axes holding one sbp change to one sbp at once, as one
//   move          Box1d over their flattened group (axis_move.h): (P, P) -> (B, B) is
//                 one all-reduce over the whole grid when that is cheaper than one
//                 per axis, which the same cost model decides.
//   relabel       source and destination hold the same ranks in the same order
//                 under different hierarchies: a state with one sbp on every axis
//                 becomes the destination's state with that sbp on every axis when
//                 every rank holds the same box (flattening or unflattening the
//                 hierarchy); nothing moves. Partial states cross this way too.
//   reshard       any state without partial axes to any state without partial axes on
//                 the destination's placement (the same placement, or across), as one
//                 all-to-all-v (reshard.h); costed from the busiest rank's bytes.
//
// So a partial source on another placement is first reduced on its own placement (to
// S where that is cheaper than to B) unless a relabel carries it across, and a
// partial destination is reached by local B -> P / S -> P moves at the end; nothing
// fixes the order of the axes.
//
// The states considered: per hierarchy axis, B, S(d) for every tensor dim d, and the
// partial kinds the source (on its side) or the destination (on its side) uses. When
// that grows past kMaxStatesPerSide, S(d) is limited to the dims the source or the
// destination splits, and then to each axis's own source / destination sbp and B.
//
// Reshard edges are many (every pair of non-partial states) and costing one walks
// every (piece, destination) pair, so they enter the queue at a lower bound (one
// step plus one alpha) and are costed only when that bound comes up; most never do.
//
// Determinism: costs are computed by the same code from the same values on every
// rank, and ties are broken by state order, so every rank finds the same plan.
#ifndef TESSERA_CORE_BOXING_PLANNER_H_
#define TESSERA_CORE_BOXING_PLANNER_H_

#include <memory>

#include "core/boxing/boxing_layouts.h"
#include "core/boxing/boxing_plan.h"
#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera::boxing {

inline constexpr int64_t kMaxStatesPerSide = 8192;

// The cheapest plan, uncached. Plans any layouts (the planner needs no more than their
// validity); the device-type and dtype restrictions of boxing are the callers'
// (BoxingLayouts::RequireBoxable).
Result<std::shared_ptr<const BoxingPlan>> FindBoxingPlan(const BoxingLayouts& layouts);

// The same from unchecked values: BoxingLayouts::Make in the name "FindBoxingPlan" first.
Result<std::shared_ptr<const BoxingPlan>> FindBoxingPlan(const Shape& shape, DType dtype,
                                                         const Placement& src_placement,
                                                         const NdSbp& src,
                                                         const Placement& dst_placement,
                                                         const NdSbp& dst);

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_PLANNER_H_
