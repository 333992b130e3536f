// The time model the boxing planner ranks paths with: an alpha-beta model per
// collective plus a local-copy term. ALL constants live here.
//
//   alpha  latency of one message round (a step of a ring / pairwise exchange)
//   beta   seconds per byte a rank sends or receives on the wire
//   gamma  seconds per byte a rank copies, packs, fills or reduces in memory
//   step   fixed cost of any step (argument checks, communicator lookup, an
//          intermediate buffer), so that of two equal paths the shorter wins: an
//          all-reduce is exactly a reduce-scatter plus an all-gather in this model
//
// The figures are rough for Open MPI over shared memory on one host (a few us per
// round, a few GB/s per rank); the planner only compares paths, so their ratios
// matter more than their values. For a group of n ranks and a group tensor of T bytes
// (the part of the logical tensor the group boxes, see axis_move.h):
//
//   all-gather(-v)      alpha(n-1)          + beta T(n-1)/n
//   reduce-scatter(-v)  alpha(n-1)          + beta T(n-1)/n     + gamma T(n-1)/n
//   all-reduce          2 alpha(n-1)        + 2 beta T(n-1)/n   + gamma T(n-1)/n
//   all-to-all(-v)      alpha(n-1)          + beta (T/n)(n-1)/n
//   reduce (to one)     alpha ceil(log2 n)  + beta T            + gamma T
//   reshard             alpha (peers + 1)   + beta W            (W: the busiest rank's
//                                                                 sent or received bytes)
//
// plus gamma times the bytes each step copies locally (packing, unpacking, slicing,
// identity fills) plus step, and nothing for a group of one rank but its local copy
// and step. A relabel (flattening or unflattening a hierarchy of the same ranks)
// moves nothing: step, plus the copy into the output when it is the last step.
//
// An all-reduce is priced as exactly a reduce-scatter plus an all-gather because that
// is what the MPI backend runs from 64-256 KB on (mpi_communicator.h, "All-reduce"):
// measured 0.45-0.9x the faster of MPI_Allreduce and MPI_Reduce_scatter_block +
// MPI_Allgather at 1-64 MB on 2-4 ranks. So P -> B is one all-reduce, cheaper than
// P -> S -> B by a step and an intermediate, as measured (docs/boxing.md). While it was
// MPI_Allreduce, at about twice the time, this model chose the slower path.
//
// Across hosts (host_links.h, set by the runtime when the world spans several): a step
// whose groups span hosts also pays for the bytes crossing host links. A rank of a
// group of n with m members on its own host sends W (the wire bytes above) of which a
// share (n - m) / (n - 1) goes to other hosts; a host's link carries that for every
// rank of the placement on the host (the groups of a step run at once), and the busiest
// host's link, at its speed, adds to the step's time. The model is additive and rough
// (a ring places some of its traffic within hosts); it is there to rank paths: on a
// grid whose first axis is the host, (P, P) -> (B, B) as one all-reduce over every rank
// pushes 2 x 1.5T through each 2-rank host's link, the reduce-scatter / inter-host
// all-reduce / all-gather path 2 x T/2, so the latter wins wherever links are slower
// than memory, and with no hosts set the one all-reduce (measured faster on one host).
//
// A step that is not the last also writes an intermediate local tensor, which the
// next step reads back: gamma times its bytes (the busiest rank's). So of two paths
// moving the same wire bytes, the one with fewer collectives wins: measured on a
// 2 x 2 grid (4 ranks, shared memory), one all-reduce over all 4 ranks took 0.5-0.7x
// the time of a reduce-scatter, all-reduce and all-gather along the axes (the same
// bytes in this model) at 1-64 MB; at 16 KB the three were a little faster. Groups of one axis
// run at once, so a step costs one group's time. A reshard pays one extra alpha for being a generic
// exchange: on a tie, a tuned collective wins.
#ifndef TESSERA_CORE_BOXING_BOXING_COST_H_
#define TESSERA_CORE_BOXING_BOXING_COST_H_

#include <cstdint>

namespace tessera::boxing {

inline constexpr double kAlphaSeconds = 5e-6;
inline constexpr double kBetaSecondsPerByte = 1.0 / 4e9;
inline constexpr double kGammaSecondsPerByte = 1.0 / 10e9;
inline constexpr double kStepSeconds = 1e-6;

// What one boxing step runs. Values are not part of any ABI.
enum class Collective : int {
  kLocalCopy,      // a group of one rank, or nothing to move
  kLocalSlice,     // B -> S: each rank keeps its part
  kLocalFill,      // B -> P, S -> P: identity fill plus the own part
  kAllGather,      // S -> B
  kReduceScatter,  // P -> S
  kAllReduce,      // P -> B
  kAllToAll,       // S(i) -> S(j)
  kReduce,         // P(x) -> P(y): reduce to index 0, the others fill y's identity
  kReshard,        // any non-partial -> any non-partial, any placements: one all-to-all-v
  kRelabel,        // the same local pieces under another hierarchy of the same ranks
};

// "all-gather-v", "local slice", ... as BoxingPlan::ToString prints them.
const char* CollectiveName(Collective collective);

// Seconds for `collective` over a group of `n` ranks boxing a group tensor of
// `group_bytes`, plus `local_bytes` copied locally by the busiest rank. kReshard is
// priced by ReshardSeconds instead.
double CollectiveSeconds(Collective collective, int64_t n, double group_bytes, double local_bytes);

// Seconds for a reshard whose busiest rank exchanges with `max_peers` others, sends
// or receives `max_wire_bytes`, and copies `max_local_bytes` locally.
double ReshardSeconds(int64_t max_peers, double max_wire_bytes, double max_local_bytes);

// Seconds a step pays for leaving `bytes` in an intermediate tensor (not the last step).
double IntermediateSeconds(double bytes);

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_BOXING_COST_H_
