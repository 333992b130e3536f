#include "core/boxing/planner.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "core/boxing/axis_move.h"
#include "core/boxing/reshard.h"
#include "core/sbp/physical_layout.h"

namespace tessera::boxing {
namespace {

bool HasPartial(const NdSbp& nd) {
  for (int i = 0; i < nd.num_axes(); ++i) {
    if (nd[i].is_partial()) return true;
  }
  return false;
}

void AddUnique(std::vector<Sbp>* list, Sbp sbp) {
  if (std::find(list->begin(), list->end(), sbp) == list->end()) list->push_back(sbp);
}

Status CheckSbpValues(const char* caller, const char* name, const NdSbp& nd) {
  for (int i = 0; i < nd.num_axes(); ++i) {
    const Sbp& sbp = nd[i];
    if (sbp.kind != SbpKind::kSplit && sbp.kind != SbpKind::kBroadcast && !sbp.is_partial()) {
      return InvalidArgument(std::string(caller) + ": " + name + " nd-sbp axis " +
                             std::to_string(i) + " has sbp kind value " +
                             std::to_string(static_cast<int>(sbp.kind)) +
                             ", which is not an SBP kind");
    }
    if (sbp.is_split() && sbp.axis < 0) {
      return InvalidArgument(std::string(caller) + ": " + name + " nd-sbp axis " +
                             std::to_string(i) + " splits tensor dim " + std::to_string(sbp.axis) +
                             ", which is negative");
    }
  }
  return Status::Ok();
}

// The states of one side: per hierarchy axis a candidate list, numbered mixed-radix.
struct SideSpace {
  Side side = Side::kSrc;
  const Placement* placement = nullptr;
  std::vector<std::vector<Sbp>> candidates;
  std::vector<int64_t> stride;
  int64_t base = 0;
  int64_t count = 0;

