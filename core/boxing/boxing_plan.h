// A boxing plan: the steps that turn a tensor of one (placement, nd-sbp) into another,
// as the planner chose them (planner.h), with their modelled costs (boxing_cost.h).
// Immutable and shared: the plan cache hands out the same object to every caller.
//
// Steps run in order. An axis step changes one hierarchy axis of one placement (the
// source's or the destination's) with Box1d along that axis, or several axes holding
// one sbp at once with Box1d over their flattened group (axis_move.h); a reshard
// step moves a non-partial nd-sbp to another, across placements or not (reshard.h);
// a relabel step reads the same local pieces under the other placement, a different
// hierarchy of the same ranks (flattening or unflattening it), and moves nothing.
#ifndef TESSERA_CORE_BOXING_BOXING_PLAN_H_
#define TESSERA_CORE_BOXING_BOXING_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/boxing/boxing_cost.h"
#include "core/boxing/boxing_layouts.h"
#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera::boxing {

struct BoxingStep {
  enum class Kind : int { kAxis, kReshard, kRelabel };
  Kind kind = Kind::kAxis;
  Collective collective = Collective::kLocalCopy;
  Side from_side = Side::kSrc;  // an axis step stays on its side
  Side to_side = Side::kSrc;
  int axis = -1;      // kAxis: the (lowest) hierarchy axis that changes
  uint32_t axes = 0;  // kAxis: every axis that changes, bit k = axis k (axis_move.h)
  NdSbp from;
  NdSbp to;
  int64_t ranks = 1;       // the group (kAxis) or the union (kReshard) size
  int64_t wire_bytes = 0;  // what the busiest rank sends or receives
  double seconds = 0;      // modelled cost
};

class BoxingPlan {
 public:
  BoxingPlan(const BoxingLayouts& layouts, std::vector<BoxingStep> steps);

  // What the plan converts between.
  const BoxingLayouts& layouts() const { return layouts_; }
  const Shape& shape() const { return layouts_.shape(); }
  DType dtype() const { return layouts_.dtype(); }
  const Placement& src_placement() const { return layouts_.src_placement(); }
  const NdSbp& src() const { return layouts_.src(); }
  const Placement& dst_placement() const { return layouts_.dst_placement(); }
  const NdSbp& dst() const { return layouts_.dst(); }
  const Placement& placement(Side side) const { return layouts_.placement(side); }
  bool same_placement() const { return src_placement() == dst_placement(); }
  const std::vector<BoxingStep>& steps() const { return steps_; }
  double total_seconds() const { return total_seconds_; }

  // A header naming the conversion, one line per step, and a total:
  //   boxing f32[5,7,3]: cpu:[[0,1],[2,3]] (S(0), B) -> cpu:[[0,1],[2,3]] (S(0), S(1))
  //   1. axis 1: B -> S(1)  local slice over 2 ranks  cost 1.1e-06 s
  //   total: 1 step, cost 1.1e-06 s
  // Across placements, axis steps name their placement and a reshard names both:
  //   2. reshard cpu:[0,1] S(0) -> cpu:[2,3] S(0)  reshard all-to-all-v over 4 ranks,
  //      busiest rank moves 240 B  cost 1.5e-05 s            (one line)
  // A flattened axis step names its axes, a relabel both placements:
  //   1. axes 0,1: P -> B  all-reduce over 4 ranks  cost 1.2e-03 s
  //   1. relabel cpu:[0,1,2,3] P -> cpu:[[0,1],[2,3]] (P, P)  relabel, nothing moves
  //      cost 1.0e-06 s                                        (one line)
  std::string ToString() const;
  // Line `index` (0-based) of the step list, without the "N. " prefix.
  std::string StepToString(size_t index) const;

 private:
  BoxingLayouts layouts_;
  std::vector<BoxingStep> steps_;
  double total_seconds_ = 0;
};

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_BOXING_PLAN_H_
