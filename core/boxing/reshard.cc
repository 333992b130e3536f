#include "core/boxing/reshard.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "core/common/checked_math.h"
#include "core/sbp/physical_layout.h"

namespace tessera::boxing {
namespace {

// Adds to a per-rank total of the cost model, saturating at INT64_MAX ("at least that
// much"). Each piece fits int64 bytes, but one rank sending a large piece to many
// peers can total more: a [2^60] f32 on one rank, B -> B on eight others, sends 2^65
// bytes (found by fuzz/boxing_plan_fuzzer.cc; signed overflow before).
void AddSaturating(int64_t* total, int64_t add) {
  if (!CheckedAdd(*total, add, total)) *total = std::numeric_limits<int64_t>::max();
}

Region RegionOf(const Shape& shape, const Placement& placement, const NdSbp& nd_sbp,
                int64_t index) {
  // Callers validated the nd-sbp, so the layout cannot fail.
  PhysicalLayout layout = PhysicalLayoutAt(shape, placement, nd_sbp, index).value();
  Region region;
  region.ndim = shape.ndim();
  for (int d = 0; d < shape.ndim(); ++d) region.ranges[d] = layout.ranges[d];
  return region;
}

// False when the intersection is empty.
bool Intersect(const Region& a, const Region& b, Region* out) {
  out->ndim = a.ndim;
  for (int d = 0; d < a.ndim; ++d) {
    const int64_t begin = std::max(a.ranges[d].begin, b.ranges[d].begin);
    const int64_t end = std::min(a.ranges[d].end, b.ranges[d].end);
    if (end <= begin) return false;
    out->ranges[d] = {begin, end};
  }
  return true;
}

// `box` (inside `local`) as begin offsets relative to `local`.
void BeginWithin(const Region& box, const Region& local, int64_t* begin) {
  for (int d = 0; d < box.ndim; ++d) begin[d] = box.ranges[d].begin - local.ranges[d].begin;
}

// True when `box` is one contiguous run of the row-major tensor `local`: every dim
// before the first one it does not cover with one index must be covered fully after.
bool IsRun(const Region& box, const Region& local) {
  int d = 0;
  while (d < box.ndim && box.ranges[d].size() == 1) ++d;
  for (++d; d < box.ndim; ++d) {
    if (box.ranges[d].size() != local.ranges[d].size()) return false;
  }
  return true;
}

// Element offset of `box`'s first element in the row-major tensor `local`.
int64_t OffsetWithin(const Region& box, const Region& local) {
  int64_t offset = 0;
  for (int d = 0; d < box.ndim; ++d) {
    offset = offset * local.ranges[d].size() + (box.ranges[d].begin - local.ranges[d].begin);
  }
  return offset;
}

int64_t UnionIndex(const std::vector<int32_t>& ranks, int32_t rank) {
  return std::lower_bound(ranks.begin(), ranks.end(), rank) - ranks.begin();
}

}  // namespace

int64_t Region::num_elements() const {
  int64_t n = 1;
  for (int d = 0; d < ndim; ++d) n *= ranges[d].size();
  return n;
}

Shape Region::extent() const {
  int64_t dims[Shape::kMaxDims];
  for (int d = 0; d < ndim; ++d) dims[d] = ranges[d].size();
  return Shape::Make(dims, ndim).value();
}

std::vector<int32_t> UnionRanks(const Placement& a, const Placement& b) {
  std::vector<int32_t> ranks = a.ranks();
  ranks.insert(ranks.end(), b.ranks().begin(), b.ranks().end());
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

void ForEachTransfer(const Shape& shape, const Placement& src_placement, const NdSbp& src,
                     const Placement& dst_placement, const NdSbp& dst,
                     const std::function<void(const Transfer&)>& visit) {
  const int64_t num_src = src_placement.parallel_num();
  const std::vector<int64_t>& hierarchy = src_placement.hierarchy();
  // A piece is named by its holder with every non-split coordinate zeroed.
  std::vector<int64_t> piece_of(num_src);
  std::vector<std::vector<int64_t>> holders(num_src);
  for (int64_t i = 0; i < num_src; ++i) {
    int64_t canonical = i, stride = 1;
    for (int a = src.num_axes() - 1; a >= 0; --a) {
      if (!src[a].is_split()) canonical -= src_placement.Coordinate(i, a) * stride;
      stride *= hierarchy[a];
    }
    piece_of[i] = canonical;
    holders[canonical].push_back(i);
  }
  std::vector<Region> piece_box(num_src);
  for (int64_t p = 0; p < num_src; ++p) {
    if (!holders[p].empty()) piece_box[p] = RegionOf(shape, src_placement, src, p);
  }
  // Bytes given to each holder so far: the next copy of a piece goes to the least
  // loaded holder, starting the search at a rotating point so ties spread too.
  std::vector<int64_t> load(num_src, 0);
  Transfer t;
  for (int64_t d = 0; d < dst_placement.parallel_num(); ++d) {
    t.dst_index = d;
    t.dst_box = RegionOf(shape, dst_placement, dst, d);
    if (t.dst_box.num_elements() == 0) continue;
    const int64_t own = src_placement.index_of(dst_placement.rank_at(d));
    const int64_t own_piece = own >= 0 ? piece_of[own] : -1;
    for (int64_t p = 0; p < num_src; ++p) {
      if (holders[p].empty() || !Intersect(piece_box[p], t.dst_box, &t.region)) continue;
      t.src_box = piece_box[p];
      if (p == own_piece) {
        t.src_index = own;
        t.local = true;
      } else {
        const std::vector<int64_t>& h = holders[p];
        int64_t best = -1;
        for (size_t k = 0; k < h.size(); ++k) {
          const int64_t candidate = h[(static_cast<size_t>(d) + k) % h.size()];
          if (best < 0 || load[candidate] < load[best]) best = candidate;
        }
        AddSaturating(&load[best], t.region.num_elements());
        t.src_index = best;
        t.local = false;
      }
      visit(t);
    }
  }
}

ReshardLoad LoadOfReshard(const Shape& shape, size_t elem_size, const Placement& src_placement,
                          const NdSbp& src, const Placement& dst_placement, const NdSbp& dst,
                          const std::vector<int32_t>* host_of) {
  const std::vector<int32_t> ranks = UnionRanks(src_placement, dst_placement);
  const size_t n = ranks.size();
  struct PerRank {
    int64_t sent = 0, received = 0, sends = 0, receives = 0, local = 0;
  };
  std::vector<PerRank> per(n);
  std::map<int32_t, PerRank> per_host;  // sent / received across host links
  auto host = [&](int32_t rank) {
    return host_of != nullptr && rank >= 0 && rank < static_cast<int32_t>(host_of->size())
               ? (*host_of)[rank]
               : -1;
  };
  ForEachTransfer(shape, src_placement, src, dst_placement, dst, [&](const Transfer& t) {
    const int64_t bytes = t.region.num_elements() * static_cast<int64_t>(elem_size);
    const int32_t src_rank = src_placement.rank_at(t.src_index);
    PerRank& from = per[UnionIndex(ranks, src_rank)];
    if (t.local) {
      AddSaturating(&from.local, bytes);
      return;
    }
    const int32_t dst_rank = dst_placement.rank_at(t.dst_index);
    PerRank& to = per[UnionIndex(ranks, dst_rank)];
    AddSaturating(&from.sent, bytes);
    ++from.sends;
    AddSaturating(&to.received, bytes);
    ++to.receives;
    const int32_t src_host = host(src_rank), dst_host = host(dst_rank);
    if (src_host >= 0 && dst_host >= 0 && src_host != dst_host) {
      AddSaturating(&per_host[src_host].sent, bytes);
      AddSaturating(&per_host[dst_host].received, bytes);
    }
  });
  ReshardLoad load;
  load.ranks = static_cast<int64_t>(n);
  for (const PerRank& r : per) {
    load.max_peers = std::max({load.max_peers, r.sends, r.receives});
    load.max_wire_bytes = std::max({load.max_wire_bytes, r.sent, r.received});
    load.max_local_bytes = std::max(load.max_local_bytes, r.local);
  }
  for (const auto& [h, r] : per_host) {
    load.max_host_link_bytes = std::max({load.max_host_link_bytes, r.sent, r.received});
  }
  return load;
}

ReshardProgram ReshardProgram::Make(const Shape& shape, DType dtype, const Placement& src_placement,
                                    const NdSbp& src, const Placement& dst_placement,
                                    const NdSbp& dst, int32_t world_rank) {
  ReshardProgram p;
  p.dtype_ = dtype;
  p.elem_ = DTypeSize(dtype);
  p.ranks_ = UnionRanks(src_placement, dst_placement);
  const size_t n = p.ranks_.size();
  const int64_t src_index = src_placement.index_of(world_rank);
  const int64_t dst_index = dst_placement.index_of(world_rank);
  p.holds_in_ = src_index >= 0;
  p.holds_out_ = dst_index >= 0;
  Region in_box, out_box;
  if (p.holds_in_) {
    in_box = RegionOf(shape, src_placement, src, src_index);
    p.in_shape_ = in_box.extent();
  }
  if (p.holds_out_) {
    out_box = RegionOf(shape, dst_placement, dst, dst_index);
    p.out_shape_ = out_box.extent();
  }
  // Per peer: the box this rank sends to it and the box it receives from it.
  p.send_.blocks.assign(n, comm::BlockView::Run(0, 0));
  p.recv_.blocks.assign(n, comm::BlockView::Run(0, 0));
  p.send_.counts.assign(n, 0);
  p.send_.displs.assign(n, 0);
  p.recv_.counts.assign(n, 0);
  p.recv_.displs.assign(n, 0);
  ForEachTransfer(shape, src_placement, src, dst_placement, dst, [&](const Transfer& t) {
    if (!t.local) {
      p.any_wire_ = true;
      // Every rank sees every transfer, so all agree on the collective.
      p.all_runs_ = p.all_runs_ && IsRun(t.region, t.src_box) && IsRun(t.region, t.dst_box);
    }
    const bool sender = t.src_index == src_index;
    const bool receiver = t.dst_index == dst_index;
    if (!sender && !receiver) return;
    const Shape box = t.region.extent();
    int64_t in_begin[Shape::kMaxDims] = {}, out_begin[Shape::kMaxDims] = {};
    if (sender) BeginWithin(t.region, in_box, in_begin);
    if (receiver) BeginWithin(t.region, out_box, out_begin);
    if (t.local) {
      Copy copy;
      copy.box = box;
      std::copy(in_begin, in_begin + Shape::kMaxDims, copy.in_begin);
      std::copy(out_begin, out_begin + Shape::kMaxDims, copy.out_begin);
      p.locals_.push_back(copy);
    } else if (sender) {
      const int64_t peer = UnionIndex(p.ranks_, dst_placement.rank_at(t.dst_index));
      p.send_.blocks[peer] = comm::BlockView::Box(p.in_shape_, in_begin, box);
      p.send_.counts[peer] = box.num_elements();
      p.send_.displs[peer] = OffsetWithin(t.region, in_box);
    } else {
      const int64_t peer = UnionIndex(p.ranks_, src_placement.rank_at(t.src_index));
      p.recv_.blocks[peer] = comm::BlockView::Box(p.out_shape_, out_begin, box);
      p.recv_.counts[peer] = box.num_elements();
      p.recv_.displs[peer] = OffsetWithin(t.region, out_box);
    }
  });
  return p;
}

Status ReshardProgram::Run(const void* in, void* out, comm::Communicator& comm,
                           const LocalOps& ops) const {
  if (static_cast<size_t>(comm.size()) != ranks_.size()) {
    return InvalidArgument("reshard: the communicator has " + std::to_string(comm.size()) +
                           " ranks but the union of the placements has " +
                           std::to_string(ranks_.size()));
  }
  for (const Copy& c : locals_) {
    TESS_RETURN_IF_ERROR(
        ops.CopyBox(in, in_shape_, c.in_begin, out, out_shape_, c.out_begin, c.box, elem_));
  }
  // Nothing crosses the wire anywhere (e.g. B -> B onto a subset): every rank skips.
  if (!any_wire_) return Status::Ok();
  if (all_runs_) {
    return comm.AllToAllV(in, send_.counts, send_.displs, out, recv_.counts, recv_.displs, dtype_);
  }
  return comm.AllToAllBlocks(in, send_.blocks, out, recv_.blocks, dtype_);
}

}  // namespace tessera::boxing
