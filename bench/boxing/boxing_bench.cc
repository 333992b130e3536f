// Boxing time against the raw MPI collective that moves the same bytes, measured
// in the same run (these machines are shared and noisy): S(0)->B vs MPI_Allgather,
// P->B vs MPI_Allreduce, P->S(0) vs MPI_Reduce_scatter_block, S(0)->S(1) vs
// MPI_Alltoall, and S(1)->B vs MPI_Allgather, for 1, 16 and 64 MB f32 tensors of shape [r, r]
// (even) and [r+1, r+1] (uneven: dim0 = n*k + 1 for n = 2 and 4). An uneven baseline moves
// floor(elements / n) per rank, the nearest even collective.
//
// Each sample is the slowest rank's time between two barriers; boxing and baseline
// samples alternate so both see the same noise; the median is reported. Rank 0
// prints one JSON line per case:
//   {"bench": ..., "value": ms, "unit": "ms", "baseline": ms, "ratio": value/baseline}
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/boxing/box_1d.h"
#include "core/boxing/boxing_workspace.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_world.h"
#include "core/common/shape.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera {
namespace {

enum class Baseline { kAllgather, kAllreduce, kReduceScatterBlock, kAlltoall };

struct Case {
  const char* name;
  Sbp in;
  Sbp out;
  Baseline baseline;
};

const Case kCases[] = {
    {"S(0)->B", Sbp::Split(0), Sbp::Broadcast(), Baseline::kAllgather},
    {"P->B", Sbp::PartialSum(), Sbp::Broadcast(), Baseline::kAllreduce},
    {"P->S(0)", Sbp::PartialSum(), Sbp::Split(0), Baseline::kReduceScatterBlock},
    {"S(0)->S(1)", Sbp::Split(0), Sbp::Split(1), Baseline::kAlltoall},
    // Not a contiguous gather: all-gather into staging, then unpack (the cost of
    // the staging copy against the same raw all-gather).
    {"S(1)->B", Sbp::Split(1), Sbp::Broadcast(), Baseline::kAllgather},
};

void Check(const Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

void CheckMpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  Check(comm::MpiError(what, rc), what);
}

// The slowest rank's time for `fn`, in seconds.
double TimeOnce(const std::function<void()>& fn) {
  CheckMpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  double start = MPI_Wtime();
  fn();
  double local = MPI_Wtime() - start, slowest = 0;
  CheckMpi(MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
           "MPI_Allreduce");
  return slowest;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

void Run() {
  Check(comm::InitWorld(), "InitWorld");
  const int n = comm::WorldSize().value();
  const int me = comm::WorldRank().value();
  Placement placement = Placement::Parse("cpu:0-" + std::to_string(n - 1)).value();
  comm::Communicator* communicator =
      comm::MpiCommRegistry::Global().ForPlacement(placement).value();
  MPI_Comm raw = MPI_COMM_WORLD;
  boxing::BoxingWorkspace workspace;

  struct Size {
    const char* label;
    int64_t side;  // [side, side] f32
    int iterations;
  };
  const Size sizes[] = {{"1MB", 512, 41}, {"16MB", 2048, 15}, {"64MB", 4096, 7}};

  for (const Size& size : sizes) {
    for (bool even : {true, false}) {
      const int64_t side = even ? size.side : size.side + 1;
      const Shape shape{side, side};
      const int64_t total = shape.num_elements();
      // Buffers sized for the largest local tensor of any case, touched once so
      // page faults stay out of the samples.
      std::vector<float> in(total, 1.0f), out(total, 0.0f);
      std::vector<float> base_send(total, 1.0f), base_recv(total, 0.0f);
      const int block = static_cast<int>(total / n);
      for (const Case& c : kCases) {
        auto box = [&] {
          Check(boxing::Box1d(in.data(), shape, DType::kF32, placement, c.in, c.out, out.data(),
                              *communicator, &workspace),
                c.name);
        };
        auto baseline = [&] {
          switch (c.baseline) {
            case Baseline::kAllgather:
              CheckMpi(MPI_Allgather(base_send.data(), block, MPI_FLOAT, base_recv.data(), block,
                                     MPI_FLOAT, raw),
                       "MPI_Allgather");
              break;
            case Baseline::kAllreduce:
              CheckMpi(MPI_Allreduce(base_send.data(), base_recv.data(), static_cast<int>(total),
                                     MPI_FLOAT, MPI_SUM, raw),
                       "MPI_Allreduce");
              break;
            case Baseline::kReduceScatterBlock:
              CheckMpi(MPI_Reduce_scatter_block(base_send.data(), base_recv.data(), block,
                                                MPI_FLOAT, MPI_SUM, raw),
                       "MPI_Reduce_scatter_block");
              break;
            case Baseline::kAlltoall:
              // Each rank holds total/n elements and sends 1/n of them to each rank.
              CheckMpi(MPI_Alltoall(base_send.data(), block / n, MPI_FLOAT, base_recv.data(),
                                    block / n, MPI_FLOAT, raw),
                       "MPI_Alltoall");
              break;
          }
        };
        for (int w = 0; w < 2; ++w) {
          TimeOnce(box);
          TimeOnce(baseline);
        }
        std::vector<double> box_times, base_times;
        for (int i = 0; i < size.iterations; ++i) {
          box_times.push_back(TimeOnce(box));
          base_times.push_back(TimeOnce(baseline));
        }
        const double box_ms = Median(box_times) * 1e3, base_ms = Median(base_times) * 1e3;
        if (me == 0) {
          std::printf(
              "{\"bench\": \"boxing/%s/f32/%s/%s/np%d\", \"value\": %.4f, \"unit\": \"ms\", "
              "\"baseline\": %.4f, \"ratio\": %.3f}\n",
              c.name, size.label, even ? "even" : "uneven", n, box_ms, base_ms, box_ms / base_ms);
          std::fflush(stdout);
        }
      }
    }
  }
  Check(comm::FinalizeWorld(), "FinalizeWorld");
}

}  // namespace
}  // namespace tessera

int main() {
  tessera::Run();
  return 0;
}
