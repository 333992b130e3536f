#include "core/boxing/axis_move.h"

#include <limits>
#include <string>

#include "core/sbp/balanced_split.h"

namespace tessera::boxing {
namespace {

std::string AxesText(AxisSet axes) {
  std::string text;
  for (int k = 0; k < Placement::kMaxAxes; ++k) {
    if ((axes & AxisBit(k)) == 0) continue;
    text += (text.empty() ? "" : ",") + std::to_string(k);
  }
  return text;
}

std::string Where(const NdSbp& from, AxisSet axes, Sbp to) {
  const int k = FirstAxis(axes);
  if (AxisCount(axes) == 1) {
    return "changing axis " + std::to_string(k) + " of " + from.ToString() + " from " +
           from[k].ToString() + " to " + to.ToString();
  }
  return "changing axes " + AxesText(axes) + " of " + from.ToString() + " from " +
         from[k].ToString() + " to " + to.ToString() + " at once";
}

// Product of dims [begin, end).
int64_t Prod(const Shape& shape, int begin, int end) {
  int64_t p = 1;
  for (int i = begin; i < end; ++i) p *= shape.dim(i);
  return p;
}

// Which rule a move breaks, if any; `*axis` is the axis that makes it break.
enum class Broken { kNone, kMixed, kSplit, kReduceOrder, kIdentity, kUneven };

// The rules that need no shape: one sbp across `axes`, and the later axes'.
Broken FindBrokenRule(const NdSbp& from, AxisSet axes, Sbp to, int* axis) {
  const int first = FirstAxis(axes);
  const Sbp old = from[first];
  for (int j = first + 1; j < from.num_axes(); ++j) {
    *axis = j;
    if ((axes & AxisBit(j)) != 0) {
      if (from[j] != old) return Broken::kMixed;
      continue;
    }
    const Sbp later = from[j];
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

// Coordinates -> parallel index, row-major over the hierarchy.
int64_t IndexOf(const Placement& placement, const int64_t* coords) {
  int64_t index = 0;
  for (int a = 0; a < placement.num_axes(); ++a) {
    index = index * placement.hierarchy()[a] + coords[a];
  }
  return index;
}

// True when, in every group of `axes`, splitting the group tensor's dim `d` along
// the axes one after another (the lowest first) gives every member the range a
// balanced split over the flattened group gives it.
bool NestedSplitIsFlat(const Shape& shape, const Placement& placement, const NdSbp& nd,
                       AxisSet axes, int d) {
  const int64_t n = GroupSize(placement, axes);
  for (int64_t index = 0; index < placement.parallel_num(); ++index) {
    const int64_t extent = GroupShape(shape, placement, nd, axes, index).dim(d);
    Range nested{0, extent};
    int64_t flat_index = 0;
    for (int k = 0; k < placement.num_axes(); ++k) {
      if ((axes & AxisBit(k)) == 0) continue;
      const int64_t h = placement.hierarchy()[k], coord = placement.Coordinate(index, k);
      const Range part = BalancedRange(nested.size(), h, coord);
      nested = {nested.begin + part.begin, nested.begin + part.end};
      flat_index = flat_index * h + coord;
    }
    if (!(nested == BalancedRange(extent, n, flat_index))) return false;
  }
  return true;
}

Broken FindBrokenGroupRule(const Shape& shape, const Placement& placement, const NdSbp& from,
                           AxisSet axes, Sbp to, int* axis) {
  const Broken broken = FindBrokenRule(from, axes, to, axis);
  if (broken != Broken::kNone || AxisCount(axes) == 1) return broken;
  *axis = FirstAxis(axes);
  const Sbp old = from[*axis];
  if (old.is_split() && !NestedSplitIsFlat(shape, placement, from, axes, old.axis)) {
    return Broken::kUneven;
  }
  if (to.is_split() && !NestedSplitIsFlat(shape, placement, from, axes, to.axis)) {
    return Broken::kUneven;
  }
  return Broken::kNone;
}

Status Explain(Broken broken, const NdSbp& from, AxisSet axes, Sbp to, int j) {
  const Sbp later = broken == Broken::kNone ? Sbp() : from[j];
  switch (broken) {
    case Broken::kNone: return Status::Ok();
    case Broken::kMixed:
      return InvalidArgument(Where(from, axes, to) + " is not one flattened boxing: axis " +
                             std::to_string(j) + " holds " + later.ToString() + ", not " +
                             from[FirstAxis(axes)].ToString());
    case Broken::kSplit:
      return InvalidArgument(Where(from, axes, to) + " is not one 1-d boxing: the later axis " +
                             std::to_string(j) + " also splits tensor dim " +
                             std::to_string(later.axis));
    case Broken::kReduceOrder:
      return InvalidArgument(Where(from, axes, to) + " would reduce " +
                             from[FirstAxis(axes)].ToString() + " before the later axis " +
                             std::to_string(j) + "'s " + later.ToString() +
                             ", which the nested value reduces first");
    case Broken::kIdentity:
      return InvalidArgument(Where(from, axes, to) + " would make the later axis " +
                             std::to_string(j) + "'s P sum copies of " + to.ToString() +
                             "'s identity, which is not that identity");
    case Broken::kUneven:
      return InvalidArgument(Where(from, axes, to) +
                             " is not one flattened boxing: the nested splits along the axes do "
                             "not cut the tensor as one balanced split over their group does");
  }
  return Status::Ok();
}

}  // namespace

int FirstAxis(AxisSet axes) {
  int k = 0;
  while ((axes & AxisBit(k)) == 0) ++k;
  return k;
}

int AxisCount(AxisSet axes) {
  int count = 0;
  for (; axes != 0; axes &= axes - 1) ++count;
  return count;
}

bool IsAxisMoveValid(const NdSbp& from, int axis, Sbp to) {
  int later = 0;
  return FindBrokenRule(from, AxisBit(axis), to, &later) == Broken::kNone;
}

Status CheckAxisMove(const NdSbp& from, int axis, Sbp to) {
  int j = 0;
  const Broken broken = FindBrokenRule(from, AxisBit(axis), to, &j);
  return Explain(broken, from, AxisBit(axis), to, j);
}

bool IsGroupMoveValid(const Shape& shape, const Placement& placement, const NdSbp& from,
                      AxisSet axes, Sbp to) {
  int j = 0;
  return FindBrokenGroupRule(shape, placement, from, axes, to, &j) == Broken::kNone;
}

Status CheckGroupMove(const Shape& shape, const Placement& placement, const NdSbp& from,
                      AxisSet axes, Sbp to) {
  int j = 0;
  const Broken broken = FindBrokenGroupRule(shape, placement, from, axes, to, &j);
  return Explain(broken, from, axes, to, j);
}

Shape AxisGroupShape(const Shape& shape, const Placement& placement, const NdSbp& nd_sbp, int axis,
                     int64_t index) {
  return GroupShape(shape, placement, nd_sbp, AxisBit(axis), index);
}

Shape GroupShape(const Shape& shape, const Placement& placement, const NdSbp& nd_sbp, AxisSet axes,
                 int64_t index) {
  Shape group = shape;
  for (int j = 0; j < nd_sbp.num_axes(); ++j) {
    if ((axes & AxisBit(j)) != 0 || !nd_sbp[j].is_split()) continue;
    const int d = nd_sbp[j].axis;
    group.set_dim(
        d, BalancedRange(group.dim(d), placement.hierarchy()[j], placement.Coordinate(index, j))
               .size());
  }
  return group;
}

int64_t GroupSize(const Placement& placement, AxisSet axes) {
  int64_t n = 1;
  for (int k = 0; k < placement.num_axes(); ++k) {
    if ((axes & AxisBit(k)) != 0) n *= placement.hierarchy()[k];
  }
  return n;
}

std::vector<int32_t> GroupRanks(const Placement& placement, AxisSet axes, int64_t index) {
  const int num_axes = placement.num_axes();
  int64_t coords[Placement::kMaxAxes] = {};
  for (int a = 0; a < num_axes; ++a) {
    coords[a] = (axes & AxisBit(a)) != 0 ? 0 : placement.Coordinate(index, a);
  }
  std::vector<int32_t> ranks;
  ranks.reserve(GroupSize(placement, axes));
  for (;;) {
    ranks.push_back(placement.rank_at(IndexOf(placement, coords)));
    // Odometer over the axes in the set, the last one fastest.
    int a = num_axes - 1;
    for (; a >= 0; --a) {
      if ((axes & AxisBit(a)) == 0) continue;
      if (++coords[a] < placement.hierarchy()[a]) break;
      coords[a] = 0;
    }
    if (a < 0) return ranks;
  }
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
      // Parts land in strided slabs of the output, received in place, when something
      // before the split dim varies; the own part is then copied locally.
      if (Prod(group_shape, 0, from.axis) != 1) local = t / nn;
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
    // Strided blocks are read and written in place; only the own block is copied.
    cost.collective = Collective::kAllToAll;
    wire = shed / nn;
    local = t / (nn * nn);
  }
  cost.seconds = CollectiveSeconds(cost.collective, n, t, local);
  // An all-reduce moves twice what it sheds, which for a tensor near 2^63 bytes is past
  // int64: saturate ("at least"), as the reshard's load does (converting a double past
  // the range is undefined; found by fuzz/boxing_plan_fuzzer.cc).
  constexpr double kPastInt64 = 9223372036854775808.0;  // 2^63
  cost.wire_bytes =
      wire >= kPastInt64 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(wire);
  return cost;
}

}  // namespace tessera::boxing