  int64_t IdOf(const NdSbp& nd) const {
    int64_t id = base;
    for (size_t k = 0; k < candidates.size(); ++k) {
      const auto& c = candidates[k];
      id += (std::find(c.begin(), c.end(), nd[static_cast<int>(k)]) - c.begin()) * stride[k];
    }
    return id;
  }
  NdSbp NdOf(int64_t id) const {
    NdSbp nd;
    int64_t local = id - base;
    for (size_t k = 0; k < candidates.size(); ++k) {
      nd.Append(candidates[k][(local / stride[k]) % static_cast<int64_t>(candidates[k].size())]);
    }
    return nd;
  }
};

// Candidates for one side at a given breadth (0 widest, 2 narrowest); false when the
// state count exceeds the limit.
bool BuildSide(const Shape& shape, const std::vector<const NdSbp*>& own,
               const std::vector<SbpKind>& partial_kinds, const std::vector<int>& split_dims,
               int breadth, SideSpace* space) {
  const int axes = space->placement->num_axes();
  space->candidates.assign(axes, {});
  int64_t count = 1;
  for (int k = 0; k < axes; ++k) {
    std::vector<Sbp>& c = space->candidates[k];
    for (const NdSbp* nd : own) AddUnique(&c, (*nd)[k]);
    AddUnique(&c, Sbp::Broadcast());
    if (breadth < 2) {
      for (SbpKind kind : partial_kinds) AddUnique(&c, Sbp{kind, 0});
      if (breadth == 0) {
        for (int d = 0; d < shape.ndim(); ++d) AddUnique(&c, Sbp::Split(d));
      } else {
        for (int d : split_dims) AddUnique(&c, Sbp::Split(d));
      }
    }
    count *= static_cast<int64_t>(c.size());
    if (count > kMaxStatesPerSide) return false;
  }
  space->stride.assign(axes, 1);
  for (int k = axes - 2; k >= 0; --k) {
    space->stride[k] = space->stride[k + 1] * static_cast<int64_t>(space->candidates[k + 1].size());
  }
  space->count = count;
  return true;
}

// Sets of two or more of `num_axes` axes: the flattened moves to try.
std::vector<AxisSet> MultiAxisSets(int num_axes) {
  std::vector<AxisSet> sets;
  for (AxisSet axes = 1; axes < AxisBit(num_axes); ++axes) {
    if (AxisCount(axes) >= 2) sets.push_back(axes);
  }
  return sets;
}

// Position of `sbp` in `list`, or -1.
int64_t Find(const std::vector<Sbp>& list, Sbp sbp) {
  auto it = std::find(list.begin(), list.end(), sbp);
  return it == list.end() ? -1 : it - list.begin();
}

// The state of `space` holding `sbp` on every axis, or -1 when it has none.
int64_t UniformState(const SideSpace& space, Sbp sbp) {
  int64_t id = space.base;
  for (size_t k = 0; k < space.candidates.size(); ++k) {
    const int64_t at = Find(space.candidates[k], sbp);
    if (at < 0) return -1;
    id += at * space.stride[k];
  }
  return id;
}

// True when every parallel index holds the same box of the tensor under both.
bool SameLayouts(const Shape& shape, const Placement& a, const NdSbp& a_nd, const Placement& b,
                 const NdSbp& b_nd) {
  for (int64_t i = 0; i < a.parallel_num(); ++i) {
    // The nd-sbps are candidates validated for their placements: no failure here.
    const PhysicalLayout x = PhysicalLayoutAt(shape, a, a_nd, i).value();
    const PhysicalLayout y = PhysicalLayoutAt(shape, b, b_nd, i).value();
    for (int d = 0; d < shape.ndim(); ++d) {
      if (!(x.ranges[d] == y.ranges[d])) return false;
    }
  }
  return true;
}

void CollectKinds(const NdSbp& nd, std::vector<SbpKind>* kinds, std::vector<int>* dims) {
  for (int i = 0; i < nd.num_axes(); ++i) {
    if (nd[i].is_partial() && std::find(kinds->begin(), kinds->end(), nd[i].kind) == kinds->end()) {
      kinds->push_back(nd[i].kind);
    }
    if (nd[i].is_split() && std::find(dims->begin(), dims->end(), nd[i].axis) == dims->end()) {
      dims->push_back(nd[i].axis);
    }
  }
}

}  // namespace

Status ValidateBoxingLayouts(const char* caller, const Shape& shape, DType dtype,
                             const Placement& src_placement, const NdSbp& src,
                             const Placement& dst_placement, const NdSbp& dst) {
  if (!IsValidDType(static_cast<int>(dtype)) || !IsSupported(dtype)) {
    std::string name = IsValidDType(static_cast<int>(dtype))
                           ? DTypeName(dtype)
                           : "value " + std::to_string(static_cast<int>(dtype));
    return InvalidArgument(std::string(caller) + ": dtype " + name +
                           " is not supported (supported: f32, f64, i32, i64)");
  }
  TESS_RETURN_IF_ERROR(CheckSbpValues(caller, "src", src));
  TESS_RETURN_IF_ERROR(CheckSbpValues(caller, "dst", dst));
  Status s = ValidateNdSbp(src, src_placement, shape);
  if (!s.ok()) return Status(s.code(), std::string(caller) + ": src " + s.message());
  s = ValidateNdSbp(dst, dst_placement, shape);
  if (!s.ok()) return Status(s.code(), std::string(caller) + ": dst " + s.message());
  const DeviceType from = src_placement.device_type(), to = dst_placement.device_type();
  if (from != to) {
    return Unimplemented(std::string(caller) + ": boxing between device types " +
                         DeviceTypeName(from) + " and " + DeviceTypeName(to) + " (src " +
                         src_placement.ToString() + ", dst " + dst_placement.ToString() +
                         ") is not implemented; to_global stages such moves through host memory");
  }
  return Status::Ok();
}

Status ValidateBoxing(const char* caller, const Shape& shape, DType dtype,
                      const Placement& src_placement, const NdSbp& src,
                      const Placement& dst_placement, const NdSbp& dst) {
  TESS_RETURN_IF_ERROR(
      ValidateBoxingLayouts(caller, shape, dtype, src_placement, src, dst_placement, dst));
  if (src_placement.device_type() != DeviceType::kCpu) {
    const char* device = DeviceTypeName(src_placement.device_type());
    return Unimplemented(std::string(caller) + ": the pieces of " + device + " placements (src " +
                         src_placement.ToString() + ", dst " + dst_placement.ToString() +
                         ") are device memory and this call moves host memory; " + device +
                         " tensors' to_global boxes them on the devices");
  }
  return Status::Ok();
}

Result<std::shared_ptr<const BoxingPlan>> FindBoxingPlan(const Shape& shape, DType dtype,
                                                         const Placement& src_placement,
                                                         const NdSbp& src,
                                                         const Placement& dst_placement,
                                                         const NdSbp& dst) {
  const bool same = src_placement == dst_placement;
  if (same && src == dst) {
    return std::make_shared<const BoxingPlan>(shape, dtype, src_placement, src, dst_placement, dst,
                                              std::vector<BoxingStep>{});
  }
  const size_t elem = DTypeSize(dtype);

  std::vector<SbpKind> src_kinds, dst_kinds;
  std::vector<int> split_dims;
  CollectKinds(src, &src_kinds, &split_dims);
  CollectKinds(dst, &dst_kinds, &split_dims);
  std::vector<SideSpace> sides(same ? 1 : 2);
  sides[0].side = Side::kSrc;
  sides[0].placement = &src_placement;
  std::vector<SbpKind> kinds0 = src_kinds;
  std::vector<const NdSbp*> own0 = {&src};
  if (same) {
    for (SbpKind k : dst_kinds) {
      if (std::find(kinds0.begin(), kinds0.end(), k) == kinds0.end()) kinds0.push_back(k);
    }
    own0.push_back(&dst);
  }
  for (int breadth = 0; breadth < 3; ++breadth) {
    if (BuildSide(shape, own0, kinds0, split_dims, breadth, &sides[0])) break;
  }
  if (!same) {
    sides[1].side = Side::kDst;
    sides[1].placement = &dst_placement;
    sides[1].base = sides[0].count;
    for (int breadth = 0; breadth < 3; ++breadth) {
      if (BuildSide(shape, {&dst}, dst_kinds, split_dims, breadth, &sides[1])) break;
    }
  }
  const SideSpace& target_side = sides.back();
  const int64_t start = sides[0].IdOf(src);
  const int64_t target = target_side.IdOf(dst);
  const int64_t num_states = target_side.base + target_side.count;

  // Relabel edges (flattening / unflattening a hierarchy): when both placements hold
  // the same ranks in the same order, a state with one sbp on every axis is the
  // same data as the destination's state with that sbp on every axis, provided every
  // rank holds the same box under both (partial kinds reduce over all ranks alike).
  std::vector<std::pair<int64_t, int64_t>> relabels;
  if (!same && src_placement.ranks() == dst_placement.ranks()) {
    for (const Sbp& sbp : sides[0].candidates[0]) {
      const int64_t u = UniformState(sides[0], sbp), v = UniformState(sides[1], sbp);
      if (u < 0 || v < 0) continue;
      const NdSbp from = sides[0].NdOf(u), to = sides[1].NdOf(v);
      if (!ValidateNdSbp(from, src_placement, shape).ok() ||
          !ValidateNdSbp(to, dst_placement, shape).ok()) {
        continue;
      }
      if (SameLayouts(shape, src_placement, from, dst_placement, to)) relabels.push_back({u, v});
    }
  }
  const std::vector<AxisSet> src_sets = MultiAxisSets(src_placement.num_axes());
  const std::vector<AxisSet> dst_sets = MultiAxisSets(dst_placement.num_axes());

  // Reshard targets: the destination side's states without partial axes.
  std::vector<int64_t> reshard_targets;
  for (int64_t id = target_side.base; id < num_states; ++id) {
    if (!HasPartial(target_side.NdOf(id))) reshard_targets.push_back(id);
  }

  const double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> dist(num_states, kInf);
  std::vector<int64_t> prev(num_states, -1);
  std::vector<BoxingStep> via(num_states);
  // Queue items are labels (a state reached at `key`) or deferred reshard edges
  // (from -> state, not yet costed, `key` a lower bound of where it leads). A reshard
  // costs at least one step and one alpha, so its exact load (the expensive part of
  // planning) is only computed when no cheaper label remains; most never are.
  struct Item {
    double key;
    int64_t state;
    int64_t from;  // -1 for a label
    bool operator>(const Item& o) const {
      if (key != o.key) return key > o.key;
      if (state != o.state) return state > o.state;
      return from > o.from;
    }
  };
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  dist[start] = 0;
  queue.push({0, start, -1});
  auto side_of = [&](int64_t id) -> const SideSpace& {
    return id >= sides[0].count ? sides[1] : sides[0];
  };
  // The busiest rank's local bytes in each state (index 0 holds the largest piece),
  // computed when first needed.
  std::vector<double> local_bytes(num_states, -1);
  auto bytes_of = [&](int64_t id) {
    if (local_bytes[id] < 0) {
      const SideSpace& space = side_of(id);
      const Shape local =
          PhysicalLayoutAt(shape, *space.placement, space.NdOf(id), 0).value().local_shape;
      local_bytes[id] = static_cast<double>(local.num_elements()) * static_cast<double>(elem);
    }
    return local_bytes[id];
  };
  auto relax = [&](int64_t u, int64_t v, BoxingStep step) {
    // A relabel writes nothing: the next step reads the same pieces.
    if (v != target && step.kind != BoxingStep::Kind::kRelabel) {
      step.seconds += IntermediateSeconds(bytes_of(v));
    }
    const double d = dist[u] + step.seconds;
    if (d < dist[v]) {
      dist[v] = d;
      prev[v] = u;
      via[v] = step;
      queue.push({d, v, -1});
    }
  };
  const double reshard_floor = ReshardSeconds(0, 0, 0);

  while (!queue.empty()) {
    const Item item = queue.top();
    queue.pop();
    if (item.from >= 0) {
      // A deferred reshard: cost it now.
      const int64_t u = item.from, v = item.state;
      if (dist[u] + reshard_floor >= dist[v]) continue;
      const SideSpace& space = side_of(u);
      const NdSbp from = space.NdOf(u), to = target_side.NdOf(v);
      const ReshardLoad load =
          LoadOfReshard(shape, elem, *space.placement, from, *target_side.placement, to);
      BoxingStep step;
      step.kind = BoxingStep::Kind::kReshard;
      step.collective = Collective::kReshard;
      step.from_side = space.side;
      step.to_side = target_side.side;
      step.from = from;
      step.to = to;
      step.ranks = load.ranks;
      step.wire_bytes = load.max_wire_bytes;
      step.seconds = ReshardSeconds(load.max_peers, static_cast<double>(load.max_wire_bytes),
                                    static_cast<double>(load.max_local_bytes));
      relax(u, v, step);
      continue;
    }
    const int64_t u = item.state;
    if (item.key > dist[u]) continue;
    if (u == target) break;
    const SideSpace& space = side_of(u);
    const Placement& placement = *space.placement;
    const NdSbp nd = space.NdOf(u);
    for (int k = 0; k < nd.num_axes(); ++k) {
      const int64_t n = placement.hierarchy()[k];
      const std::vector<Sbp>& c = space.candidates[k];
      const int64_t at = std::find(c.begin(), c.end(), nd[k]) - c.begin();
      // Index 0's group has the largest parts (balanced splits put extras first).
      const Shape group = AxisGroupShape(shape, placement, nd, k, 0);
      for (int64_t j = 0; j < static_cast<int64_t>(c.size()); ++j) {
        if (j == at || !IsAxisMoveValid(nd, k, c[j])) continue;
        const AxisMoveCost cost = CostOfAxisMove(group, elem, n, nd[k], c[j]);
        BoxingStep step;
        step.kind = BoxingStep::Kind::kAxis;
        step.collective = cost.collective;
        step.from_side = step.to_side = space.side;
        step.axis = k;
        step.axes = AxisBit(k);
        step.from = nd;
        step.to = nd;
        step.to[k] = c[j];
        step.ranks = n;
        step.wire_bytes = cost.wire_bytes;
        step.seconds = cost.seconds;
        relax(u, u + (j - at) * space.stride[k], step);
      }
    }
    // Flattened moves: every axis of a set holding one sbp changes at once.
    for (AxisSet axes : space.side == Side::kSrc ? src_sets : dst_sets) {
      const int first = FirstAxis(axes);
      const Sbp from = nd[first];
      bool uniform = true;
      for (int k = first + 1; k < nd.num_axes() && uniform; ++k) {
        uniform = (axes & AxisBit(k)) == 0 || nd[k] == from;
      }
      if (!uniform) continue;
      for (const Sbp& to : space.candidates[first]) {
        if (to == from) continue;
        int64_t v = u;
        for (int k = 0; k < nd.num_axes() && v >= 0; ++k) {
          if ((axes & AxisBit(k)) == 0) continue;
          const int64_t at = Find(space.candidates[k], to);
          v = at < 0 ? -1 : v + (at - Find(space.candidates[k], from)) * space.stride[k];
        }
        if (v < 0 || !IsGroupMoveValid(shape, placement, nd, axes, to)) continue;
        const int64_t n = GroupSize(placement, axes);
        const Shape group = GroupShape(shape, placement, nd, axes, 0);
        const AxisMoveCost cost = CostOfAxisMove(group, elem, n, from, to);
        BoxingStep step;
        step.kind = BoxingStep::Kind::kAxis;
        step.collective = cost.collective;
        step.from_side = step.to_side = space.side;
        step.axis = first;
        step.axes = axes;
        step.from = nd;
        step.to = nd;
        for (int k = 0; k < nd.num_axes(); ++k) {
          if ((axes & AxisBit(k)) != 0) step.to[k] = to;
        }
        step.ranks = n;
        step.wire_bytes = cost.wire_bytes;
        step.seconds = cost.seconds;
        relax(u, v, step);
      }
    }
    for (const auto& [from_id, to_id] : relabels) {
      if (from_id != u) continue;
      BoxingStep step;
      step.kind = BoxingStep::Kind::kRelabel;
      step.collective = Collective::kRelabel;
      step.from_side = Side::kSrc;
      step.to_side = Side::kDst;
      step.from = nd;
      step.to = target_side.NdOf(to_id);
      step.ranks = src_placement.parallel_num();
      // Nothing moves, unless it is the last step: then the pieces are copied out.
      const double local = to_id == target ? bytes_of(to_id) : 0;
      step.seconds = CollectiveSeconds(Collective::kRelabel, step.ranks, 0, local);
      relax(u, to_id, step);
    }
    if (HasPartial(nd)) continue;
    for (int64_t v : reshard_targets) {
      if (v != u && dist[u] + reshard_floor < dist[v]) {
        queue.push({dist[u] + reshard_floor, v, u});
      }
    }
  }
  if (prev[target] < 0) {
    return Internal("PlanBoxing: found no boxing path from " + src_placement.ToString() + " " +
                    src.ToString() + " to " + dst_placement.ToString() + " " + dst.ToString() +
                    " (every nd-sbp should reach every other; this is a planner bug)");
  }
  std::vector<BoxingStep> steps;
  for (int64_t v = target; v != start; v = prev[v]) steps.push_back(via[v]);
  std::reverse(steps.begin(), steps.end());
  return std::make_shared<const BoxingPlan>(shape, dtype, src_placement, src, dst_placement, dst,
                                            std::move(steps));
}

}  // namespace tessera::boxing
