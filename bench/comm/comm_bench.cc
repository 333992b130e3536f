// core/comm benchmarks, each against its baseline in the same run (these machines
// are shared and noisy), run under mpirun by bench/comm/run.sh:
//
//   bucketed/...      100 f32 tensors of 1-64 KB (and of 0.25-4 KB) through one
//                     BucketedAllReducer call vs 100 separate Communicator::AllReduce
//                     calls; bucketed-staged/... the same with shared_memory off (one
//                     MPI all-reduce of a staging buffer), vs the same separate calls;
//   hierarchical/...  HierarchicalCommunicator (sharded hosts form, 2 pretend hosts)
//                     vs the flat all-reduce, 1 / 16 / 64 MB f32 (even rank counts >= 4);
//                     under tools/multihost.sh the real hosts, both hierarchical forms
//                     (bench/multihost/run.sh);
//   nonblocking/...   a communicator with a timeout (MPI_I* + MPI_Test polling) vs the
//                     same calls blocking, all-reduce and all-to-all, 1 KB / 1 MB / 16 MB;
//   small/...         one Communicator::AllReduce of 8 B / 1 KB f32 vs MPI_Allreduce on the
//                     same MPI communicator: the per-call cost of the Communicator layer
//                     (argument checks, the per-communicator call lock), where it is
//                     largest relative to the collective. Compare two builds of it with
//                     bench/compare.py to see what a change to that layer costs.
//
// Each sample is the slowest rank's time for `batch` calls between two barriers,
// divided by batch; value and baseline samples alternate so both see the same
// noise; the median is reported. An argument (bucketed, hierarchical, nonblocking)
// runs only that section. Rank 0 prints one JSON line per case:
//   {"bench": ..., "value": ms, "unit": "ms", "baseline": ms, "ratio": value/baseline}
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/comm/bucketed_allreduce.h"
#include "core/comm/hierarchical_communicator.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_communicator.h"
#include "core/comm/mpi_world.h"

