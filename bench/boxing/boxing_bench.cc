// Boxing time through Box (the planner path, plans cached after the first call)
// against the raw MPI collective that moves the same bytes, measured in the same run
// (these machines are shared and noisy). f32 tensors of shape [r, r] for 1, 16 and
// 64 MB, even (r = 512, 2048, 4096) and uneven (r + 1); an uneven baseline moves
// floor(elements / n) per rank, the nearest even collective.
//
// 1-d on all ranks:  S(0)->B vs MPI_Allgather, P->B vs MPI_Allreduce, P->S(0) vs
//                    MPI_Reduce_scatter_block, S(0)->S(1) vs MPI_Alltoall, S(1)->B vs
//                    MPI_Allgather.
// 2-d on cpu:[[0,1],[2,3]] (4 ranks exactly): (S(0), S(1))->(B, B) vs MPI_Allgather
//                    of quarters, (P, P)->(B, B) vs MPI_Allreduce, (P, P)->(S(0), S(1))
//                    vs MPI_Reduce_scatter_block of quarters, (S(0), S(1))->(S(1),
//                    S(0)) vs the MPI_Alltoallv that moves the same blocks (ranks 1
//                    and 2 swap their quarters, 0 and 3 keep theirs: an MPI_Alltoall
//                    would move 3/4 of a quarter per rank where the conversion must
//                    move a whole one), (S(0), B)->(S(0), S(1)) vs memcpy of the
//                    rank's output bytes (a local slice: no collective moves the same
//                    bytes, so the strictest baseline is a contiguous copy of them),
//                    and again vs MPI_Pack of an MPI_Type_vector over the same rows
//                    (the raw MPI operation that makes the same strided copy).
// ":vs-MPI_Alltoallw" rows (S(0)->S(1), S(1)->B, 2-d (S(0), S(1))->(B, B)) repeat a
//                    conversion whose blocks are strided against MPI_Alltoallw with a
//                    subarray datatype per peer on each side: the MPI call that moves
//                    the same bytes from and to the same places (MPI_Alltoall and
//                    MPI_Allgather above move contiguous blocks, which is less work).
// Across placements (4 ranks exactly): cpu:[0,1] S(0) -> cpu:[2,3] S(0) vs an
//                    MPI_Alltoallv in which rank r < 2 sends its half to rank r + 2.
//
// Each sample is the slowest rank's time between two barriers; boxing and baseline
// samples alternate, in ABBA order so that neither always runs right after the
// other (caches, MPI's progress state), and both see the same noise; the medians
// are reported. Two warm-up rounds of each fill the plan cache, the communicators'
// datatype caches and the workspace first. Arguments (optional): a case-name filter
// and a sample-count multiplier. Rank 0 prints one JSON line per case on stdout:
//   {"bench": ..., "value": ms, "unit": "ms", "baseline": ms, "ratio": value/baseline}
// and the plan the boxing runs (BoxingPlan::ToString) on stderr.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/boxing/mpi_timing.h"
#include "core/boxing/boxing.h"
#include "core/boxing/boxing_workspace.h"
#include "core/comm/mpi_world.h"
#include "core/common/shape.h"
#include "core/placement/placement.h"
#include "core/sbp/physical_layout.h"
#include "core/sbp/sbp.h"

