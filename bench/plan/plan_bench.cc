// Plan-mode benchmark: the 20-op MLP forward of tests/plan (small tensors) compiled into a
// plan, against the same program replayed op by op through eager::Apply, in one run.
// JSON lines, medians over repetitions:
//   plan_mlp_block_over_lower_bound  packed register block / max live bytes (target <= 1.1)
//   plan_mlp_step_us                 plan step time; baseline: eager step (target ratio <= 0.8)
// for broadcast weights ("b") and a split weight pair that adds boxing ("split").
// Run with bench/plan/run.sh (mpirun -np 2).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/plan/bench_world.h"
#include "core/comm/mpi_world.h"
#include "core/plan/compile.h"
#include "core/plan/plan_exec.h"
#include "core/tensor/creation.h"
#include "tests/plan/mlp_program.h"

namespace tessera {
namespace {

constexpr int kReps = 15;
constexpr int kIters = 200;

template <typename F>
double MedianMicros(F&& step) {
  std::vector<double> us;
  for (int r = 0; r < kReps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kIters; ++i) step();
    const auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kIters);
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

using bench::Fail;

void Bench(const char* name, const plan_test::MlpConfig& config, int rank, int world) {
  Result<plan::Program> program = plan_test::BuildMlp(config);
  if (!program.ok()) Fail(program.status(), "BuildMlp");
  auto plan = plan::Compile(program.value());
  if (!plan.ok()) Fail(plan.status(), "Compile");
  auto instance = plan::PlanInstance::Create(plan.value());
  if (!instance.ok()) Fail(instance.status(), "PlanInstance::Create");
  plan::PlanInstance& run = *instance.value();
  const infer::TensorMeta& x_meta = program->value(program->inputs()[0]).meta;
  auto x = tensor::Randn(x_meta.shape, x_meta.dtype, 7, x_meta.placement, x_meta.nd_sbp);
  if (!x.ok()) Fail(x.status(), "Randn");
  const std::vector<tensor::Tensor> inputs = {x.value()};
  const kernels::LocalTensor local = x.value()->local();

  const double plan_us = MedianMicros([&] {
    Status s = run.Run(&local, 1);
    if (!s.ok()) Fail(s, "Run");
  });
  const double eager_us = MedianMicros([&] {
    auto outs = plan_test::RunEager(program.value(), inputs);
    if (!outs.ok()) Fail(outs.status(), "RunEager");
  });
  const plan::PlanStats stats = run.stats();
  const plan::PlanStats::PerMemCase& mem = stats.mem_cases[0];
  if (rank != 0) return;
  std::printf(
      "{\"bench\": \"plan_mlp_block_over_lower_bound\", \"case\": \"%s\", \"ranks\": %d, "
      "\"value\": %lld, \"unit\": \"bytes\", \"baseline\": %lld, \"ratio\": %.3f, "
      "\"no_reuse_bytes\": %lld, \"registers\": %lld, \"boxing_steps\": %lld}\n",
      name, world, static_cast<long long>(mem.block_bytes), static_cast<long long>(mem.lower_bound),
      static_cast<double>(mem.block_bytes) / static_cast<double>(mem.lower_bound),
      static_cast<long long>(mem.no_reuse_bytes), static_cast<long long>(stats.num_registers),
      static_cast<long long>(stats.num_boxing_steps));
  std::printf(
      "{\"bench\": \"plan_mlp_step_us\", \"case\": \"%s\", \"ranks\": %d, \"value\": %.2f, "
      "\"unit\": \"us\", \"baseline\": %.2f, \"ratio\": %.3f, \"baseline_is\": \"eager step\", "
      "\"allocator_calls_per_run\": %lld}\n",
      name, world, plan_us, eager_us, plan_us / eager_us,
      static_cast<long long>(stats.allocator_calls_last_run));
  std::fflush(stdout);
}

}  // namespace
}  // namespace tessera

int main() {
  using namespace tessera;
  const bench::BenchWorld w = bench::InitBenchWorld("plan_bench");
  const Placement& p = w.placement;
  const int rank = w.rank;
  const int world = w.size;
  plan_test::MlpConfig config{p, plan_test::Broadcast(p), plan_test::Broadcast(p)};
  config.batch = 16;
  config.in = 32;
  config.width = 32;
  config.out = 16;
  Bench("b", config, rank, world);
  config.w1_nd_sbp = NdSbp::Parse("S(1)").value();
  config.w2_nd_sbp = NdSbp::Parse("S(0)").value();
  Bench("split", config, rank, world);
  return comm::FinalizeWorld().ok() ? 0 : 1;
}
