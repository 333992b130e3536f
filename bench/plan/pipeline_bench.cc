// Pipelined plan inputs: a pusher thread copies a large input (16 MB per rank) into the
// plan with Push while a runner thread runs the steps on the previous one with RunPushed.
// With input_register_num 2 the copy of set k + 1 overlaps the run of set k; with 1 they
// take turns. Both are measured with the same two threads, interleaved, in one run.
// JSON lines:
//   plan_pipeline_push_us       one Push alone (the copy); baseline: one RunPushed alone
//   plan_pipeline_steps_per_s   input_register_num 2; baseline: input_register_num 1;
//                               ratio > 1 is the overlap gained ("ideal" is
//                               (push + run) / max(push, run))
// The steps are reduce_sum over axis 0, then relu: one read of the input, like the copy,
// so neither side dominates. Needs a free core per thread: run it on one rank of a 2-core
// machine (bench/plan/run.sh does).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/plan/bench_world.h"
#include "core/comm/mpi_world.h"
#include "core/plan/compile.h"
#include "core/plan/plan_exec.h"
#include "core/plan/program.h"

namespace tessera {
namespace {

constexpr int64_t kLocalRows = 2048;
constexpr int64_t kCols = 2048;  // 2048 x 2048 f32 = 16 MB per rank
constexpr int kSteps = 100;      // pipelined steps per repetition
constexpr int kReps = 9;

using bench::Fail;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

plan::Program BuildProgram(const Placement& placement, int world) {
  plan::Program p;
  auto x = p.AddInput("x", Shape({kLocalRows * world, kCols}), DType::kF32, placement);
  if (!x.ok()) Fail(x.status(), "AddInput");
  auto sum = p.AddOp("reduce_sum", {x.value()}, {{"axes", op::AttrValue::Ints({0})}});
  if (!sum.ok()) Fail(sum.status(), "reduce_sum");
  auto y = p.AddOp("relu", {sum.value()[0]});
  if (!y.ok()) Fail(y.status(), "relu");
  Status s = p.MarkOutput(y.value()[0]);
  if (!s.ok()) Fail(s, "MarkOutput");
  return p;
}

std::unique_ptr<plan::PlanInstance> Instance(const plan::Program& program, int slots) {
  auto plan = plan::Compile(program, plan::CompileOptions{slots});
  if (!plan.ok()) Fail(plan.status(), "Compile");
  auto instance = plan::PlanInstance::Create(plan.value());
  if (!instance.ok()) Fail(instance.status(), "PlanInstance::Create");
  return std::move(instance).value();
}

// kSteps sets through a pusher and a runner thread: steps per second.
double Pipeline(plan::PlanInstance& run, const kernels::LocalTensor& input) {
  MPI_Barrier(MPI_COMM_WORLD);
  const Clock::time_point t0 = Clock::now();
  std::thread pusher([&] {
    for (int i = 0; i < kSteps; ++i) {
      Status s = run.Push(&input, 1);
      if (!s.ok()) Fail(s, "Push");
    }
  });
  for (int i = 0; i < kSteps; ++i) {
    Status s = run.RunPushed();
    if (!s.ok()) Fail(s, "RunPushed");
  }
  pusher.join();
  return kSteps / Seconds(t0);
}

}  // namespace
}  // namespace tessera

int main() {
  using namespace tessera;
  const bench::BenchWorld w = bench::InitBenchWorld("pipeline_bench");
  const int rank = w.rank;
  const int world = w.size;
  const plan::Program program = BuildProgram(w.placement, world);

  std::vector<float> data(static_cast<size_t>(kLocalRows * kCols));
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i % 97) - 48.0f;
  const kernels::LocalTensor input{data.data(), Shape({kLocalRows, kCols}), DType::kF32};

  std::unique_ptr<plan::PlanInstance> single = Instance(program, 1);
  std::unique_ptr<plan::PlanInstance> dual = Instance(program, 2);
  // Warm-up, and each half alone on one thread.
  std::vector<double> push_s, run_s;
  for (int i = 0; i < 2 * kReps; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    Clock::time_point t0 = Clock::now();
    Status s = single->Push(&input, 1);
    if (!s.ok()) Fail(s, "Push");
    push_s.push_back(Seconds(t0));
    t0 = Clock::now();
    s = single->RunPushed();
    if (!s.ok()) Fail(s, "RunPushed");
    run_s.push_back(Seconds(t0));
  }
  const double push_us = Median(push_s) * 1e6;
  const double run_us = Median(run_s) * 1e6;

  // Interleaved so load changes on a shared machine hit both alike; the first round (page
  // faults of the second slot) is not counted.
  Pipeline(*single, input);
  Pipeline(*dual, input);
  std::vector<double> sps1, sps2;
  for (int r = 0; r < kReps; ++r) {
    sps1.push_back(Pipeline(*single, input));
    sps2.push_back(Pipeline(*dual, input));
  }
  const double one = Median(sps1);
  const double two = Median(sps2);
  const plan::PlanStats stats = dual->stats();
  if (rank == 0) {
    const double mb = static_cast<double>(kLocalRows * kCols * 4) / (1 << 20);
    std::printf(
        "{\"bench\": \"plan_pipeline_push_us\", \"ranks\": %d, \"input_mb\": %.0f, \"value\": "
        "%.1f, \"unit\": \"us\", \"baseline\": %.1f, \"ratio\": %.3f, \"baseline_is\": "
        "\"RunPushed alone\"}\n",
        world, mb, push_us, run_us, push_us / run_us);
    std::printf(
        "{\"bench\": \"plan_pipeline_steps_per_s\", \"ranks\": %d, \"input_mb\": %.0f, "
        "\"value\": %.1f, \"unit\": \"steps/s\", \"baseline\": %.1f, \"ratio\": %.3f, "
        "\"baseline_is\": \"input_register_num 1\", \"ideal\": %.3f, "
        "\"allocator_calls_last_run\": %lld, \"allocator_calls_last_push\": %lld}\n",
        world, mb, two, one, two / one, (push_us + run_us) / std::max(push_us, run_us),
        static_cast<long long>(stats.allocator_calls_last_run),
        static_cast<long long>(stats.allocator_calls_last_push));
    std::fflush(stdout);
  }
  single.reset();
  dual.reset();
  return comm::FinalizeWorld().ok() ? 0 : 1;
}
