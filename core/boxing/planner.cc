#include "core/boxing/planner.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "core/boxing/axis_move.h"
#include "core/boxing/host_links.h"
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

// The graph one search runs over: every state of both sides, and the edges that do not
// depend on where the search stands (relabels, flattened axis sets, reshard targets).
struct StateGraph {
  std::vector<SideSpace> sides;  // one when source and destination share a placement
  int64_t start = 0;
  int64_t target = 0;
  int64_t num_states = 0;
  std::vector<std::pair<int64_t, int64_t>> relabels;
  std::vector<AxisSet> src_sets;
  std::vector<AxisSet> dst_sets;
  std::vector<int64_t> reshard_targets;

  const SideSpace& side_of(int64_t id) const { return id >= sides[0].count ? sides[1] : sides[0]; }
  const SideSpace& target_side() const { return sides.back(); }
};

// Candidate generation. The search is exhaustive over the states built here, so they
// decide both which plans can be found and how long finding one takes: each side is
// built as wide as kMaxStatesPerSide allows (breadth 0, then 1, then 2). On one
// placement the single side also holds the destination's sbps and partial kinds, so
// the destination is one of its states.
std::vector<SideSpace> BuildSides(const BoxingLayouts& layouts) {
  const Shape& shape = layouts.shape();
  const NdSbp& src = layouts.src();
  const NdSbp& dst = layouts.dst();
  const bool same = layouts.src_placement() == layouts.dst_placement();
  std::vector<SbpKind> src_kinds, dst_kinds;
  std::vector<int> split_dims;
  CollectKinds(src, &src_kinds, &split_dims);
  CollectKinds(dst, &dst_kinds, &split_dims);
  std::vector<SideSpace> sides(same ? 1 : 2);
  sides[0].side = Side::kSrc;
  sides[0].placement = &layouts.src_placement();
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
    sides[1].placement = &layouts.dst_placement();
    sides[1].base = sides[0].count;
    for (int breadth = 0; breadth < 3; ++breadth) {
      if (BuildSide(shape, {&dst}, dst_kinds, split_dims, breadth, &sides[1])) break;
    }
  }
  return sides;
}

// Relabel edges (flattening / unflattening a hierarchy), found once because they depend
// only on the two sides: when both placements hold the same ranks in the same order, a
// state with one sbp on every axis is the same data as the destination's state with
// that sbp on every axis, provided every rank holds the same box under both (partial
// kinds reduce over all ranks alike).
std::vector<std::pair<int64_t, int64_t>> FindRelabels(const Shape& shape,
                                                      const std::vector<SideSpace>& sides) {
  std::vector<std::pair<int64_t, int64_t>> relabels;
  if (sides.size() < 2 || sides[0].placement->ranks() != sides[1].placement->ranks()) {
    return relabels;
  }
  const Placement& src_placement = *sides[0].placement;
  const Placement& dst_placement = *sides[1].placement;
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
  return relabels;
}

// The whole graph: candidates, then the state-independent edges. Reshard targets are
// the destination side's states without partial axes (a reshard moves whole values).
StateGraph BuildStateGraph(const BoxingLayouts& layouts) {
  StateGraph graph;
  graph.sides = BuildSides(layouts);
  const SideSpace& target_side = graph.target_side();
  graph.start = graph.sides[0].IdOf(layouts.src());
  graph.target = target_side.IdOf(layouts.dst());
  graph.num_states = target_side.base + target_side.count;
  graph.relabels = FindRelabels(layouts.shape(), graph.sides);
  graph.src_sets = MultiAxisSets(layouts.src_placement().num_axes());
  graph.dst_sets = MultiAxisSets(layouts.dst_placement().num_axes());
  for (int64_t id = target_side.base; id < graph.num_states; ++id) {
    if (!HasPartial(target_side.NdOf(id))) graph.reshard_targets.push_back(id);
  }
  return graph;
}