namespace tessera {
namespace {

enum class Baseline {
  kAllgather,
  kAllreduce,
  kReduceScatterBlock,
  kAlltoall,
  // MPI_Alltoallv in which every rank sends every rank (itself too) as many elements
  // as the conversion moves between them: the intersections of the source and
  // destination pieces. For split-only nd-sbps on one placement of all ranks.
  kSameBlocks,
  kAllreduceMax,  // MPI_Allreduce with the built-in MPI_MAX (which drops NaN)
  kReduceScatterBlockMax,
  kMemcpyLocal,   // memcpy of the rank's destination piece (a local slice)
  kMpiPackLocal,  // MPI_Pack of the same strided rows (a local slice, MPI's way)
  kHalvesAcross,  // MPI_Alltoallv: rank r < 2 sends its half to rank r + 2
  // MPI_Alltoallw in which every rank sends every rank (itself too) the intersection of
  // its source piece and that rank's destination piece, as a subarray datatype on both
  // sides: straight from where the elements lie in the source piece to where they go in
  // the destination piece. The raw MPI call that moves exactly the conversion's bytes;
  // for conversions whose blocks are strided, the kind of baseline MPI itself offers
  // (the contiguous collectives above move other bytes). One placement of all ranks.
  kSameBlocksTyped,
};

struct Case {
  const char* name;
  const char* src_placement;  // empty: all ranks, 1-d
  const char* src;
  const char* dst_placement;
  const char* dst;
  int ranks;  // 0: any number; otherwise exactly this many
  Baseline baseline;
};

const Case kCases[] = {
    {"S(0)->B", "", "S(0)", "", "B", 0, Baseline::kAllgather},
    {"P->B", "", "P", "", "B", 0, Baseline::kAllreduce},
    {"P->S(0)", "", "P", "", "S(0)", 0, Baseline::kReduceScatterBlock},
    // NaN-exact max against MPI's built-in MPI_MAX (docs/numerics.md).
    {"P(max)->B", "", "P(max)", "", "B", 0, Baseline::kAllreduceMax},
    {"P(max)->S(0)", "", "P(max)", "", "S(0)", 0, Baseline::kReduceScatterBlockMax},
    {"S(0)->S(1)", "", "S(0)", "", "S(1)", 0, Baseline::kAlltoall},
    {"S(0)->S(1):vs-MPI_Alltoallw", "", "S(0)", "", "S(1)", 0, Baseline::kSameBlocksTyped},
    // Parts not contiguous in the output: received in place into strided slabs.
    {"S(1)->B", "", "S(1)", "", "B", 0, Baseline::kAllgather},
    {"S(1)->B:vs-MPI_Alltoallw", "", "S(1)", "", "B", 0, Baseline::kSameBlocksTyped},
    {"2d:(S(0),S(1))->(B,B)", "cpu:[[0,1],[2,3]]", "(S(0), S(1))", "cpu:[[0,1],[2,3]]", "(B, B)", 4,
     Baseline::kAllgather},
    {"2d:(S(0),S(1))->(B,B):vs-MPI_Alltoallw", "cpu:[[0,1],[2,3]]", "(S(0), S(1))",
     "cpu:[[0,1],[2,3]]", "(B, B)", 4, Baseline::kSameBlocksTyped},
    {"2d:(P,P)->(B,B)", "cpu:[[0,1],[2,3]]", "(P, P)", "cpu:[[0,1],[2,3]]", "(B, B)", 4,
     Baseline::kAllreduce},
    {"2d:(P,P)->(S(0),S(1))", "cpu:[[0,1],[2,3]]", "(P, P)", "cpu:[[0,1],[2,3]]", "(S(0), S(1))", 4,
     Baseline::kReduceScatterBlock},
    {"2d:(S(0),S(1))->(S(1),S(0))", "cpu:[[0,1],[2,3]]", "(S(0), S(1))", "cpu:[[0,1],[2,3]]",
     "(S(1), S(0))", 4, Baseline::kSameBlocks},
    {"2d:(S(0),B)->(S(0),S(1))", "cpu:[[0,1],[2,3]]", "(S(0), B)", "cpu:[[0,1],[2,3]]",
     "(S(0), S(1))", 4, Baseline::kMemcpyLocal},
    {"2d:(S(0),B)->(S(0),S(1)):vs-MPI_Pack", "cpu:[[0,1],[2,3]]", "(S(0), B)", "cpu:[[0,1],[2,3]]",
     "(S(0), S(1))", 4, Baseline::kMpiPackLocal},
    {"[0,1]->[2,3]:S(0)->S(0)", "cpu:[0,1]", "S(0)", "cpu:[2,3]", "S(0)", 4,
     Baseline::kHalvesAcross},
};

using bench::Check;
using bench::CheckMpi;
using bench::Median;
using bench::TimeOnce;

// The pieces' boxes of parallel indices `a` (under `a_nd`) and `b` (under `b_nd`):
// the number of elements they share.
int64_t SharedElements(const Shape& shape, const Placement& placement, const NdSbp& a_nd, int64_t a,
                       const NdSbp& b_nd, int64_t b) {
  const PhysicalLayout x = PhysicalLayoutAt(shape, placement, a_nd, a).value();
  const PhysicalLayout y = PhysicalLayoutAt(shape, placement, b_nd, b).value();
  int64_t n = 1;
  for (int d = 0; d < shape.ndim(); ++d) {
    const int64_t begin = std::max(x.ranges[d].begin, y.ranges[d].begin);
    const int64_t end = std::min(x.ranges[d].end, y.ranges[d].end);
    n *= std::max<int64_t>(0, end - begin);
  }
  return n;
}

// The subarray of `piece` (a rank's local piece, its global ranges) that holds the
// intersection of `piece` and `other`, as an f32 datatype over the whole piece;
// *empty when they share nothing (then the datatype is MPI_FLOAT with count 0).
MPI_Datatype IntersectionType(const PhysicalLayout& piece, const PhysicalLayout& other,
                              bool* empty) {
  const int nd = piece.local_shape.ndim();
  std::vector<int> sizes(nd), subsizes(nd), starts(nd);
  *empty = false;
  for (int d = 0; d < nd; ++d) {
    const int64_t begin = std::max(piece.ranges[d].begin, other.ranges[d].begin);
    const int64_t end = std::min(piece.ranges[d].end, other.ranges[d].end);
    if (end <= begin) *empty = true;
    sizes[d] = static_cast<int>(piece.local_shape.dim(d));
    subsizes[d] = static_cast<int>(std::max<int64_t>(0, end - begin));
    starts[d] = static_cast<int>(begin - piece.ranges[d].begin);
  }
  if (*empty || nd == 0) return MPI_FLOAT;
  MPI_Datatype type;
  CheckMpi(MPI_Type_create_subarray(nd, sizes.data(), subsizes.data(), starts.data(), MPI_ORDER_C,
                                    MPI_FLOAT, &type),
           "MPI_Type_create_subarray");
  CheckMpi(MPI_Type_commit(&type), "MPI_Type_commit");
  return type;
}

// Packed displacements for `counts`.
std::vector<int> Displs(const std::vector<int>& counts) {
  std::vector<int> displs(counts.size(), 0);
  for (size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  return displs;
}

// `filter`: only cases whose name contains it (all when empty); `scale` multiplies
// the sample counts.
// `size_filter`: only the size whose label ("4KB", "1MB", "16MB", "64MB") it equals
// (when empty: all but 4KB).
void Run(const std::string& filter, int scale, const std::string& size_filter) {
  Check(comm::InitWorld(), "InitWorld");
  const int n = comm::WorldSize().value();
  const int me = comm::WorldRank().value();
  const std::string world = "cpu:0-" + std::to_string(n - 1);
  MPI_Comm raw = MPI_COMM_WORLD;
  boxing::BoxingWorkspace workspace;

  struct Size {
    const char* label;
    int64_t side;  // [side, side] f32
    int iterations;
  };
  const Size sizes[] = {{"4KB", 32, 201}, {"1MB", 512, 41}, {"16MB", 2048, 15}, {"64MB", 4096, 7}};

  for (const Size& size : sizes) {
    // 4KB (the fixed cost of a call) only when asked for.
    const bool asked =
        size_filter.empty() ? std::string(size.label) != "4KB" : size_filter == size.label;
    if (!asked) continue;
    for (bool even : {true, false}) {
      const int64_t side = even ? size.side : size.side + 1;
      const Shape shape{side, side};
      const int64_t total = shape.num_elements();
      // Buffers sized for the largest local tensor of any case, touched once so
      // page faults stay out of the samples. Boxing and baseline both read `in` and
      // write `out`: with buffers of their own, each side's time depended on where
      // its pages happened to lie in the physically indexed caches, which changes
      // from process to process (the same strided copy measured 0.6x to 2.2x a
      // memcpy in different runs), and alternating samples cannot even that out.
      std::vector<float> in(total, 1.0f), out(total, 0.0f);
      const int block = static_cast<int>(total / n);
      // kHalvesAcross: rank r < 2 sends its half to rank r + 2.
      std::vector<int> half_sends(n, 0), half_recvs(n, 0), zeros(n, 0);
      if (me < 2 && me + 2 < n) half_sends[me + 2] = static_cast<int>(total / 2);
      if (me >= 2) half_recvs[me - 2] = static_cast<int>(total / 2);
      for (const Case& c : kCases) {
        if (c.ranks != 0 && c.ranks != n) continue;
        if (!filter.empty() && std::string(c.name).find(filter) == std::string::npos) continue;
        const Placement src_p =
            Placement::Parse(*c.src_placement ? c.src_placement : world).value();
        const Placement dst_p =
            Placement::Parse(*c.dst_placement ? c.dst_placement : world).value();
        const NdSbp src = NdSbp::Parse(c.src).value(), dst = NdSbp::Parse(c.dst).value();
        const std::string label = std::string("boxing/") + c.name + "/f32/" + size.label + "/" +
                                  (even ? "even" : "uneven") + "/np" + std::to_string(n);
        if (me == 0) {
          auto plan = boxing::PlanBoxing(shape, DType::kF32, src_p, src, dst_p, dst);
          Check(plan.status(), c.name);
          std::fprintf(stderr, "plan of %s:\n%s\n", label.c_str(), (*plan)->ToString().c_str());
        }
        // kSameBlocks: what this rank sends to and receives from each world rank.
        std::vector<int> same_sends(n, 0), same_recvs(n, 0);
        if (c.baseline == Baseline::kSameBlocks) {
          const int64_t mine = src_p.index_of(me);
          for (int q = 0; q < n; ++q) {
            const int64_t peer = src_p.index_of(q);
            same_sends[q] = static_cast<int>(SharedElements(shape, src_p, src, mine, dst, peer));
            same_recvs[q] = static_cast<int>(SharedElements(shape, src_p, src, peer, dst, mine));
          }
        }
        // kSameBlocksTyped: one subarray datatype per peer and side, counts 0 or 1.
        std::vector<int> typed_sends(n, 0), typed_recvs(n, 0);
        std::vector<MPI_Datatype> send_types(n, MPI_FLOAT), recv_types(n, MPI_FLOAT);
        if (c.baseline == Baseline::kSameBlocksTyped) {
          const PhysicalLayout my_src =
              PhysicalLayoutAt(shape, src_p, src, src_p.index_of(me)).value();
          const PhysicalLayout my_dst =
              PhysicalLayoutAt(shape, dst_p, dst, dst_p.index_of(me)).value();
          for (int q = 0; q < n; ++q) {
            const PhysicalLayout q_dst =
                PhysicalLayoutAt(shape, dst_p, dst, dst_p.index_of(q)).value();
            const PhysicalLayout q_src =
                PhysicalLayoutAt(shape, src_p, src, src_p.index_of(q)).value();
            bool empty = false;
            send_types[q] = IntersectionType(my_src, q_dst, &empty);
            typed_sends[q] = empty ? 0 : 1;
            recv_types[q] = IntersectionType(my_dst, q_src, &empty);
            typed_recvs[q] = empty ? 0 : 1;
          }
        }
        const std::vector<int> same_send_displs = Displs(same_sends);
        const std::vector<int> same_recv_displs = Displs(same_recvs);
        // kMemcpyLocal: this rank's destination piece.
        const size_t local_bytes =
            dst_p.contains(me)
                ? PhysicalLayoutOfRank(shape, dst_p, dst, me).value().local_shape.num_elements() *
                      sizeof(float)
                : 0;
        // kMpiPackLocal: the rows of this rank's destination piece inside its source
        // piece, as one vector datatype (2-d pieces; both hold the same rows).
        MPI_Datatype slice = MPI_DATATYPE_NULL;
        size_t slice_offset = 0;
        if (c.baseline == Baseline::kMpiPackLocal) {
          const PhysicalLayout from = PhysicalLayoutOfRank(shape, src_p, src, me).value();
          const PhysicalLayout to = PhysicalLayoutOfRank(shape, dst_p, dst, me).value();
          CheckMpi(MPI_Type_vector(static_cast<int>(to.local_shape.dim(0)),
                                   static_cast<int>(to.local_shape.dim(1)),
                                   static_cast<int>(from.local_shape.dim(1)), MPI_FLOAT, &slice),
                   "MPI_Type_vector");
          CheckMpi(MPI_Type_commit(&slice), "MPI_Type_commit");
          slice_offset = static_cast<size_t>(to.ranges[1].begin - from.ranges[1].begin);
        }
        auto box = [&] {
          Check(boxing::Box(in.data(), out.data(), shape, DType::kF32, src_p, src, dst_p, dst,
                            &workspace),
                c.name);
        };
        auto baseline = [&] {
          switch (c.baseline) {
            case Baseline::kAllgather:
              CheckMpi(
                  MPI_Allgather(in.data(), block, MPI_FLOAT, out.data(), block, MPI_FLOAT, raw),
                  "MPI_Allgather");
              break;
            case Baseline::kAllreduce:
              CheckMpi(MPI_Allreduce(in.data(), out.data(), static_cast<int>(total), MPI_FLOAT,
                                     MPI_SUM, raw),
                       "MPI_Allreduce");
              break;
            case Baseline::kReduceScatterBlock:
              CheckMpi(
                  MPI_Reduce_scatter_block(in.data(), out.data(), block, MPI_FLOAT, MPI_SUM, raw),
                  "MPI_Reduce_scatter_block");
              break;
            case Baseline::kAllreduceMax:
              CheckMpi(MPI_Allreduce(in.data(), out.data(), static_cast<int>(total), MPI_FLOAT,
                                     MPI_MAX, raw),
                       "MPI_Allreduce");
              break;
            case Baseline::kReduceScatterBlockMax:
              CheckMpi(
                  MPI_Reduce_scatter_block(in.data(), out.data(), block, MPI_FLOAT, MPI_MAX, raw),
                  "MPI_Reduce_scatter_block");
              break;
            case Baseline::kAlltoall:
              // Each rank holds total/n elements and sends 1/n of them to each rank.
              CheckMpi(MPI_Alltoall(in.data(), block / n, MPI_FLOAT, out.data(), block / n,
                                    MPI_FLOAT, raw),
                       "MPI_Alltoall");
              break;
            case Baseline::kSameBlocks:
              CheckMpi(MPI_Alltoallv(in.data(), same_sends.data(), same_send_displs.data(),
                                     MPI_FLOAT, out.data(), same_recvs.data(),
                                     same_recv_displs.data(), MPI_FLOAT, raw),
                       "MPI_Alltoallv");
              break;
            case Baseline::kMemcpyLocal: std::memcpy(out.data(), in.data(), local_bytes); break;
            case Baseline::kMpiPackLocal: {
              int position = 0;
              CheckMpi(MPI_Pack(in.data() + slice_offset, 1, slice, out.data(),
                                static_cast<int>(local_bytes), &position, MPI_COMM_SELF),
                       "MPI_Pack");
              break;
            }
            case Baseline::kSameBlocksTyped:
              CheckMpi(MPI_Alltoallw(in.data(), typed_sends.data(), zeros.data(), send_types.data(),
                                     out.data(), typed_recvs.data(), zeros.data(),
                                     recv_types.data(), raw),
                       "MPI_Alltoallw");
              break;
            case Baseline::kHalvesAcross:
              CheckMpi(MPI_Alltoallv(in.data(), half_sends.data(), zeros.data(), MPI_FLOAT,
                                     out.data(), half_recvs.data(), zeros.data(), MPI_FLOAT, raw),
                       "MPI_Alltoallv");
              break;
          }
        };
        for (int w = 0; w < 2; ++w) {
          TimeOnce(box);
          TimeOnce(baseline);
        }
        std::vector<double> box_times, base_times;
        for (int i = 0; i < size.iterations * scale; ++i) {
          if (i % 2 == 0) {
            box_times.push_back(TimeOnce(box));
            base_times.push_back(TimeOnce(baseline));
          } else {
            base_times.push_back(TimeOnce(baseline));
            box_times.push_back(TimeOnce(box));
          }
        }
        const double box_ms = Median(box_times) * 1e3, base_ms = Median(base_times) * 1e3;
        if (me == 0) {
          std::printf(
              "{\"bench\": \"%s\", \"value\": %.4f, \"unit\": \"ms\", \"baseline\": %.4f, "
              "\"ratio\": %.3f}\n",
              label.c_str(), box_ms, base_ms, box_ms / base_ms);
          std::fflush(stdout);
        }
        if (slice != MPI_DATATYPE_NULL) CheckMpi(MPI_Type_free(&slice), "MPI_Type_free");
        for (std::vector<MPI_Datatype>* types : {&send_types, &recv_types}) {
          for (MPI_Datatype& t : *types) {
            if (t != MPI_FLOAT) CheckMpi(MPI_Type_free(&t), "MPI_Type_free");
          }
        }
      }
    }
  }
  Check(comm::FinalizeWorld(), "FinalizeWorld");
}

}  // namespace
}  // namespace tessera

// Usage: boxing_bench [FILTER [SCALE [SIZE]]]: only the cases whose name contains
// FILTER, with SCALE times the samples, at SIZE only (4KB, 1MB, 16MB or 64MB) when given
// (for a closer look at one conversion; 4KB, the fixed cost of a call, runs only when
// asked for).
int main(int argc, char** argv) {
  const std::string filter = argc > 1 ? argv[1] : "";
  const int scale = argc > 2 ? std::max(1, std::atoi(argv[2])) : 1;
  const std::string size = argc > 3 ? argv[3] : "";
  if (!size.empty() && size != "4KB" && size != "1MB" && size != "16MB" && size != "64MB") {
    std::fprintf(stderr, "boxing_bench: SIZE is \"%s\"; expected 4KB, 1MB, 16MB or 64MB\n",
                 size.c_str());
    return 2;
  }
  tessera::Run(filter, scale, size);
  return 0;
}