namespace tessera::comm {
namespace {

void Check(const Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

// The slowest rank's seconds per call of `fn`, over `batch` calls.
double TimeOnce(const std::function<void()>& fn, int batch) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < batch; ++i) fn();
  double local = (MPI_Wtime() - start) / batch, slowest = 0;
  MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Times `value` against `baseline` (alternating, after a warm-up) and prints a line.
void Compare(const std::string& name, const std::function<void()>& value,
             const std::function<void()>& baseline, int samples, int batch) {
  for (int w = 0; w < 2; ++w) {
    TimeOnce(value, 1);
    TimeOnce(baseline, 1);
  }
  std::vector<double> v, b;
  for (int i = 0; i < samples; ++i) {
    v.push_back(TimeOnce(value, batch));
    b.push_back(TimeOnce(baseline, batch));
  }
  const double value_ms = Median(v) * 1e3, base_ms = Median(b) * 1e3;
  if (WorldRank().value() == 0) {
    std::printf(
        "{\"bench\": \"%s\", \"value\": %.4f, \"unit\": \"ms\", \"baseline\": %.4f, "
        "\"ratio\": %.3f}\n",
        name.c_str(), value_ms, base_ms, value_ms / base_ms);
    std::fflush(stdout);
  }
}

std::unique_ptr<MpiCommunicator> Duplicate(MPI_Comm comm) {
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(comm, &dup);
  auto wrapped = MpiCommunicator::Wrap(dup, /*owned=*/true);
  Check(wrapped.status(), "MpiCommunicator::Wrap");
  return std::move(wrapped).value();
}

// 100 f32 tensors of unit_bytes * (1 .. units) bytes, spread by a multiplicative
// hash of the index.
void Bucketed(MpiCommunicator& world, int n, int64_t unit_bytes, int64_t units, const char* label) {
  constexpr int kTensors = 100;
  std::vector<std::vector<float>> data(kTensors);
  std::vector<BucketTensor> tensors(kTensors);
  int64_t total = 0;
  for (int i = 0; i < kTensors; ++i) {
    const int64_t count = unit_bytes / 4 * (1 + (i * 37) % units);
    data[i].assign(count, 1.0f);
    tensors[i] = {data[i].data(), count, DType::kF32};
    total += count;
  }
  auto reducer = BucketedAllReducer::Create().value();
  BucketOptions staged_options;
  staged_options.shared_memory = false;
  auto staged_reducer = BucketedAllReducer::Create(staged_options).value();
  auto bucketed = [&] { Check(reducer->AllReduce(world, tensors, ReduceOp::kSum), "bucketed"); };
  auto staged = [&] {
    Check(staged_reducer->AllReduce(world, tensors, ReduceOp::kSum), "bucketed-staged");
  };
  auto separate = [&] {
    for (const BucketTensor& t : tensors) {
      Check(world.AllReduce(t.data, t.data, t.count, DType::kF32, ReduceOp::kSum), "separate");
    }
  };
  const std::string suffix = std::string("/100x") + label + "/" + std::to_string(total * 4 / 1024) +
                             "KB/f32/np" + std::to_string(n);
  Compare("bucketed" + suffix, bucketed, separate, 15, 5);
  Compare("bucketed-staged" + suffix, staged, separate, 15, 5);
}

// Under tools/multihost.sh (bench/multihost/run.sh) the hosts are real to Open MPI and
// TESSERA_TEST_RANKS_PER_HOST says how many ranks each holds: both hierarchical forms
// run on the real layout, and "auto" (what a HierarchicalCommunicator picks by size).
// Otherwise two pretend hosts of n / 2 ranks (even n >= 4).
void Hierarchical(MpiCommunicator& world, int n) {
  const char* per_host_env = std::getenv("TESSERA_TEST_RANKS_PER_HOST");
  const int per_host = per_host_env != nullptr ? std::atoi(per_host_env) : n / 2;
  if (per_host < 1 || n % per_host != 0 || n / per_host < 2) return;
  if (per_host_env == nullptr && (n < 4 || n % 2 != 0)) return;
  const int hosts = n / per_host;
  const std::string where = per_host_env != nullptr ? "hosts" : "pretend-hosts";
  const std::vector<HierarchicalAlgorithm> algorithms =
      per_host_env != nullptr
          ? std::vector<HierarchicalAlgorithm>{HierarchicalAlgorithm::kAuto,
                                               HierarchicalAlgorithm::kShardedHosts,
                                               HierarchicalAlgorithm::kHostLeaders}
          : std::vector<HierarchicalAlgorithm>{HierarchicalAlgorithm::kShardedHosts};
  for (HierarchicalAlgorithm algorithm : algorithms) {
    HierarchicalOptions options;
    // Real hosts: the communicator finds them itself (0 = the real hosts).
    options.ranks_per_host = per_host_env != nullptr ? 0 : per_host;
    options.algorithm = algorithm;
    auto hierarchical = HierarchicalCommunicator::Create(world, options).value();
    for (int64_t mb : {1, 16, 64}) {
      const int64_t count = mb * (1 << 20) / 4;
      std::vector<float> send(count, 1.0f), recv(count, 0.0f);
      auto hier = [&] {
        Check(hierarchical->AllReduce(send.data(), recv.data(), count, DType::kF32, ReduceOp::kSum),
              "hierarchical");
      };
      auto flat = [&] {
        Check(world.AllReduce(send.data(), recv.data(), count, DType::kF32, ReduceOp::kSum),
              "flat");
      };
      // Open MPI's own MPI_Allreduce, the baseline a user would otherwise call.
      auto raw = [&] {
        if (MPI_Allreduce(send.data(), recv.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                          world.comm()) != MPI_SUCCESS) {
          Check(Internal("MPI_Allreduce failed"), "raw");
        }
      };
      const std::string name = "hierarchical/" + std::string(HierarchicalAlgorithmName(algorithm)) +
                               "/" + std::to_string(hosts) + where + "x" +
                               std::to_string(per_host) + "/" + std::to_string(mb) + "MB/f32/np" +
                               std::to_string(n);
      const int samples = mb >= 64 ? 5 : 9, batch = mb == 1 ? 10 : 1;
      if (algorithm == HierarchicalAlgorithm::kAuto && hierarchical->tuning()) {
        // A program's first calls of a size measure the forms (hierarchical_communicator.h):
        // let them pass, then time what auto settled on.
        for (int i = 0; i < 3 * kTuningTrials && hierarchical->TunedAlgorithm(count, DType::kF32) ==
                                                     HierarchicalAlgorithm::kAuto;
             ++i) {
          hier();
        }
        if (world.rank() == 0) {
          std::fprintf(stderr, "%s: auto chose %s\n", name.c_str(),
                       HierarchicalAlgorithmName(hierarchical->TunedAlgorithm(count, DType::kF32)));
        }
      }
      Compare(name, hier, flat, samples, batch);
      if (per_host_env != nullptr) Compare(name + "/vs-MPI_Allreduce", hier, raw, samples, batch);
    }
  }
}

void Nonblocking(int n) {
  std::unique_ptr<MpiCommunicator> blocking = Duplicate(MPI_COMM_WORLD);
  std::unique_ptr<MpiCommunicator> bounded = Duplicate(MPI_COMM_WORLD);
  Check(blocking->SetTimeout(0), "SetTimeout");
  Check(bounded->SetTimeout(3600), "SetTimeout");
  for (int64_t bytes : {int64_t{1} << 10, int64_t{1} << 20, int64_t{16} << 20}) {
    const int64_t count = bytes / 4;
    const std::string size =
        bytes < (1 << 20) ? std::to_string(bytes >> 10) + "KB" : std::to_string(bytes >> 20) + "MB";
    const int samples = bytes >= (16 << 20) ? 7 : 11;
    const int batch = bytes <= 1024 ? 500 : bytes <= (1 << 20) ? 20 : 1;
    std::vector<float> send(count, 1.0f), recv(count, 0.0f);
    auto allreduce = [&](MpiCommunicator* c) {
      return [&, c] {
        Check(c->AllReduce(send.data(), recv.data(), count, DType::kF32, ReduceOp::kSum),
              "AllReduce");
      };
    };
    Compare("nonblocking/allreduce/" + size + "/f32/np" + std::to_string(n),
            allreduce(bounded.get()), allreduce(blocking.get()), samples, batch);
    const std::vector<int64_t> counts(n, count / n);
    auto alltoall = [&](MpiCommunicator* c) {
      return [&, c] {
        Check(c->AllToAllV(send.data(), counts, {}, recv.data(), counts, {}, DType::kF32),
              "AllToAllV");
      };
    };
    Compare("nonblocking/alltoall/" + size + "/f32/np" + std::to_string(n), alltoall(bounded.get()),
            alltoall(blocking.get()), samples, batch);
  }
}

// One small all-reduce through Communicator (checks, call lock) vs the raw MPI call.
void Small(MpiCommunicator& world, int n) {
  for (int64_t count : {int64_t{2}, int64_t{256}}) {
    std::vector<float> send(count, 1.0f), recv(count, 0.0f);
    const std::string size = count == 2 ? "8B" : "1KB";
    Compare(
        "small/allreduce/" + size + "/f32/np" + std::to_string(n),
        [&] {
          Check(world.AllReduce(send.data(), recv.data(), count, DType::kF32, ReduceOp::kSum),
                "AllReduce");
        },
        [&] {
          MPI_Allreduce(send.data(), recv.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                        world.comm());
        },
        11, 2000);
  }
}

// `only`: run just the section of that name (bucketed, hierarchical, nonblocking, small).
void Run(const std::string& only) {
  Check(InitWorld(), "InitWorld");
  const int n = WorldSize().value();
  auto wanted = [&](const char* section) { return only.empty() || only == section; };
  {
    MpiCommunicator& world = *MpiCommRegistry::Global().World().value();
    if (wanted("bucketed")) {
      Bucketed(world, n, 1024, 64, "1-64KB");
      Bucketed(world, n, 256, 16, "0.25-4KB");
    }
    if (wanted("hierarchical")) Hierarchical(world, n);
    if (wanted("nonblocking")) Nonblocking(n);
    if (wanted("small")) Small(world, n);
  }
  Check(FinalizeWorld(), "FinalizeWorld");
}

}  // namespace
}  // namespace tessera::comm

int main(int argc, char** argv) {
  tessera::comm::Run(argc > 1 ? argv[1] : "");
  return 0;
}