// An axis step of `side` changing the axes `axes` of `from` (to `to`), as costed.
BoxingStep AxisStep(Side side, const NdSbp& from, const NdSbp& to, AxisSet axes, int64_t ranks,
                    const AxisMoveCost& cost) {
  BoxingStep step;
  step.kind = BoxingStep::Kind::kAxis;
  step.collective = cost.collective;
  step.from_side = step.to_side = side;
  step.axis = FirstAxis(axes);
  step.axes = axes;
  step.from = from;
  step.to = to;
  step.ranks = ranks;
  step.wire_bytes = cost.wire_bytes;
  step.seconds = cost.seconds;
  return step;
}

// Edge costs and the shortest path: Dijkstra over a StateGraph, each edge costed when
// its source state is settled. Edges are tried in one fixed order (axis moves,
// flattened moves, relabels, reshards) and only a strictly cheaper path replaces a
// label, so equal-cost ties resolve the same way on every rank.
class PathSearch {
 public:
  PathSearch(const StateGraph& graph, const Shape& shape, DType dtype)
      : graph_(graph),
        shape_(shape),
        elem_(DTypeSize(dtype)),
        dist_(graph.num_states, std::numeric_limits<double>::infinity()),
        prev_(graph.num_states, -1),
        via_(graph.num_states),
        local_bytes_(graph.num_states, -1),
        reshard_floor_(ReshardSeconds(0, 0, 0)),
        links_(CurrentHostLinks()) {}

  // Settles states until the target is settled or nothing is left to settle.
  void Run() {
    dist_[graph_.start] = 0;
    queue_.push({0, graph_.start, -1});
    while (!queue_.empty()) {
      const Item item = queue_.top();
      queue_.pop();
      if (item.from >= 0) {
        CostDeferredReshard(item.from, item.state);
        continue;
      }
      const int64_t u = item.state;
      if (item.key > dist_[u]) continue;
      if (u == graph_.target) break;
      const SideSpace& space = graph_.side_of(u);
      const NdSbp nd = space.NdOf(u);
      RelaxAxisMoves(u, space, nd);
      RelaxFlattenedMoves(u, space, nd);
      RelaxRelabels(u, nd);
      if (!HasPartial(nd)) DeferReshards(u);
    }
  }

  // Plan assembly's input: the steps from the start to the target, in order; false
  // when the search never reached the target.
  bool PathToTarget(std::vector<BoxingStep>* steps) const {
    if (prev_[graph_.target] < 0) return false;
    for (int64_t v = graph_.target; v != graph_.start; v = prev_[v]) steps->push_back(via_[v]);
    std::reverse(steps->begin(), steps->end());
    return true;
  }

 private:
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

  // `step` (a move along `axes` of `space`'s placement) plus the time its bytes take
  // through the busiest host link, when hosts are set (boxing_cost.h, "Across hosts").
  BoxingStep AcrossHosts(const SideSpace& space, AxisSet axes, BoxingStep step) {
    if (links_ == nullptr || step.wire_bytes == 0) return step;
    const double share = BusiestHostShare(*space.placement, axes);
    step.seconds += share * static_cast<double>(step.wire_bytes) / links_->bytes_per_second;
    return step;
  }

  // Of the groups along `axes` of `placement`: the most ranks' worth of wire bytes any
  // one host sends to other hosts, in units of one rank's wire bytes; 0 when no group
  // spans hosts or a rank is outside the hosts known. Depends only on the placement
  // and the axes, so it is found once per pair.
  double BusiestHostShare(const Placement& placement, AxisSet axes) {
    const auto key = std::make_pair(placement.ToString(), axes);
    auto found = host_share_.find(key);
    if (found != host_share_.end()) return found->second;
    double busiest = 0;
    const std::vector<int32_t>& host_of = links_->host_of;
    const std::vector<int64_t>& hierarchy = placement.hierarchy();
    const int64_t n = GroupSize(placement, axes);
    bool known = n > 1;
    for (int32_t rank : placement.ranks()) {
      known = known && rank >= 0 && rank < static_cast<int32_t>(host_of.size());
    }
    if (known) {
      // A group's identity: the coordinates off `axes`; members on one host counted.
      std::map<std::pair<int64_t, int32_t>, int64_t> on_host;
      std::vector<int64_t> group_of(placement.parallel_num());
      for (int64_t i = 0; i < placement.parallel_num(); ++i) {
        int64_t group = 0;
        for (int k = 0; k < placement.num_axes(); ++k) {
          if ((axes & AxisBit(k)) == 0) group = group * hierarchy[k] + placement.Coordinate(i, k);
        }
        group_of[i] = group;
        ++on_host[{group, host_of[placement.rank_at(i)]}];
      }
      std::map<int32_t, double> host_share;
      for (int64_t i = 0; i < placement.parallel_num(); ++i) {
        const int32_t host = host_of[placement.rank_at(i)];
        const int64_t m = on_host[{group_of[i], host}];
        host_share[host] += static_cast<double>(n - m) / static_cast<double>(n - 1);
      }
      for (const auto& [host, share] : host_share) busiest = std::max(busiest, share);
    }
    host_share_.emplace(key, busiest);
    return busiest;
  }

