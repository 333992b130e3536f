// How much of the data-parallel gradient all-reduce the fused optimizer hides behind
// backward. A 2-layer MLP (tests/optim/mlp.h; f32, batch S(0), weights B) trains for a
// number of iterations in three modes:
//   per_tensor      the update op per parameter; the P gradient is all-reduced by boxing
//                   inside Step, after backward (nothing overlaps);
//   fused_1bucket   one bucket: its all-reduce starts at the last gradient, when
//                   backward is over (the no-overlap fused baseline);
//   fused_buckets   buckets of bucket_bytes: the second layer's bucket starts reducing
//                   while the first layer's backward still runs, progressed by MPI_Test
//                   from the gradient hooks;
//   fused_buckets_progress_thread  the same with a helper thread calling MPI_Test
//                   every ~50 us while a reduction is in flight;
//   fused_zero1     the same buckets with ZeRO-1 (the reduce-scatter started from the
//                   hooks, the all-gather blocking in Step; a 1/np share of the state).
// The modes run interleaved for several rounds; each prints one JSON line (rank 0's
// clocks) of medians over the rounds: median seconds per iteration of forward+backward
// and of Step, and the fused modes' OverlapStats per iteration (in_flight = start to observed
// completion, step_wait = Step's wait, hidden_fraction = 1 - step_wait / in_flight). A last line
// gives the median blocking MPI all-reduce of all the gradients at once, for scale. Usage:
// optim_bench [iterations] [hidden] [bucket_bytes] [rounds]   (under mpirun; bench/optim/run.sh)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_world.h"
#include "core/optim/optimizer.h"
#include "tests/optim/mlp.h"

