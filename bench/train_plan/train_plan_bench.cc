// Training step time, eager vs plan mode. A 2-layer MLP (tests/optim/mlp.h; f32, batch
// S(0) over every rank, weights B: data parallel) takes training steps in two modes:
//   eager  ZeroGrad, the forward on autograd's tape, Backward, Optimizer::Step (per tensor);
//   plan   the same captured once into one plan (forward, backward and
//          Optimizer::CaptureStep), then PlanInstance::Run per step.
// for SGD with momentum and for AdamW. Modes alternate round by round in one process, so
// load changes hit both; each prints one JSON line (rank 0's clock) with the median
// seconds per step over all rounds, and the plan's register memory on this rank: the
// packed block (lifetime reuse), the registers laid end to end (no reuse), the lower
// bound (most bytes live at one step), and the warm run's heap allocations.
// With `cuda` as the fourth argument (a --config=cuda build) the model lives on cuda
// placements over the same ranks; each timed step then ends with a wait for the device,
// and the plan replays as a CUDA graph where it has no boxing step (core/plan/plan_exec.h;
// the JSON line counts graphs and their launches).
// Usage: train_plan_bench [iterations] [hidden] [rounds] [cpu|cuda]
//        (under mpirun; bench/train_plan/run.sh)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/autograd/backward.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_world.h"
#include "core/optim/optimizer.h"
#include "core/plan/capture.h"
#include "core/plan/compile.h"
#include "core/plan/plan_exec.h"
#include "core/tensor/cuda_device.h"
#include "tests/optim/mlp.h"