  // The busiest rank's local bytes in state `id` (index 0 holds the largest piece),
  // computed when first needed: most states are never reached.
  double BytesOf(int64_t id) {
    if (local_bytes_[id] < 0) {
      const SideSpace& space = graph_.side_of(id);
      const Shape local =
          PhysicalLayoutAt(shape_, *space.placement, space.NdOf(id), 0).value().local_shape;
      local_bytes_[id] = static_cast<double>(local.num_elements()) * static_cast<double>(elem_);
    }
    return local_bytes_[id];
  }

  void Relax(int64_t u, int64_t v, BoxingStep step) {
    // A relabel writes nothing: the next step reads the same pieces.
    if (v != graph_.target && step.kind != BoxingStep::Kind::kRelabel) {
      step.seconds += IntermediateSeconds(BytesOf(v));
    }
    const double d = dist_[u] + step.seconds;
    if (d < dist_[v]) {
      dist_[v] = d;
      prev_[v] = u;
      via_[v] = step;
      queue_.push({d, v, -1});
    }
  }

  // A deferred reshard whose lower bound came up: cost it exactly now.
  void CostDeferredReshard(int64_t u, int64_t v) {
    if (dist_[u] + reshard_floor_ >= dist_[v]) return;
    const SideSpace& space = graph_.side_of(u);
    const SideSpace& target_side = graph_.target_side();
    const NdSbp from = space.NdOf(u), to = target_side.NdOf(v);
    const ReshardLoad load =
        LoadOfReshard(shape_, elem_, *space.placement, from, *target_side.placement, to,
                      links_ != nullptr ? &links_->host_of : nullptr);
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
    if (links_ != nullptr) {  // boxing_cost.h, "Across hosts"
      step.seconds += static_cast<double>(load.max_host_link_bytes) / links_->bytes_per_second;
    }
    Relax(u, v, step);
  }

  // One hierarchy axis changes to another candidate, as one Box1d along it.
  void RelaxAxisMoves(int64_t u, const SideSpace& space, const NdSbp& nd) {
    const Placement& placement = *space.placement;
    for (int k = 0; k < nd.num_axes(); ++k) {
      const int64_t n = placement.hierarchy()[k];
      const std::vector<Sbp>& c = space.candidates[k];
      const int64_t at = std::find(c.begin(), c.end(), nd[k]) - c.begin();
      // Index 0's group has the largest parts (balanced splits put extras first).
      const Shape group = AxisGroupShape(shape_, placement, nd, k, 0);
      for (int64_t j = 0; j < static_cast<int64_t>(c.size()); ++j) {
        if (j == at || !IsAxisMoveValid(nd, k, c[j])) continue;
        NdSbp to = nd;
        to[k] = c[j];
        Relax(u, u + (j - at) * space.stride[k],
              AcrossHosts(space, AxisBit(k),
                          AxisStep(space.side, nd, to, AxisBit(k), n,
                                   CostOfAxisMove(group, elem_, n, nd[k], c[j]))));
      }
    }
  }

