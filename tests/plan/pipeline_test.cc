// Pipelined inputs (CompileOptions::input_register_num > 1) under mpirun (1-4 ranks):
// input sets pushed ahead give the same outputs as eager, in order; a pusher thread racing
// a runner thread keeps every output right; the memory plan holds the extra input copies;
// warm Push and RunPushed allocate nothing; a Push that boxes is ordered after the runs
// before it; Close and the destructor wake blocked callers; bad options and calls fail
// with clear messages instead of hanging.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "core/memory/heap_counter.h"
#include "core/plan/compile.h"
#include "core/plan/mem_plan.h"
#include "core/plan/plan_exec.h"
#include "core/plan/program.h"
#include "core/tensor/creation.h"
#include "tests/plan/mlp_program.h"
#include "tests/plan/plan_test_util.h"

namespace tessera::plan {
namespace {

using plan_test::Broadcast;
using plan_test::BuildMlp;
using plan_test::Data;
using plan_test::DenseLayer;
using plan_test::ExpectNear;
using plan_test::Host;
using plan_test::MakeDenseLayer;
using plan_test::MlpConfig;
using plan_test::Nd;
using plan_test::RunEager;
using plan_test::WorldPlacement;
using plan_test::WorldSize;

std::shared_ptr<const CompiledPlan> MustCompile(const Program& program, int input_register_num) {
  Result<std::shared_ptr<const CompiledPlan>> plan =
      Compile(program, CompileOptions{input_register_num});
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? plan.value() : nullptr;
}

std::unique_ptr<PlanInstance> MustCreate(const Program& program, int input_register_num) {
  std::shared_ptr<const CompiledPlan> plan = MustCompile(program, input_register_num);
  if (plan == nullptr) return nullptr;
  Result<std::unique_ptr<PlanInstance>> instance = PlanInstance::Create(plan);
  EXPECT_TRUE(instance.ok()) << instance.status().ToString();
  return instance.ok() ? std::move(instance).value() : nullptr;
}

std::vector<float> LocalValues(const kernels::LocalTensor& t) {
  const float* p = static_cast<const float*>(t.data);
  return std::vector<float>(p, p + t.shape.num_elements());
}

// Dense-layer input set i: distinct for every i, so a run that read a stale or foreign slot
// shows.
std::vector<float> DenseInput(const DenseLayer& d, int i) {
  std::vector<float> x(static_cast<size_t>(d.m * d.k));
  for (size_t j = 0; j < x.size(); ++j) {
    x[j] = std::sin(0.37f * static_cast<float>(i) + 0.11f * static_cast<float>(j)) * 2.0f;
  }
  return x;
}

// The dense layer's inputs (as S(0) tensors, the program's nd-sbp, and as B tensors that
// need boxing) and this rank's piece of each expected output, all prepared before any
// thread starts so the threads issue no collectives of their own.
struct DenseSets {
  std::vector<tensor::Tensor> x;        // the program's nd-sbp
  std::vector<tensor::Tensor> x_boxed;  // broadcast: Push boxes them
  std::vector<kernels::LocalTensor> local;
  std::vector<std::vector<float>> want_local;  // empty where the rank holds no piece
};

DenseSets MakeDenseSets(const DenseLayer& d, int count) {
  DenseSets s;
  const infer::TensorMeta& xm = d.program.value(d.x).meta;
  const infer::TensorMeta& ym = d.program.value(d.y).meta;
  for (int i = 0; i < count; ++i) {
    const std::vector<float> x = DenseInput(d, i);
    s.x.push_back(
        tensor::FromLogical(x.data(), xm.shape, DType::kF32, xm.placement, xm.nd_sbp).value());
    s.x_boxed.push_back(
        tensor::FromLogical(x.data(), xm.shape, DType::kF32, xm.placement, Broadcast(xm.placement))
            .value());
    s.local.push_back(s.x.back()->local());
    const std::vector<float> y = d.Forward(x);
    tensor::Tensor yt =
        tensor::FromLogical(y.data(), ym.shape, DType::kF32, ym.placement, ym.nd_sbp).value();
    s.want_local.push_back(yt->has_local() ? LocalValues(yt->local()) : std::vector<float>());
  }
  return s;
}

// The 5 x 3 -> 4 dense layer and `count` input sets for it. On error (reported) the
// program is empty, so compiling it fails.
struct DenseCase {
  DenseLayer layer;
  DenseSets sets;
};

DenseCase MakeDenseCase(int count) {
  DenseCase c;
  Result<DenseLayer> layer = MakeDenseLayer(WorldPlacement(), 5, 3, 4);
  EXPECT_TRUE(layer.ok()) << layer.status().ToString();
  if (!layer.ok()) return c;
  c.layer = std::move(layer).value();
  c.sets = MakeDenseSets(c.layer, count);
  return c;
}

// This rank's piece of output 0 after the last run, against `want` (no communication).
void ExpectLocalOutput(const PlanInstance& run, const std::vector<float>& want, const char* what) {
  Result<PlanInstance::OutputView> view = run.Output(0);
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  if (!view->has_local) {
    EXPECT_TRUE(want.empty()) << what;
    return;
  }
  ExpectNear(LocalValues(view->local), want, what);
}

// --- pushed ahead vs eager ---

// Pushes every slot full, then alternates RunPushed and Push; each run's outputs must equal
// eager's for that set. Even sets are pushed as eager tensors, odd ones as local pieces.
void CheckPushedAhead(const MlpConfig& config, int slots) {
  Result<Program> program = BuildMlp(config);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  std::shared_ptr<const CompiledPlan> plan = MustCompile(program.value(), slots);
  ASSERT_NE(plan, nullptr);
  EXPECT_NE(plan->ToString().find(std::to_string(slots) + " copies of each input"),
            std::string::npos)
      << plan->ToString();
  if (config.placement.parallel_num() > 1) {
    EXPECT_GT(plan->num_boxing_steps, 0);
  }
  auto instance = PlanInstance::Create(plan).value();
  PlanInstance& run = *instance;
  EXPECT_EQ(run.input_register_num(), slots);

  constexpr int kSets = 7;
  const infer::TensorMeta& xm = program->value(program->inputs()[0]).meta;
  std::vector<std::vector<tensor::Tensor>> xs;
  std::vector<std::vector<std::vector<float>>> want;
  for (int i = 0; i < kSets; ++i) {
    xs.push_back({Data(xm.shape, 300 + i, xm.placement, xm.nd_sbp)});
    Result<std::vector<tensor::Tensor>> eager = RunEager(program.value(), xs.back());
    ASSERT_TRUE(eager.ok()) << eager.status().ToString();
    want.emplace_back();
    for (const tensor::Tensor& t : eager.value()) want.back().push_back(Host(t));
  }
  int pushed = 0;
  auto push = [&](double timeout) {
    const kernels::LocalTensor local = xs[pushed][0]->local();
    Status s = pushed % 2 == 0 ? run.Push(xs[pushed], timeout) : run.Push(&local, 1, timeout);
    if (s.ok()) ++pushed;
    return s;
  };
  while (pushed < slots) ASSERT_TRUE(push(PlanInstance::kWaitForever).ok());
  EXPECT_EQ(run.stats().num_waiting, slots);
  // Every slot is full: a further Push waits, and times out.
  EXPECT_EQ(push(0).code(), StatusCode::kDeadlineExceeded);
  for (int i = 0; i < kSets; ++i) {
    Status s = run.RunPushed();
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(run.num_outputs(), want[i].size());
    for (size_t o = 0; o < want[i].size(); ++o) {
      ExpectNear(Host(run.OutputTensor(o).value()), want[i][o],
                 ("set " + std::to_string(i) + " output " + std::to_string(o)).c_str());
    }
    if (pushed < kSets) {
      ASSERT_TRUE(push(PlanInstance::kWaitForever).ok());
    }
  }
  const PlanStats stats = run.stats();
  EXPECT_EQ(stats.num_runs, kSets);
  EXPECT_EQ(stats.num_pushes, kSets);
  EXPECT_EQ(stats.num_waiting, 0);
  EXPECT_EQ(stats.input_register_num, slots);
}

TEST(PipelineTest, PushedAheadMatchesEager1d) {
  const Placement p = WorldPlacement();
  for (int slots : {2, 3}) {
    SCOPED_TRACE("input_register_num " + std::to_string(slots));
    CheckPushedAhead(MlpConfig{p, Nd("S(1)"), Nd("S(0)")}, slots);
  }
}

TEST(PipelineTest, PushedAheadMatchesEager2d) {
  if (WorldSize() != 4) GTEST_SKIP() << "needs 4 ranks";
  const Placement p = Placement::Parse("cpu:[[0,1],[2,3]]").value();
  for (int slots : {2, 3}) {
    SCOPED_TRACE("input_register_num " + std::to_string(slots));
    CheckPushedAhead(MlpConfig{p, Nd("(B, S(1))"), Nd("(B, S(0))")}, slots);
  }
}

// --- memory plan ---

int64_t RoundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

TEST(PipelineTest, MemoryPlanHoldsInputCopies) {
  const Placement p = WorldPlacement();
  const Program program = BuildMlp(MlpConfig{p, Nd("S(1)"), Nd("S(0)")}).value();
  const ValueId x = program.inputs()[0];
  std::shared_ptr<const CompiledPlan> one = MustCompile(program, 1);
  ASSERT_NE(one, nullptr);
  const MemCasePlan& base = one->memory.mem_cases[0];
  for (int slots : {1, 2, 3, kMaxInputRegisterNum}) {
    SCOPED_TRACE("input_register_num " + std::to_string(slots));
    std::shared_ptr<const CompiledPlan> plan = MustCompile(program, slots);
    ASSERT_NE(plan, nullptr);
    const MemoryPlan& memory = plan->memory;
    ASSERT_TRUE(CheckNoOverlap(memory).ok());
    const int64_t xr = plan->value_registers[x];
    ASSERT_GE(xr, 0);
    // The blob layout, derived here from the local shape: 64-byte headers, 512-byte bodies.
    const Shape& local = plan->local_shapes[x];
    const int64_t header = RoundUp(static_cast<int64_t>(local.ndim()) * 8, 64);
    const int64_t body = RoundUp(local.num_elements() * 4, 512);
    const PlannedRegister& r = memory.registers[xr];
    EXPECT_EQ(r.desc.register_num, slots);
    EXPECT_EQ(r.layout.total_bytes, (header + body) * slots);
    EXPECT_EQ(r.layout.block_bytes, body * slots);
    EXPECT_EQ(r.layout.header_area_bytes, header * slots);
    if (slots > 1) {
      EXPECT_EQ(PackingLifetime(r.desc, memory.last_step), (Lifetime{0, memory.last_step}));
    }
    // Only the input register gains copies; no-reuse and header totals grow by exactly
    // the extra copies.
    int64_t no_reuse = 0;
    for (size_t id = 0; id < memory.registers.size(); ++id) {
      const RegisterDesc& desc = memory.registers[id].desc;
      if (static_cast<int64_t>(id) != xr) {
        EXPECT_EQ(desc.register_num, 1) << desc.name;
      }
      no_reuse += RoundUp(desc.shape.num_elements() * 4, 512) * desc.register_num;
    }
    ASSERT_EQ(memory.mem_cases.size(), 1u);
    const MemCasePlan& mc = memory.mem_cases[0];
    EXPECT_EQ(mc.no_reuse_bytes, no_reuse);
    EXPECT_EQ(mc.no_reuse_bytes - base.no_reuse_bytes, body * (slots - 1));
    EXPECT_EQ(mc.header_bytes - base.header_bytes, header * (slots - 1));
    EXPECT_GE(mc.block_bytes, mc.lower_bound);
    EXPECT_GE(mc.lower_bound, body * slots);
    auto instance = PlanInstance::Create(plan);
    ASSERT_TRUE(instance.ok()) << instance.status().ToString();
    EXPECT_EQ(instance.value()->stats().mem_cases[0].block_bytes, mc.block_bytes);
    EXPECT_EQ(instance.value()->stats().input_register_num, slots);
  }
}

// --- zero allocations ---

TEST(PipelineTest, WarmPushAndRunPushedAllocateNothing) {
  const Placement p = WorldPlacement();
  const Program program = BuildMlp(MlpConfig{p, Nd("S(1)"), Nd("S(0)")}).value();
  auto instance = MustCreate(program, 2);
  ASSERT_NE(instance, nullptr);
  PlanInstance& run = *instance;
  const infer::TensorMeta& xm = program.value(program.inputs()[0]).meta;
  const std::vector<tensor::Tensor> x = {Data(xm.shape, 5, xm.placement, xm.nd_sbp)};
  const kernels::LocalTensor local = x[0]->local();
  for (int i = 0; i < 3; ++i) {  // warm-up: workspaces and communicator caches grow
    ASSERT_TRUE(run.Push(&local, 1).ok());
    ASSERT_TRUE(run.Push(x).ok());
    ASSERT_TRUE(run.RunPushed().ok());
    ASSERT_TRUE(run.RunPushed().ok());
  }
  const long before = memory::ThreadHeapAllocations();
  Status s = run.Push(&local, 1);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(run.stats().heap_allocations_last_push, 0);
  EXPECT_EQ(run.stats().allocator_calls_last_push, 0);
  s = run.Push(x);  // same nd-sbp: a memcpy
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(run.stats().heap_allocations_last_push, 0);
  EXPECT_EQ(run.stats().allocator_calls_last_push, 0);
  for (int i = 0; i < 2; ++i) {
    s = run.RunPushed();
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(run.stats().heap_allocations_last_run, 0);
    EXPECT_EQ(run.stats().allocator_calls_last_run, 0);
  }
  s = run.Run(&local, 1);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(run.stats().heap_allocations_last_run, 0);
  EXPECT_EQ(run.stats().allocator_calls_last_run, 0);
  // stats() itself allocates (its vector), so count the calls alone once more.
  const long mid = memory::ThreadHeapAllocations();
  ASSERT_TRUE(run.Push(&local, 1).ok());
  ASSERT_TRUE(run.RunPushed().ok());
  EXPECT_EQ(memory::ThreadHeapAllocations() - mid, 0);
  EXPECT_GT(mid - before, 0);  // the stats() calls above did allocate: the counter works
}

// --- a pusher thread racing a runner thread ---

// The pusher pushes `iterations` distinct sets while the runner runs and checks each
// output, in order; both pause now and then so the pusher meets full slots and the runner
// empty ones. Warm RunPushed and Push calls must allocate nothing.
void Race(int slots, int iterations, bool boxed_inputs) {
  const DenseCase dense = MakeDenseCase(iterations);
  const DenseSets& sets = dense.sets;
  std::unique_ptr<PlanInstance> instance = MustCreate(dense.layer.program, slots);
  ASSERT_NE(instance, nullptr);
  PlanInstance& run = *instance;
  constexpr int kWarm = 4;

  Status push_error;
  int64_t push_heap = 0, push_calls = 0;  // summed over warm pushes
  std::thread pusher([&] {
    for (int i = 0; i < iterations; ++i) {
      if (i % 16 == 5) std::this_thread::sleep_for(std::chrono::microseconds(300));
      Status s = boxed_inputs ? run.Push(&sets.x_boxed[i], 1) : run.Push(&sets.local[i], 1);
      if (!s.ok()) {
        push_error = s;
        return;
      }
      if (i >= kWarm && !boxed_inputs) {
        const PlanStats st = run.stats();
        push_heap += st.heap_allocations_last_push;
        push_calls += st.allocator_calls_last_push;
      }
    }
  });
  int64_t run_heap = 0, run_calls = 0;
  int done = 0;
  for (; done < iterations; ++done) {
    if (done % 16 == 9) std::this_thread::sleep_for(std::chrono::microseconds(300));
    Status s = run.RunPushed();
    EXPECT_TRUE(s.ok()) << "run " << done << ": " << s.ToString();
    if (!s.ok()) break;
    if (done >= kWarm) {
      const PlanStats st = run.stats();
      run_heap += st.heap_allocations_last_run;
      run_calls += st.allocator_calls_last_run;
    }
    ExpectLocalOutput(run, sets.want_local[done], ("run " + std::to_string(done)).c_str());
    if (testing::Test::HasFatalFailure()) break;
  }
  // Wakes the pusher if the runner stopped early; a no-op for it otherwise (it is done).
  run.Close();
  pusher.join();
  EXPECT_EQ(done, iterations);
  EXPECT_TRUE(push_error.ok()) << push_error.ToString();
  EXPECT_EQ(run_heap, 0);
  EXPECT_EQ(run_calls, 0);
  EXPECT_EQ(push_heap, 0);
  EXPECT_EQ(push_calls, 0);
  EXPECT_EQ(run.stats().num_runs, iterations);
}

// Two or more slots: with one, a Push may overwrite the outputs the runner has yet to read
// (plan_exec.h), so one slot does not pipeline.
TEST(PipelineTest, PusherRacesRunner) {
  for (int slots : {2, 3}) {
    SCOPED_TRACE("input_register_num " + std::to_string(slots));
    Race(slots, 200, /*boxed_inputs=*/false);
  }
}

// Pushes that box are collective: each waits for the runs before it, so the two threads'
// collectives never meet a communicator in different orders on different ranks (which
// would hang or mix data up).
TEST(PipelineTest, BoxingPushesAreOrderedAfterEarlierRuns) {
  Race(2, 40, /*boxed_inputs=*/true);

  const DenseCase dense = MakeDenseCase(2);
  const DenseSets& sets = dense.sets;
  std::unique_ptr<PlanInstance> instance = MustCreate(dense.layer.program, 2);
  ASSERT_NE(instance, nullptr);
  ASSERT_TRUE(instance->Push(&sets.local[0], 1).ok());
  // A free slot, but set 0 has not run: the boxing Push waits for it, here in vain.
  Status s = instance->Push(&sets.x_boxed[1], 1, 0.02);
  ASSERT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_NE(s.message().find("PlanInstance::Push: an input needs boxing, which waits for the 1 "
                             "earlier pushed set(s) to run"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(instance->stats().num_pushes, 1);
  ASSERT_TRUE(instance->RunPushed().ok());
  ExpectLocalOutput(*instance, sets.want_local[0], "set 0");
  ASSERT_TRUE(instance->Push(&sets.x_boxed[1], 1, 0).ok());
  ASSERT_TRUE(instance->RunPushed().ok());
  ExpectLocalOutput(*instance, sets.want_local[1], "set 1, boxed");
}

// An output that is the data input itself reads the slot its run read.
TEST(PipelineTest, InputMarkedAsOutputFollowsTheSlot) {
  const Placement p = WorldPlacement();
  Program program;
  const ValueId x = program.AddInput("x", Shape({6, 2}), DType::kF32, p).value();
  const ValueId y = program.AddOp("neg", {x}).value()[0];
  ASSERT_TRUE(program.MarkOutput(x).ok());
  ASSERT_TRUE(program.MarkOutput(y).ok());
  auto instance = MustCreate(program, 2);
  ASSERT_NE(instance, nullptr);
  std::vector<std::vector<float>> want;
  for (int i = 0; i < 3; ++i) {
    std::vector<float> v(12);
    for (size_t j = 0; j < v.size(); ++j) v[j] = static_cast<float>(100 * i + j);
    want.push_back(v);
    tensor::Tensor t =
        tensor::FromLogical(v.data(), Shape({6, 2}), DType::kF32, p, Nd("S(0)")).value();
    ASSERT_TRUE(instance->Push({t}).ok());
    if (i == 0) continue;  // keep two sets pushed ahead
    ASSERT_TRUE(instance->RunPushed().ok());
    ExpectNear(Host(instance->OutputTensor(0).value()), want[i - 1], "x as output");
  }
  ASSERT_TRUE(instance->RunPushed().ok());
  ExpectNear(Host(instance->OutputTensor(0).value()), want[2], "x as output, last");
  std::vector<float> neg = want[2];
  for (float& f : neg) f = -f;
  ExpectNear(Host(instance->OutputTensor(1).value()), neg, "neg x");
}

// --- bad options and calls ---

TEST(PipelineErrorsTest, InputRegisterNumOutOfRange) {
  const Program program = MakeDenseLayer(WorldPlacement(), 5, 3, 4).value().program;
  for (int bad : {0, -1, kMaxInputRegisterNum + 1}) {
    Result<std::shared_ptr<const CompiledPlan>> plan = Compile(program, CompileOptions{bad});
    ASSERT_FALSE(plan.ok()) << bad;
    EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(plan.status().message().find("Compile: options.input_register_num is " +
                                           std::to_string(bad) + "; it must be in [1, 8]"),
              std::string::npos)
        << plan.status().message();
  }
}

TEST(PipelineErrorsTest, WaitsTimeOutInsteadOfHanging) {
  const DenseCase dense = MakeDenseCase(3);
  const DenseSets& sets = dense.sets;
  auto instance = MustCreate(dense.layer.program, 2);
  ASSERT_NE(instance, nullptr);
  PlanInstance& run = *instance;

  // Nothing pushed and no pusher: RunPushed with a timeout returns instead of hanging.
  Status s = run.RunPushed(0);
  ASSERT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_NE(s.message().find("PlanInstance::RunPushed: nothing was pushed within 0 s (0 pushed, "
                             "0 run)"),
            std::string::npos)
      << s.message();
  const auto t0 = std::chrono::steady_clock::now();
  s = run.RunPushed(0.05);
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_GE(waited, 0.045);
  EXPECT_EQ(run.RunPushed(std::numeric_limits<double>::quiet_NaN()).code(),
            StatusCode::kInvalidArgument);

  // Both slots full: Push times out; Run refuses while sets wait.
  ASSERT_TRUE(run.Push(&sets.local[0], 1).ok());
  s = run.Run(&sets.local[1], 1);
  ASSERT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_NE(s.message().find("PlanInstance::Run: 1 pushed input set(s) wait for RunPushed"),
            std::string::npos)
      << s.message();
  ASSERT_TRUE(run.Push(&sets.local[1], 1).ok());
  s = run.Push(&sets.local[2], 1, 0.02);
  ASSERT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_NE(s.message().find("PlanInstance::Push: all 2 input slots are still full after 0.02 s "
                             "(2 pushed, 0 run)"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(run.Push(&sets.local[2], 1, std::nan("")).code(), StatusCode::kInvalidArgument);

  // A bad input fails before any wait and pushes nothing.
  std::vector<float> buf(64);
  kernels::LocalTensor bad{buf.data(), Shape({1, 1}), DType::kF32};
  s = run.Push(&bad, 1);
  ASSERT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("PlanInstance::Push: input #0 (\"x\") on rank"), std::string::npos)
      << s.message();
  s = run.Push(std::vector<tensor::Tensor>{});
  ASSERT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("PlanInstance::Push: the program takes 1 inputs but got 0"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(run.stats().num_pushes, 2);

  // The queue is intact: both sets run in order.
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(run.RunPushed(0).ok());
    ExpectLocalOutput(run, sets.want_local[i], ("set " + std::to_string(i)).c_str());
  }
}

TEST(PipelineErrorsTest, ClosedInstanceCancels) {
  const DenseCase dense = MakeDenseCase(1);
  const DenseSets& sets = dense.sets;
  auto instance = MustCreate(dense.layer.program, 2);
  ASSERT_NE(instance, nullptr);
  ASSERT_TRUE(instance->Push(&sets.local[0], 1).ok());
  EXPECT_FALSE(instance->closed());
  instance->Close();
  instance->Close();  // idempotent
  EXPECT_TRUE(instance->closed());
  Status s = instance->Push(&sets.local[0], 1);
  EXPECT_EQ(s.code(), StatusCode::kCancelled) << s.ToString();
  EXPECT_EQ(s.message(), "PlanInstance::Push: the instance is closed");
  // A pushed set is abandoned too.
  s = instance->RunPushed();
  EXPECT_EQ(s.code(), StatusCode::kCancelled);
  EXPECT_EQ(s.message(), "PlanInstance::RunPushed: the instance is closed");
  EXPECT_EQ(instance->Run(&sets.local[0], 1).code(), StatusCode::kCancelled);
  EXPECT_EQ(instance->Run(sets.x).code(), StatusCode::kCancelled);
}

// Waits until `n` calls are inside the instance (blocked, as the callers below are).
void AwaitCallsInProgress(const PlanInstance& run, int64_t n) {
  while (run.stats().calls_in_progress != n) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST(PipelineErrorsTest, CloseWakesBlockedCallers) {
  const DenseCase dense = MakeDenseCase(1);
  const DenseSets& sets = dense.sets;
  {
    auto instance = MustCreate(dense.layer.program, 2);
    ASSERT_NE(instance, nullptr);
    Status got;
    std::thread runner([&] { got = instance->RunPushed(); });  // nothing will be pushed
    AwaitCallsInProgress(*instance, 1);
    instance->Close();
    runner.join();
    EXPECT_EQ(got.code(), StatusCode::kCancelled) << got.ToString();
  }
  {
    auto instance = MustCreate(dense.layer.program, 1);
    ASSERT_NE(instance, nullptr);
    ASSERT_TRUE(instance->Push(&sets.local[0], 1).ok());
    Status got;
    std::thread pusher([&] { got = instance->Push(&sets.local[0], 1); });  // the slot is full
    AwaitCallsInProgress(*instance, 1);
    instance->Close();
    pusher.join();
    EXPECT_EQ(got.code(), StatusCode::kCancelled) << got.ToString();
  }
}

TEST(PipelineErrorsTest, DestroyingUnderBlockedCallersDoesNotHang) {
  const DenseCase dense = MakeDenseCase(1);
  const DenseSets& sets = dense.sets;
  for (int slots : {1, 3}) {
    auto instance = MustCreate(dense.layer.program, slots);
    ASSERT_NE(instance, nullptr);
    for (int i = 0; i < slots; ++i) ASSERT_TRUE(instance->Push(&sets.local[0], 1).ok());
    Status pushed;
    std::thread pusher([&, run = instance.get()] { pushed = run->Push(&sets.local[0], 1); });
    AwaitCallsInProgress(*instance, 1);
    instance.reset();  // closes, wakes the pusher, waits for it to leave
    pusher.join();
    EXPECT_EQ(pushed.code(), StatusCode::kCancelled) << pushed.ToString();
  }
  auto instance = MustCreate(dense.layer.program, 2);
  ASSERT_NE(instance, nullptr);
  Status ran;
  std::thread runner([&, run = instance.get()] { ran = run->RunPushed(); });
  AwaitCallsInProgress(*instance, 1);
  instance.reset();
  runner.join();
  EXPECT_EQ(ran.code(), StatusCode::kCancelled) << ran.ToString();
}

}  // namespace
}  // namespace tessera::plan