namespace tessera {
namespace {

using Clock = std::chrono::steady_clock;
using Batch = std::pair<tensor::Tensor, tensor::Tensor>;

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
template <typename T>
T Get(Result<T> r, const char* what) {
  Check(r.status(), what);
  return std::move(r).value();
}

// Set from the command line: the device the model lives on.
DeviceType g_device = DeviceType::kCpu;

optim_test::MlpConfig Config(int64_t hidden) {
  optim_test::MlpConfig c = optim_test::DataParallel(DType::kF32);
  c.placement = Placement::Make(g_device, c.placement.ranks(), c.placement.hierarchy()).value();
  c.batch = 256;
  c.in = 256;
  c.hidden = hidden;
  c.classes = 256;
  return c;
}

optim::OptimizerOptions Options(optim::Algorithm a) {
  optim::OptimizerOptions o;
  o.algorithm = a;
  o.lr = a == optim::Algorithm::kSgd ? 0.01 : 1e-3;
  o.momentum = a == optim::Algorithm::kSgd ? 0.9 : 0;
  o.weight_decay = a == optim::Algorithm::kAdamW ? 0.01 : 0;
  return o;
}

void Barrier() { Check(comm::MpiCommRegistry::Global().World().value()->Barrier(), "Barrier"); }

// The end of a timed step: on cuda, the device has finished the step's work.
void WaitForDevice() {
  if (g_device != DeviceType::kCuda) return;
  Check(tensor::SynchronizeDevice(*Get(tensor::LocalCudaDevice(), "LocalCudaDevice")),
        "SynchronizeDevice");
}

// Seconds per step of `iterations` eager steps, after a warm-up.
std::vector<double> EagerRound(optim_test::Mlp& mlp, optim::Optimizer& opt,
                               const std::vector<Batch>& batches, int iterations) {
  std::vector<double> t;
  for (int i = 0; i < iterations + 2; ++i) {
    const Batch& b = batches[i % batches.size()];
    Barrier();
    const Clock::time_point t0 = Clock::now();
    Check(opt.ZeroGrad(), "ZeroGrad");
    autograd::Variable loss = Get(mlp.Loss(b.first, b.second), "Loss");
    Check(autograd::Backward({loss}, {}), "Backward");
    Check(opt.Step(), "Step");
    WaitForDevice();
    if (i >= 2) t.push_back(Since(t0));
  }
  return t;
}

std::vector<double> PlanRound(plan::PlanInstance& instance, const std::vector<Batch>& batches,
                              int iterations) {
  std::vector<double> t;
  for (int i = 0; i < iterations + 2; ++i) {
    const Batch& b = batches[i % batches.size()];
    Barrier();
    const Clock::time_point t0 = Clock::now();
    Check(instance.Run({b.first, b.second}), "PlanInstance::Run");
    WaitForDevice();
    if (i >= 2) t.push_back(Since(t0));
  }
  return t;
}

void Bench(optim::Algorithm algorithm, int iterations, int64_t hidden, int rounds, int rank,
           int size) {
  const optim_test::MlpConfig c = Config(hidden);
  const optim::OptimizerOptions o = Options(algorithm);
  optim_test::Mlp eager = Get(optim_test::Mlp::Make(c), "Mlp::Make");
  auto eager_opt = Get(optim::Optimizer::Create(eager.Params(), o), "Optimizer::Create");
  optim_test::Mlp planned = Get(optim_test::Mlp::Make(c), "Mlp::Make");
  auto plan_opt = Get(optim::Optimizer::Create(planned.Params(), o), "Optimizer::Create");
  std::vector<Batch> batches;
  for (int s = 1; s <= 4; ++s) batches.push_back(Get(eager.Batch(s), "Batch"));

  Check(plan::BeginCapture(), "BeginCapture");
  tensor::Tensor x =
      Get(plan::CapturePlaceholder("x", Shape{c.batch, c.in}, c.dtype, c.placement, c.data_sbp),
          "CapturePlaceholder");
  tensor::Tensor y =
      Get(plan::CapturePlaceholder("labels", Shape{c.batch}, DType::kI32, c.placement, c.data_sbp),
          "CapturePlaceholder");
  autograd::Variable loss = Get(planned.Loss(x, y), "Loss");
  Check(autograd::Backward({loss}, {}), "Backward");
  Check(plan_opt->CaptureStep(), "CaptureStep");
  std::unique_ptr<plan::Program> program = Get(plan::EndCapture({loss.value}), "EndCapture");
  const Clock::time_point tc = Clock::now();
  auto compiled = Get(plan::Compile(*program), "Compile");
  auto instance = Get(plan::PlanInstance::Create(compiled), "PlanInstance::Create");
  const double compile_s = Since(tc);

  std::vector<double> eager_t, plan_t;
  for (int r = 0; r < rounds; ++r) {
    for (double t : EagerRound(eager, *eager_opt, batches, iterations)) eager_t.push_back(t);
    for (double t : PlanRound(*instance, batches, iterations)) plan_t.push_back(t);
  }
  const plan::PlanStats stats = instance->stats();
  if (rank != 0) return;
  const plan::PlanStats::PerMemCase& m = stats.mem_cases.front();
  const double eager_s = Median(eager_t), plan_s = Median(plan_t);
  std::printf(
      "{\"bench\": \"train_plan/%s%s/np%d\", \"batch\": %lld, \"in\": %lld, \"hidden\": %lld, "
      "\"classes\": %lld, \"dtype\": \"f32\", \"rounds\": %d, \"iterations\": %d, "
      "\"eager_step_s\": %.6f, \"plan_step_s\": %.6f, \"plan_over_eager\": %.3f, "
      "\"compile_s\": %.4f, \"ops\": %zu, \"steps\": %lld, \"boxing_steps\": %lld, "
      "\"registers\": %lld, \"register_block_bytes\": %lld, \"register_no_reuse_bytes\": %lld, "
      "\"register_lower_bound_bytes\": %lld, \"heap_allocations_warm_run\": %lld, "
      "\"allocator_calls_warm_run\": %lld, \"cuda_graphs\": %lld, \"cuda_graph_launches\": %lld}\n",
      optim::AlgorithmName(algorithm), g_device == DeviceType::kCuda ? "/cuda" : "", size,
      static_cast<long long>(c.batch), static_cast<long long>(c.in), static_cast<long long>(hidden),
      static_cast<long long>(c.classes), rounds, iterations, eager_s, plan_s, plan_s / eager_s,
      compile_s, program->ops().size(), static_cast<long long>(stats.num_steps),
      static_cast<long long>(stats.num_boxing_steps), static_cast<long long>(stats.num_registers),
      static_cast<long long>(m.block_bytes), static_cast<long long>(m.no_reuse_bytes),
      static_cast<long long>(m.lower_bound),
      static_cast<long long>(stats.heap_allocations_last_run),
      static_cast<long long>(stats.allocator_calls_last_run),
      static_cast<long long>(stats.cuda_graphs), static_cast<long long>(stats.cuda_graph_launches));
  std::fflush(stdout);
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  using namespace tessera;
  Check(comm::InitWorld(), "InitWorld");
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 10;
  const int64_t hidden = argc > 2 ? std::atoll(argv[2]) : 1024;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  if (argc > 4 && std::string(argv[4]) == "cuda") {
    g_device = DeviceType::kCuda;
  } else if (argc > 4 && std::string(argv[4]) != "cpu") {
    std::fprintf(stderr, "train_plan_bench: the device is cpu or cuda, not %s\n", argv[4]);
    return 2;
  }
  const int rank = comm::WorldRank().value(), size = comm::WorldSize().value();
  for (optim::Algorithm a : {optim::Algorithm::kSgd, optim::Algorithm::kAdamW}) {
    Bench(a, iterations, hidden, rounds, rank, size);
  }
  Check(comm::FinalizeWorld(), "FinalizeWorld");
  return 0;
}
