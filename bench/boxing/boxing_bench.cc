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
//                    S(0)) vs MPI_Alltoall, (S(0), B)->(S(0), S(1)) (a local slice) vs
//                    memcpy of the slice.
// Across placements (4 ranks exactly): cpu:[0,1] S(0) -> cpu:[2,3] S(0) vs an
//                    MPI_Alltoallv in which rank r < 2 sends its half to rank r + 2.
//
// Each sample is the slowest rank's time between two barriers; boxing and baseline
// samples alternate so both see the same noise; the medians are reported. Arguments
// (optional): a case-name filter and a sample-count multiplier. Rank 0 prints one
// JSON line per case:
//   {"bench": ..., "value": ms, "unit": "ms", "baseline": ms, "ratio": value/baseline}
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/boxing/boxing.h"
#include "core/boxing/boxing_workspace.h"
#include "core/comm/mpi_world.h"
#include "core/common/shape.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera {
namespace {

enum class Baseline {
  kAllgather,
  kAllreduce,
  kReduceScatterBlock,
  kAlltoall,
  kMemcpyQuarter,  // memcpy of a quarter of the tensor (a 4-rank local slice)
  kHalvesAcross,   // MPI_Alltoallv: rank r < 2 sends its half to rank r + 2
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
    {"S(0)->S(1)", "", "S(0)", "", "S(1)", 0, Baseline::kAlltoall},
    // Parts not contiguous in the output: received in place into strided slabs.
    {"S(1)->B", "", "S(1)", "", "B", 0, Baseline::kAllgather},
    {"2d:(S(0),S(1))->(B,B)", "cpu:[[0,1],[2,3]]", "(S(0), S(1))", "cpu:[[0,1],[2,3]]", "(B, B)", 4,
     Baseline::kAllgather},
    {"2d:(P,P)->(B,B)", "cpu:[[0,1],[2,3]]", "(P, P)", "cpu:[[0,1],[2,3]]", "(B, B)", 4,
     Baseline::kAllreduce},
    {"2d:(P,P)->(S(0),S(1))", "cpu:[[0,1],[2,3]]", "(P, P)", "cpu:[[0,1],[2,3]]", "(S(0), S(1))", 4,
     Baseline::kReduceScatterBlock},
    {"2d:(S(0),S(1))->(S(1),S(0))", "cpu:[[0,1],[2,3]]", "(S(0), S(1))", "cpu:[[0,1],[2,3]]",
     "(S(1), S(0))", 4, Baseline::kAlltoall},
    {"2d:(S(0),B)->(S(0),S(1))", "cpu:[[0,1],[2,3]]", "(S(0), B)", "cpu:[[0,1],[2,3]]",
     "(S(0), S(1))", 4, Baseline::kMemcpyQuarter},
    {"[0,1]->[2,3]:S(0)->S(0)", "cpu:[0,1]", "S(0)", "cpu:[2,3]", "S(0)", 4,
     Baseline::kHalvesAcross},
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

// `filter`: only cases whose name contains it (all when empty); `scale` multiplies
// the sample counts.
void Run(const std::string& filter, int scale) {
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
        auto box = [&] {
          Check(boxing::Box(in.data(), out.data(), shape, DType::kF32, src_p, src, dst_p, dst,
                            &workspace),
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
            case Baseline::kMemcpyQuarter:
              std::memcpy(base_recv.data(), base_send.data(), total / 4 * sizeof(float));
              break;
            case Baseline::kHalvesAcross:
              CheckMpi(
                  MPI_Alltoallv(base_send.data(), half_sends.data(), zeros.data(), MPI_FLOAT,
                                base_recv.data(), half_recvs.data(), zeros.data(), MPI_FLOAT, raw),
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

// Usage: boxing_bench [FILTER [SCALE]]: only the cases whose name contains FILTER,
// with SCALE times the samples (for a closer look at one conversion).
int main(int argc, char** argv) {
  const std::string filter = argc > 1 ? argv[1] : "";
  const int scale = argc > 2 ? std::max(1, std::atoi(argv[2])) : 1;
  tessera::Run(filter, scale);
  return 0;
}
