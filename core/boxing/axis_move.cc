#include "core/boxing/axis_move.h"

#include <string>

#include "core/sbp/balanced_split.h"

namespace tessera::boxing {
namespace {

std::string Where(const NdSbp& from, int axis, Sbp to) {
  return "changing axis " + std::to_string(axis) + " of " + from.ToString() + " from " +
         from[axis].ToString() + " to " + to.ToString();
}

// Product of dims [begin, end).
int64_t Prod(const Shape& shape, int begin, int end) {
  int64_t p = 1;
  for (int i = begin; i < end; ++i) p *= shape.dim(i);
  return p;
}

// Which rule a move breaks, if any; `later` is the axis that makes it break.
enum class Broken { kNone, kSplit, kReduceOrder, kIdentity };

Broken FindBrokenRule(const NdSbp& from, int axis, Sbp to, int* later_axis) {
  const Sbp old = from[axis];
  for (int j = axis + 1; j < from.num_axes(); ++j) {
    const Sbp later = from[j];
    *later_axis = j;
    if (later.is_split() &&
        ((old.is_split() && old.axis == later.axis) || (to.is_split() && to.axis == later.axis))) {
      return Broken::kSplit;
    }
    if (!later.is_partial()) continue;
    if (old.is_partial() && later.kind != old.kind) return Broken::kReduceOrder;
    // Only S -> P(max/min) writes an identity (B and P sources keep copies).
    if (old.is_split() && to.is_partial() && to.kind != SbpKind::kPartialSum &&
        later.kind == SbpKind::kPartialSum) {
      return Broken::kIdentity;
    }
  }
  return Broken::kNone;
}

}  // namespace

bool IsAxisMoveValid(const NdSbp& from, int axis, Sbp to) {
  int later = 0;
  return FindBrokenRule(from, axis, to, &later) == Broken::kNone;
}

Status CheckAxisMove(const NdSbp& from, int axis, Sbp to) {
  int j = 0;
  const Broken broken = FindBrokenRule(from, axis, to, &j);
  const Sbp later = broken == Broken::kNone ? Sbp() : from[j];
  switch (broken) {
    case Broken::kNone: return Status::Ok();
    case Broken::kSplit:
      return InvalidArgument(Where(from, axis, to) + " is not one 1-d boxing: the later axis " +
                             std::to_string(j) + " also splits tensor dim " +
                             std::to_string(later.axis));
    case Broken::kReduceOrder:
      return InvalidArgument(Where(from, axis, to) + " would reduce " + from[axis].ToString() +
                             " before the later axis " + std::to_string(j) + "'s " +
                             later.ToString() + ", which the nested value reduces first");
    case Broken::kIdentity:
      return InvalidArgument(Where(from, axis, to) + " would make the later axis " +
                             std::to_string(j) + "'s P sum copies of " + to.ToString() +
                             "'s identity, which is not that identity");
  }
  return Status::Ok();
}

Shape AxisGroupShape(const Shape& shape, const Placement& placement, const NdSbp& nd_sbp, int axis,
                     int64_t index) {
  Shape group = shape;
  for (int j = 0; j < nd_sbp.num_axes(); ++j) {
    if (j == axis || !nd_sbp[j].is_split()) continue;
    const int d = nd_sbp[j].axis;
    group.set_dim(
        d, BalancedRange(group.dim(d), placement.hierarchy()[j], placement.Coordinate(index, j))
               .size());
  }
  return group;
}

AxisMoveCost CostOfAxisMove(const Shape& group_shape, size_t elem_size, int64_t n, Sbp from,
                            Sbp to) {
  const double t = static_cast<double>(group_shape.num_elements()) * static_cast<double>(elem_size);
  const double nn = static_cast<double>(n);
  const double shed = t * (nn - 1) / nn;  // what a rank receives or sends of T
  AxisMoveCost cost;
  double local = 0;
  double wire = 0;
  // The busiest rank is index 0: balanced splits give the first parts the extra rows.
  if (n <= 1) {
    cost.collective = Collective::kLocalCopy;
    local = t;
  } else if (to.is_partial()) {
    if (from.is_partial() && to.kind != SbpKind::kPartialSum) {
      // Into P(max) / P(min) every rank keeps the reduced value (box_1d.h).
      cost.collective = Collective::kAllReduce;
      wire = 2 * shed;
    } else if (from.is_partial()) {
      cost.collective = Collective::kReduce;
      wire = t;
      local = t;
    } else {
      cost.collective = Collective::kLocalFill;
      local = from.is_split() ? t + t / nn : t;
    }
  } else if (to.is_broadcast()) {
    if (from.is_split()) {
      cost.collective = Collective::kAllGather;
      wire = shed;
      // Parts are contiguous in the output only when nothing before the split dim varies.
      if (Prod(group_shape, 0, from.axis) != 1) local = t;
    } else {
      cost.collective = Collective::kAllReduce;
      wire = 2 * shed;
    }
  } else if (from.is_broadcast()) {
    cost.collective = Collective::kLocalSlice;
    local = t / nn;
  } else if (from.is_partial()) {
    cost.collective = Collective::kReduceScatter;
    wire = shed;
    if (Prod(group_shape, 0, to.axis) != 1) local = t;
  } else {
    cost.collective = Collective::kAllToAll;
    wire = shed / nn;
    local = t / (nn * nn);  // the own block
    Shape in_part = group_shape, out_part = group_shape;
    in_part.set_dim(from.axis, BalancedRange(group_shape.dim(from.axis), n, 0).size());
    out_part.set_dim(to.axis, BalancedRange(group_shape.dim(to.axis), n, 0).size());
    if (Prod(in_part, 0, to.axis) != 1) local += wire;     // packing the sends
    if (Prod(out_part, 0, from.axis) != 1) local += wire;  // unpacking the receives
  }
  cost.seconds = CollectiveSeconds(cost.collective, n, t, local);
  cost.wire_bytes = static_cast<int64_t>(wire);
  return cost;
}

}  // namespace tessera::boxing
