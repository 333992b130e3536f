// Generic reshard: any nd-sbp without partial axes on one placement to any nd-sbp
// without partial axes on another (same, overlapping, disjoint, nested; any
// hierarchies; uneven sizes; any split dims) in ONE all-to-all-v over the union of
// the two placements' ranks, ordered by world rank.
//
// Every destination rank needs the box of the logical tensor its layout names; every
// source rank holds a box. Source ranks that differ only along broadcast axes hold
// the same box (a "piece"); for each (piece, destination) whose boxes intersect, ONE
// holder sends the intersection: the destination itself when it holds the piece (a
// local copy, nothing on the wire), otherwise the holder that has been given the
// fewest bytes so far, so broadcast copies share the sending. Each pair of ranks then
// exchanges at most one box each way, read and written where it lies in the local
// tensors (Communicator::AllToAllBlocks; an all-to-all-v when every box of the
// exchange is one contiguous run). Compared with OneFlow's point-to-point fallback
// (every pair, every copy), one collective moves only the bytes each rank needs.
//
// Every rank derives the same transfers from the same arguments, in the same order,
// so the plan needs no communication.
#ifndef TESSERA_CORE_BOXING_RESHARD_H_
#define TESSERA_CORE_BOXING_RESHARD_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/boxing/local_ops.h"
#include "core/comm/communicator.h"
#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/balanced_split.h"
#include "core/sbp/sbp.h"

namespace tessera::boxing {

// A box of the logical tensor: one range per dim.
struct Region {
  int ndim = 0;
  Range ranges[Shape::kMaxDims] = {};

  int64_t num_elements() const;
  Shape extent() const;
};

// One box moving in a reshard: `region` of the logical tensor, from source parallel
// index `src_index` (whose whole local box is `src_box`) to destination parallel
// index `dst_index` (whose local box is `dst_box`); `local` when both are one rank.
struct Transfer {
  int64_t src_index = 0;
  int64_t dst_index = 0;
  bool local = false;
  Region region;
  Region src_box;
  Region dst_box;
};

// Every transfer of the reshard, in one order shared by all ranks. Preconditions:
// both nd-sbps validated for `shape` and their placement, neither has a partial axis.
void ForEachTransfer(const Shape& shape, const Placement& src_placement, const NdSbp& src,
                     const Placement& dst_placement, const NdSbp& dst,
                     const std::function<void(const Transfer&)>& visit);

// What the busiest ranks of a reshard do, for its cost (boxing_cost.h). Byte totals
// saturate at INT64_MAX: a rank sending one huge piece to many peers can total more.
struct ReshardLoad {
  int64_t ranks = 0;            // the union's size
  int64_t max_peers = 0;        // most ranks one rank sends to or receives from
  int64_t max_wire_bytes = 0;   // most bytes one rank sends or receives
  int64_t max_local_bytes = 0;  // most bytes one rank copies locally (its own pieces)
  // With `host_of`: most bytes one host sends to, or receives from, other hosts.
  int64_t max_host_link_bytes = 0;
};
// `host_of` (by world rank; may be null) places ranks on hosts for max_host_link_bytes;
// transfers of ranks it does not cover are left out of that figure.
ReshardLoad LoadOfReshard(const Shape& shape, size_t elem_size, const Placement& src_placement,
                          const NdSbp& src, const Placement& dst_placement, const NdSbp& dst,
                          const std::vector<int32_t>* host_of = nullptr);

// The sorted union of both placements' ranks: the reshard's communicator, whose rank
// i is world rank ranks[i].
std::vector<int32_t> UnionRanks(const Placement& a, const Placement& b);

// One rank's part of a reshard, precomputed: what it sends, receives and copies
// locally. Immutable; Run allocates nothing.
class ReshardProgram {
 public:
  // The part of world rank `world_rank`, which must be in the union. Preconditions
  // as for ForEachTransfer.
  static ReshardProgram Make(const Shape& shape, DType dtype, const Placement& src_placement,
                             const NdSbp& src, const Placement& dst_placement, const NdSbp& dst,
                             int32_t world_rank);

  // The union communicator's world ranks.
  const std::vector<int32_t>& ranks() const { return ranks_; }
  // This rank's local element counts before and after (0 where it holds nothing).
  int64_t in_count() const { return in_shape_.num_elements() * (holds_in_ ? 1 : 0); }
  int64_t out_count() const { return out_shape_.num_elements() * (holds_out_ ? 1 : 0); }

  // Reads this rank's source local `in` (may be NULL when in_count() is 0) and
  // writes its destination local `out`. `comm` is the union's communicator (ranks()
  // in order); every member must call Run. The local copies go through `ops` (where
  // the pieces live, ordered with `comm`); device ops may leave them queued on
  // return (ops.Finish() waits).
  Status Run(const void* in, void* out, comm::Communicator& comm,
             const LocalOps& ops = HostLocalOps()) const;

 private:
  // One box copied directly between the two local tensors.
  struct Copy {
    Shape box;
    int64_t in_begin[Shape::kMaxDims] = {};
    int64_t out_begin[Shape::kMaxDims] = {};
  };

  // One direction of the exchange, per peer: the box of the local tensor (empty
  // where nothing moves), and its count and offset for the all-to-all-v used when
  // every box of the whole exchange is a contiguous run.
  struct Exchange {
    std::vector<comm::BlockView> blocks;
    std::vector<int64_t> counts;
    std::vector<int64_t> displs;
  };

  ReshardProgram() = default;

  DType dtype_ = DType::kF32;
  size_t elem_ = 4;
  std::vector<int32_t> ranks_;
  bool holds_in_ = false;
  bool holds_out_ = false;
  Shape in_shape_;
  Shape out_shape_;
  std::vector<Copy> locals_;
  Exchange send_;
  Exchange recv_;
  bool any_wire_ = false;  // some rank of the union sends something
  bool all_runs_ = true;   // every box any rank sends or receives is one run (all ranks agree)
};

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_RESHARD_H_