namespace tessera {
namespace {

using Clock = std::chrono::steady_clock;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}
double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void Check(const Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  std::exit(1);
}

struct Mode {
  const char* name;
  bool fused;
  int64_t bucket_bytes;
  bool zero1 = false;
  bool progress_thread = false;
};

// One round of a mode: medians over its iterations, and its stats per iteration.
struct Sample {
  double fwd_bwd = 0, step = 0, in_flight = 0, step_wait = 0, hidden = 0;
  int64_t buckets = 0, started = 0, state_bytes = 0;
};

Sample Run(const Mode& mode, int iterations, int64_t hidden) {
  optim_test::MlpConfig c = optim_test::DataParallel(DType::kF32);
  c.batch = 256;
  c.in = 256;
  c.hidden = hidden;
  c.classes = 256;
  Result<optim_test::Mlp> mlp = optim_test::Mlp::Make(c);
  Check(mlp.status(), "Mlp::Make");
  optim::OptimizerOptions o;
  o.algorithm = optim::Algorithm::kAdam;
  o.lr = 1e-3;
  o.fused = mode.fused;
  o.bucket_bytes = mode.bucket_bytes;
  o.zero1 = mode.zero1;
  o.progress_thread = mode.progress_thread;
  auto opt = optim::Optimizer::Create(mlp->Params(), o);
  Check(opt.status(), "Optimizer::Create");
  std::vector<double> fb, step;
  optim::OverlapStats before;
  const int warmup = 3;
  for (int i = 0; i < warmup + iterations; ++i) {
    if (i == warmup) before = (*opt)->overlap_stats();
    Check((*opt)->ZeroGrad(), "ZeroGrad");
    Check(comm::MpiCommRegistry::Global().World().value()->Barrier(), "Barrier");
    Clock::time_point t0 = Clock::now();
    Check(mlp->ForwardBackward(i + 1), "ForwardBackward");
    const double t_fb = Since(t0);
    t0 = Clock::now();
    Check((*opt)->Step(), "Step");
    if (i >= warmup) {
      fb.push_back(t_fb);
      step.push_back(Since(t0));
    }
  }
  const optim::OverlapStats after = (*opt)->overlap_stats();
  optim::OverlapStats d;
  d.in_flight_seconds = after.in_flight_seconds - before.in_flight_seconds;
  d.step_wait_seconds = after.step_wait_seconds - before.step_wait_seconds;
  Sample r;
  r.fwd_bwd = Median(fb);
  r.step = Median(step);
  r.in_flight = d.in_flight_seconds / iterations;
  r.step_wait = d.step_wait_seconds / iterations;
  r.hidden = d.hidden_fraction();
  r.buckets = after.buckets;
  r.started = (after.started_in_backward - before.started_in_backward) / iterations;
  r.state_bytes = after.state_bytes;
  return r;
}

// Medians over rounds of each field, printed as one JSON line.
void Report(const Mode& mode, const std::vector<Sample>& rounds, int iterations, int64_t hidden,
            int size) {
  auto med = [&](double Sample::*field) {
    std::vector<double> v;
    for (const Sample& r : rounds) v.push_back(r.*field);
    return Median(v);
  };
  const Sample& any = rounds.front();
  std::printf(
      "{\"bench\": \"optim/%s/np%d\", \"hidden\": %lld, \"bucket_bytes\": %lld, "
      "\"buckets\": %lld, \"rounds\": %zu, \"iterations\": %d, \"fwd_bwd_s\": %.6f, "
      "\"step_s\": %.6f, \"allreduces_started_in_backward_per_iteration\": %lld, "
      "\"in_flight_s\": %.6f, \"step_wait_s\": %.6f, \"hidden_fraction\": %.3f, "
      "\"state_bytes_per_rank\": %lld}\n",
      mode.name, size, static_cast<long long>(hidden), static_cast<long long>(mode.bucket_bytes),
      static_cast<long long>(any.buckets), rounds.size(), iterations, med(&Sample::fwd_bwd),
      med(&Sample::step), static_cast<long long>(any.started), med(&Sample::in_flight),
      med(&Sample::step_wait), med(&Sample::hidden), static_cast<long long>(any.state_bytes));
  std::fflush(stdout);
}

// The blocking all-reduce of every gradient at once (the parameters' f32 elements).
void BlockingAllReduce(int iterations, int64_t hidden, int rank, int size) {
  const int64_t n = 256 * hidden + hidden + hidden * 256 + 256;
  std::vector<float> buffer(n, 1.0f);
  comm::MpiCommunicator* world = comm::MpiCommRegistry::Global().World().value();
  std::vector<double> t;
  for (int i = 0; i < iterations + 3; ++i) {
    Check(world->Barrier(), "Barrier");
    const Clock::time_point t0 = Clock::now();
    Check(world->AllReduce(buffer.data(), buffer.data(), n, DType::kF32, comm::ReduceOp::kSum),
          "AllReduce");
    if (i >= 3) t.push_back(Since(t0));
  }
  if (rank != 0) return;
  std::printf(
      "{\"bench\": \"optim/blocking_allreduce_all_grads/np%d\", \"bytes\": %lld, "
      "\"allreduce_s\": %.6f}\n",
      size, static_cast<long long>(n * 4), Median(t));
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  using namespace tessera;
  Check(comm::InitWorld(), "InitWorld");
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20;
  const int64_t hidden = argc > 2 ? std::atoll(argv[2]) : 1024;
  const int64_t bucket = argc > 3 ? std::atoll(argv[3]) : int64_t{1} << 20;
  const int rank = comm::WorldRank().value(), size = comm::WorldSize().value();
  const Mode modes[] = {{"per_tensor", false, int64_t{25} << 20},
                        {"fused_1bucket", true, int64_t{1} << 40},
                        {"fused_buckets", true, bucket},
                        {"fused_buckets_progress_thread", true, bucket, false, true},
                        {"fused_zero1", true, bucket, true}};
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 5;
  // Modes interleaved round by round, so a change in the machine's load hits them alike.
  std::vector<std::vector<Sample>> samples(std::size(modes));
  for (int r = 0; r < rounds; ++r) {
    for (size_t m = 0; m < std::size(modes); ++m)
      samples[m].push_back(Run(modes[m], iterations, hidden));
  }
  if (rank == 0) {
    for (size_t m = 0; m < std::size(modes); ++m)
      Report(modes[m], samples[m], iterations, hidden, size);
  }
  BlockingAllReduce(iterations, hidden, rank, size);
  Check(comm::FinalizeWorld(), "FinalizeWorld");
  return 0;
}
