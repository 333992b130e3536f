// One step of N-d boxing on one placement: hierarchy axis k's sbp changes from
// from[k] to `to`, the other axes stay, and the step runs as Box1d along axis k (on
// every group of ranks that differ only in their axis-k coordinate, all at once).
//
// The 1-d view. Splits are nested (axis 0 first), so the group along axis k holds
// one box of the logical tensor: on every tensor dim, the range that the axes other
// than k leave (the "group tensor", AxisGroupShape). Box1d over that box with h_k
// ranks reproduces the N-d layouts exactly when axis k's split is the LAST split of
// its tensor dim. Hence the split rule:
//
//   if from[k] = S(d) or to = S(d), no axis j > k may split tensor dim d.
//
// Axes j < k splitting d are fine (they narrow d before axis k splits it), and so
// are axes j > k splitting other dims (every member of the group has the same
// coordinate on them). A later axis splitting d would cut each member's part again,
// so the members' parts would not be Box1d's parts of any one box.
//
// Partial values. With several partial axes the logical value is nested too:
// reduce the locals over the last axis first, then the one before, and so on
// (axis 0 outermost). Equal kinds commute; sum, max and min do not mix. So:
//
//   reducing (from[k] = P(x), to != from[k]) needs every partial axis j > k to be
//     P(x): reducing axis k first is then the same as reducing it in its place;
//   creating (to = P(y), from[k] != to): from B or P(x), P(max)/P(min) keep a copy
//     of the value on every member and P keeps it on one member and 0 elsewhere, so
//     later partial axes reduce real values. From S(i), y's identity fills what the
//     member does not hold; every later partial axis j > k then reduces copies of
//     that identity, which must give the identity back: true for max / min over
//     anything, and for sum over sum's identity 0, but not for sum over max's or
//     min's identity (-inf or the integer lowest(), which a sum overflows). So a later
//     P (sum) axis forbids S(i) -> P(max) or P(min) on axis k.
//
// Earlier partial axes (j < k) of any kind are fine: each of their members holds a
// whole partial value, which the step boxes like any tensor. Every nd-sbp is still
// reachable from every other: reduce partial axes from the last one back, and create
// them from the first one forward.
//
// Flattened moves. Several axes K that hold the same sbp X can change to the same Y
// at once, as one Box1d over their flattened group: the ranks that differ only along
// K, ordered row-major by their K coordinates (so (P, P) -> (B, B) on a 2 x 2 grid is
// one all-reduce over 4 ranks, not one per axis). The rules above apply with "later"
// meaning every axis j outside K after K's first axis k0. On top of them, an X or Y
// of S(d) must split the group tensor's dim d over the group exactly as the nested
// splits along K do: always true when the extent divides evenly, not in general
// (6 rows over 2 x 2 nest as 2,1,2,1, flat as 2,2,1,1), so it is checked for every
// group of the placement.
#ifndef TESSERA_CORE_BOXING_AXIS_MOVE_H_
#define TESSERA_CORE_BOXING_AXIS_MOVE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/boxing/boxing_cost.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera::boxing {

// A set of hierarchy axes: bit k stands for axis k.
using AxisSet = uint32_t;
inline constexpr AxisSet AxisBit(int axis) { return AxisSet{1} << axis; }
// The lowest axis in a non-empty set.
int FirstAxis(AxisSet axes);
int AxisCount(AxisSet axes);

// OK when changing axis `axis` of `from` to `to` is one Box1d along that axis (the
// rules above); otherwise INVALID_ARGUMENT saying which rule it breaks. `from` must
// differ from `to` on that axis. Preconditions: 0 <= axis < from.num_axes().
Status CheckAxisMove(const NdSbp& from, int axis, Sbp to);
// The same verdict without building a message (the planner asks it for every edge).
bool IsAxisMoveValid(const NdSbp& from, int axis, Sbp to);

// The same for a flattened move of every axis in `axes` (one or more) to `to`:
// `from` must hold one sbp on all of them, different from `to`, and splits must
// flatten exactly for `shape` on `placement` (see above). Preconditions: `axes` names
// axes of `from`, which is validated for `shape` and `placement`.
Status CheckGroupMove(const Shape& shape, const Placement& placement, const NdSbp& from,
                      AxisSet axes, Sbp to);
bool IsGroupMoveValid(const Shape& shape, const Placement& placement, const NdSbp& from,
                      AxisSet axes, Sbp to);

// The shape of the group tensor Box1d sees along `axis` for the group holding
// parallel index `index`: every dim narrowed by the splits of the axes other than
// `axis`. Preconditions: nd_sbp validated for shape and placement.
Shape AxisGroupShape(const Shape& shape, const Placement& placement, const NdSbp& nd_sbp, int axis,
                     int64_t index);
// The same for the flattened group of `axes`: narrowed by the splits of the axes
// outside the set.
Shape GroupShape(const Shape& shape, const Placement& placement, const NdSbp& nd_sbp, AxisSet axes,
                 int64_t index);
// The world ranks of the flattened group of `axes` that holds parallel index
// `index`, in group order (row-major over the coordinates along `axes`), and their
// number.
std::vector<int32_t> GroupRanks(const Placement& placement, AxisSet axes, int64_t index);
int64_t GroupSize(const Placement& placement, AxisSet axes);

// What Box1d runs for `from` -> `to` on `n` ranks, and the modelled time for a group
// tensor of `group_shape` with `elem_size`-byte elements; `wire_bytes` is what the
// busiest rank sends or receives.
struct AxisMoveCost {
  Collective collective = Collective::kLocalCopy;
  double seconds = 0;
  int64_t wire_bytes = 0;
};
AxisMoveCost CostOfAxisMove(const Shape& group_shape, size_t elem_size, int64_t n, Sbp from,
                            Sbp to);

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_AXIS_MOVE_H_