  // Flattened moves: every axis of a set holding one sbp changes at once, as one
  // Box1d over the set's flattened group.
  void RelaxFlattenedMoves(int64_t u, const SideSpace& space, const NdSbp& nd) {
    const Placement& placement = *space.placement;
    for (AxisSet axes : space.side == Side::kSrc ? graph_.src_sets : graph_.dst_sets) {
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
        if (v < 0 || !IsGroupMoveValid(shape_, placement, nd, axes, to)) continue;
        const int64_t n = GroupSize(placement, axes);
        const Shape group = GroupShape(shape_, placement, nd, axes, 0);
        NdSbp to_nd = nd;
        for (int k = 0; k < nd.num_axes(); ++k) {
          if ((axes & AxisBit(k)) != 0) to_nd[k] = to;
        }
        Relax(u, v,
              AcrossHosts(space, axes,
                          AxisStep(space.side, nd, to_nd, axes, n,
                                   CostOfAxisMove(group, elem_, n, from, to))));
      }
    }
  }

  void RelaxRelabels(int64_t u, const NdSbp& nd) {
    for (const auto& [from_id, to_id] : graph_.relabels) {
      if (from_id != u) continue;
      BoxingStep step;
      step.kind = BoxingStep::Kind::kRelabel;
      step.collective = Collective::kRelabel;
      step.from_side = Side::kSrc;
      step.to_side = Side::kDst;
      step.from = nd;
      step.to = graph_.target_side().NdOf(to_id);
      step.ranks = graph_.sides[0].placement->parallel_num();
      // Nothing moves, unless it is the last step: then the pieces are copied out.
      const double local = to_id == graph_.target ? BytesOf(to_id) : 0;
      step.seconds = CollectiveSeconds(Collective::kRelabel, step.ranks, 0, local);
      Relax(u, to_id, step);
    }
  }

  // Reshards from a settled non-partial state enter the queue at their lower bound.
  void DeferReshards(int64_t u) {
    for (int64_t v : graph_.reshard_targets) {
      if (v != u && dist_[u] + reshard_floor_ < dist_[v]) {
        queue_.push({dist_[u] + reshard_floor_, v, u});
      }
    }
  }

  const StateGraph& graph_;
  const Shape& shape_;
  const size_t elem_;
  std::vector<double> dist_;
  std::vector<int64_t> prev_;
  std::vector<BoxingStep> via_;
  std::vector<double> local_bytes_;
  const double reshard_floor_;
  const std::shared_ptr<const HostLinks> links_;                  // nullptr: price as one host
  std::map<std::pair<std::string, AxisSet>, double> host_share_;  // BusiestHostShare's
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue_;
};

}  // namespace

Result<std::shared_ptr<const BoxingPlan>> FindBoxingPlan(const BoxingLayouts& layouts) {
  // The same layout on the same placement: nothing to search.
  if (layouts.unchanged()) {
    return std::make_shared<const BoxingPlan>(layouts, std::vector<BoxingStep>{});
  }
  const StateGraph graph = BuildStateGraph(layouts);
  PathSearch search(graph, layouts.shape(), layouts.dtype());
  search.Run();
  // Plan assembly: the path's steps, in order, behind the plan's header.
  std::vector<BoxingStep> steps;
  if (!search.PathToTarget(&steps)) {
    return Internal("PlanBoxing: found no boxing path from " + layouts.src_placement().ToString() +
                    " " + layouts.src().ToString() + " to " + layouts.dst_placement().ToString() +
                    " " + layouts.dst().ToString() +
                    " (every nd-sbp should reach every other; this is a planner bug)");
  }
  return std::make_shared<const BoxingPlan>(layouts, std::move(steps));
}

Result<std::shared_ptr<const BoxingPlan>> FindBoxingPlan(const Shape& shape, DType dtype,
                                                         const Placement& src_placement,
                                                         const NdSbp& src,
                                                         const Placement& dst_placement,
                                                         const NdSbp& dst) {
  TESS_ASSIGN_OR_RETURN(
      const BoxingLayouts layouts,
      BoxingLayouts::Make("FindBoxingPlan", shape, dtype, src_placement, src, dst_placement, dst));
  return FindBoxingPlan(layouts);
}

}  // namespace tessera::boxing
