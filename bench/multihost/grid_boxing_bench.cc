// (P, P) -> (B, B) on a grid whose rows are hosts, across emulated hosts
// (bench/multihost/run.sh; tools/multihost.sh, H hosts x 2 ranks, placed by block),
// three ways in one run:
//
//   host_by_host  Box on the grid, planned with the host links known (what the runtime
//                 sets up at start-up; core/boxing/host_links.h): reduce-scatter within
//                 hosts, all-reduce across them, all-gather within hosts
//   one_allreduce Box P -> B on the ranks as one placement: one all-reduce over every
//                 rank, the plan the grid gets without hosts
//   allreduce     raw MPI_Allreduce (MPI_SUM), what a user would otherwise call
//
// f32, 1, 16 and 64 MB. Each sample is the slowest rank's time between two barriers;
// rounds rotate the order; medians after one warm-up round. Rank 0 prints one JSON line
// per size: value = host_by_host ms, baseline = MPI_Allreduce ms, ratio = value /
// baseline, and one_allreduce ms with its ratio; the plan goes to stderr.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/boxing/mpi_timing.h"
#include "core/boxing/boxing.h"
#include "core/boxing/boxing_workspace.h"
#include "core/boxing/host_links.h"
#include "core/boxing/planner.h"
#include "core/comm/mpi_world.h"
#include "core/comm/world_topology.h"
#include "core/common/shape.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera {
namespace {

using bench::Check;
using bench::CheckMpi;
using bench::Median;
using bench::TimeOnce;

int Run() {
  Check(comm::InitWorld(), "InitWorld");
  const int n = comm::WorldSize().value();
  const int me = comm::WorldRank().value();
  Result<const comm::WorldTopology*> topology = comm::FindWorldTopology("");
  Check(topology.status(), "FindWorldTopology");
  const comm::HostLayout& layout = (*topology)->layout;
  const int hosts = static_cast<int>(layout.host_sizes.size());
  bool by_block = n % 2 == 0 && hosts == n / 2 && hosts >= 2;
  for (int r = 0; r < n && by_block; ++r) by_block = layout.host_of[r] == r / 2;
  if (!by_block) {
    if (me == 0)
      std::fprintf(stderr, "grid_boxing_bench: needs H >= 2 hosts x 2 ranks, by block\n");
    Check(comm::FinalizeWorld(), "FinalizeWorld");
    return 2;
  }
  auto links = std::make_shared<boxing::HostLinks>();
  links->host_of = layout.host_of;
  links->bytes_per_second = (*topology)->host_link_bytes_per_second;
  Check(boxing::SetHostLinks(links), "SetHostLinks");

  std::string rows, all;
  for (int h = 0; h < hosts; ++h) {
    rows += std::string(h ? "," : "") + "[" + std::to_string(2 * h) + "," +
            std::to_string(2 * h + 1) + "]";
    all += std::string(h ? "," : "") + std::to_string(2 * h) + "," + std::to_string(2 * h + 1);
  }
  const Placement grid = Placement::Parse("cpu:[" + rows + "]").value();
  const Placement line = Placement::Parse("cpu:[" + all + "]").value();
  const NdSbp pp = NdSbp::Parse("(P, P)").value(), bb = NdSbp::Parse("(B, B)").value();
  const NdSbp p = NdSbp::Parse("P").value(), b = NdSbp::Parse("B").value();
  boxing::BoxingWorkspace workspace;
  struct Size {
    const char* label;
    int64_t count;
    int rounds;
  };
  const Size sizes[] = {{"1MB", 1 << 18, 9}, {"16MB", 1 << 22, 5}, {"64MB", 1 << 24, 3}};
  for (const Size& size : sizes) {
    const Shape shape{size.count};
    const Shape grid_shape{size.count};
    std::vector<float> in(size.count, 1.0f), out(size.count, 0.0f);
    if (me == 0) {
      auto plan = boxing::FindBoxingPlan(grid_shape, DType::kF32, grid, pp, grid, bb);
      Check(plan.status(), "FindBoxingPlan");
      std::fprintf(stderr, "%s", (*plan)->ToString().c_str());
    }
    const std::function<void()> variants[] = {
        [&] {
          Check(boxing::Box(in.data(), out.data(), grid_shape, DType::kF32, grid, pp, grid, bb,
                            &workspace),
                "Box grid");
        },
        [&] {
          Check(
              boxing::Box(in.data(), out.data(), shape, DType::kF32, line, p, line, b, &workspace),
              "Box line");
        },
        [&] {
          CheckMpi(MPI_Allreduce(in.data(), out.data(), static_cast<int>(size.count), MPI_FLOAT,
                                 MPI_SUM, MPI_COMM_WORLD),
                   "MPI_Allreduce");
        },
    };
    constexpr int kVariants = 3;
    std::vector<double> times[kVariants];
    for (int round = -1; round < size.rounds; ++round) {
      for (int i = 0; i < kVariants; ++i) {
        const int v = (i + round + 1) % kVariants;
        const double t = TimeOnce(variants[v]);
        if (round >= 0) times[v].push_back(t);
      }
    }
    double ms[kVariants];
    for (int v = 0; v < kVariants; ++v) ms[v] = Median(times[v]) * 1e3;
    if (me == 0) {
      std::printf(
          "{\"bench\": \"boxing/(P,P)->(B,B):host_by_host/%dhostsx2/f32/%s/np%d\", \"value\": "
          "%.4f, "
          "\"unit\": \"ms\", \"baseline\": %.4f, \"ratio\": %.3f, \"one_allreduce\": %.4f, "
          "\"ratio_one_allreduce\": %.3f, \"host_link_gbits\": %.3g}\n",
          hosts, size.label, n, ms[0], ms[2], ms[0] / ms[2], ms[1], ms[1] / ms[2],
          links->bytes_per_second * 8 / 1e9);
      std::fflush(stdout);
    }
  }
  Check(comm::FinalizeWorld(), "FinalizeWorld");
  return 0;
}

}  // namespace
}  // namespace tessera

int main() { return tessera::Run(); }
