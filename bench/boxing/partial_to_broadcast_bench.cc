// P -> B side by side with every way to do it, measured in the same run (these
// machines are shared and noisy, so only ratios within one run mean anything):
//
//   tessera       Box P -> B (the planner's path: one all-reduce, which the MPI
//                 backend runs as its own reduce-scatter + all-gather from
//                 MpiCommunicator::ReduceScatterAllGatherBytes up)
//   two_step      Box P -> S(0), then Box S(0) -> B: the other path the planner could
//                 choose (boxing_cost.h prices both)
//   allreduce     raw MPI_Allreduce (MPI_SUM)
//   rs_allgather  raw MPI_Reduce_scatter_block + MPI_Allgather of floor(count / n)
//                 elements per rank (the nearest even collective when n does not
//                 divide the count)
//
// f32 vectors of 64 KB, 256 KB, 1, 4, 16 and 64 MB. Each sample is the slowest rank's time between
// two barriers; one round runs all four, in an order that rotates every round, so
// that none always follows another; medians over the rounds are reported, after two
// warm-up rounds (plan cache, communicators, workspace, page faults).
// Arguments (optional): a sample-count multiplier. Rank 0 prints one JSON line per
// size on stdout:
//   {"bench": "boxing/P->B:paths/f32/16MB/np4", "value": tessera ms, "unit": "ms",
//    "baseline": the faster raw MPI ms, "ratio": value / baseline, "allreduce": ms,
//    "rs_allgather": ms, "two_step": ms, "ratio_vs_two_step": value / two_step}
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bench/boxing/mpi_timing.h"
#include "core/boxing/boxing.h"
#include "core/boxing/boxing_workspace.h"
#include "core/comm/mpi_world.h"
#include "core/common/shape.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera {
namespace {

using bench::Check;
using bench::CheckMpi;
using bench::Median;
using bench::TimeOnce;

void Run(int scale) {
  Check(comm::InitWorld(), "InitWorld");
  const int n = comm::WorldSize().value();
  const int me = comm::WorldRank().value();
  const Placement world = Placement::Parse("cpu:0-" + std::to_string(n - 1)).value();
  const NdSbp p = NdSbp::Parse("P").value(), b = NdSbp::Parse("B").value();
  const NdSbp s0 = NdSbp::Parse("S(0)").value();
  boxing::BoxingWorkspace workspace;
  MPI_Comm raw = MPI_COMM_WORLD;

  struct Size {
    const char* label;
    int64_t count;  // f32 elements
    int rounds;
  };
  // 64 and 256 KB: either side of MpiCommunicator::ReduceScatterAllGatherBytes.
  const Size sizes[] = {{"64KB", 1 << 14, 101}, {"256KB", 1 << 16, 61}, {"1MB", 1 << 18, 41},
                        {"4MB", 1 << 20, 21},   {"16MB", 1 << 22, 11},  {"64MB", 1 << 24, 7}};
  for (const Size& size : sizes) {
    const int64_t count = size.count;
    const Shape shape{count};
    const int block = static_cast<int>(count / n);
    // Every variant reads `in` and writes `out` (see boxing_bench.cc on why shared
    // buffers); `mid` holds the two-step path's S(0) piece.
    std::vector<float> in(count, 1.0f), out(count, 0.0f), mid(count / n + 1, 0.0f);
    const std::function<void()> variants[] = {
        [&] {
          Check(boxing::Box(in.data(), out.data(), shape, DType::kF32, world, p, world, b,
                            &workspace),
                "Box P->B");
        },
        [&] {
          Check(boxing::Box(in.data(), mid.data(), shape, DType::kF32, world, p, world, s0,
                            &workspace),
                "Box P->S(0)");
          Check(boxing::Box(mid.data(), out.data(), shape, DType::kF32, world, s0, world, b,
                            &workspace),
                "Box S(0)->B");
        },
        [&] {
          CheckMpi(MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                                 raw),
                   "MPI_Allreduce");
        },
        [&] {
          CheckMpi(MPI_Reduce_scatter_block(in.data(), mid.data(), block, MPI_FLOAT, MPI_SUM, raw),
                   "MPI_Reduce_scatter_block");
          CheckMpi(MPI_Allgather(mid.data(), block, MPI_FLOAT, out.data(), block, MPI_FLOAT, raw),
                   "MPI_Allgather");
        },
    };
    constexpr int kVariants = 4;
    std::vector<double> times[kVariants];
    for (int round = -2; round < size.rounds * scale; ++round) {
      for (int i = 0; i < kVariants; ++i) {
        const int v = (i + (round + 2)) % kVariants;  // rotates every round
        const double t = TimeOnce(variants[v]);
        if (round >= 0) times[v].push_back(t);
      }
    }
    double ms[kVariants];
    for (int v = 0; v < kVariants; ++v) ms[v] = Median(times[v]) * 1e3;
    const double best_raw = std::min(ms[2], ms[3]);
    if (me == 0) {
      std::printf(
          "{\"bench\": \"boxing/P->B:paths/f32/%s/np%d\", \"value\": %.4f, \"unit\": \"ms\", "
          "\"baseline\": %.4f, \"ratio\": %.3f, \"allreduce\": %.4f, \"rs_allgather\": %.4f, "
          "\"two_step\": %.4f, \"ratio_vs_two_step\": %.3f}\n",
          size.label, n, ms[0], best_raw, ms[0] / best_raw, ms[2], ms[3], ms[1], ms[0] / ms[1]);
      std::fflush(stdout);
    }
  }
  Check(comm::FinalizeWorld(), "FinalizeWorld");
}

}  // namespace
}  // namespace tessera

// Usage: partial_to_broadcast_bench [SCALE]: SCALE times the samples.
int main(int argc, char** argv) {
  const int scale = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
  tessera::Run(scale);
  return 0;
}
