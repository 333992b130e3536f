// Plans on cuda placements (--config=cuda only), under mpirun with 1..4 ranks. Every rank
// drives local device local_rank % device count, so several ranks may share one GPU.
// Without a GPU the GPU cases print "SKIPPED: no CUDA device visible", and one case checks
// the error Compile gives then.
//
// Oracles: the 20-op MLP compiled on a cuda placement must match the same program replayed
// through eager::Apply on cuda (the same kernels: equal up to rounding) and on the cpu
// placement with the same ranks (independent kernels: within 1e-4); the dense layer must
// match plain loops exactly (its values are multiples of 1/4, so f32 sums are exact in any
// order).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/eager/interpreter.h"
#include "core/memory/heap_counter.h"
#include "core/plan/compile.h"
#include "core/plan/plan_exec.h"
#include "core/plan/program.h"
#include "core/tensor/creation.h"
#include "core/tensor/cuda_device.h"
#include "core/tensor/device_boxing.h"
#include "core/tensor/global_cast.h"
#include "kernels/cuda/cuda_test_util.h"
#include "kernels/cuda/data_errors.h"
#include "tests/eager/cuda_test_device.h"
#include "tests/plan/mlp_program.h"
#include "tests/plan/plan_test_util.h"

namespace tessera::plan {
namespace {

using eager_test::ExpectedDevice;
using kernels::cuda::VisibleGpus;
using plan_test::Broadcast;
using plan_test::BuildMlp;
using plan_test::Data;
using plan_test::DenseLayer;
using plan_test::ExpectNear;
using plan_test::Host;
using plan_test::MlpConfig;
using plan_test::Nd;
using plan_test::RunEager;
using plan_test::WorldPlacement;
using plan_test::WorldRank;
using plan_test::WorldSize;

// Plan and eager on cuda run the same kernels on the same pieces.
constexpr float kSameKernels = 1e-6f;
// cuda against the cpu kernels, through 20 ops.
constexpr float kCpuKernels = 1e-4f;

Placement OnDevice(const Placement& p, DeviceType device) {
  return Placement::Make(device, p.ranks(), p.hierarchy()).value();
}

Placement CudaWorld() { return OnDevice(WorldPlacement(), DeviceType::kCuda); }

// This rank's piece of `t`, read back from wherever it lives (empty off the placement).
std::vector<float> Piece(const tensor::Tensor& t) {
  std::vector<float> out(t->has_local() ? t->local_shape().num_elements() : 0, -12345.0f);
  Status s = t->CopyLocalToHost(out.data());
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

// Output o's piece through OutputLocal (empty where the rank holds none).
std::vector<float> OutputPiece(const PlanInstance& run, size_t o) {
  Result<PlanInstance::OutputPiece> piece = run.OutputLocalPiece(o);
  EXPECT_TRUE(piece.ok()) << piece.status().ToString();
  if (!piece.ok() || !piece->has_local) return {};
  std::vector<float> out(piece->bytes() / sizeof(float), -12345.0f);
  Status s = run.OutputLocal(o, out.data(), piece->bytes());
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

const PlanStats::PerMemCase* FindMemCase(const PlanStats& stats, const MemCase& mem_case) {
  for (const PlanStats::PerMemCase& m : stats.mem_cases) {
    if (m.mem_case == mem_case) return &m;
  }
  return nullptr;
}

class CudaPlanTest : public ::testing::Test {
 protected:
  void SetUp() override { TESS_SKIP_WITHOUT_GPU(); }
};

// The MLP of `cpu_config` moved to the cuda placement with the same ranks: compiled, run
// on cuda tensors, cpu tensors and host pieces, against eager on cuda and on cpu.
void CheckCudaMlp(const MlpConfig& cpu_config, bool expect_boxing) {
  MlpConfig cuda_config = cpu_config;
  cuda_config.placement = OnDevice(cpu_config.placement, DeviceType::kCuda);
  Result<Program> program = BuildMlp(cuda_config);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  Result<Program> cpu_program = BuildMlp(cpu_config);
  ASSERT_TRUE(cpu_program.ok()) << cpu_program.status().ToString();
  // The same seeds give the same weights on both devices, which the cpu oracle needs.
  for (size_t v = 0; v < program->values().size(); ++v) {
    if (program->values()[v].kind != ValueKind::kVariable) continue;
    ExpectNear(Host(program->values()[v].variable), Host(cpu_program->values()[v].variable),
               "weights", 0.0f);
  }

  Result<std::shared_ptr<const CompiledPlan>> plan = Compile(program.value());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const CompiledPlan& compiled = *plan.value();
  EXPECT_EQ(compiled.cuda_device, ExpectedDevice());
  int64_t staged = 0;
  for (const CompiledStep& step : compiled.steps) {
    EXPECT_EQ(step.device, DeviceType::kCuda);
    if (step.host_src >= 0) {
      ++staged;
      EXPECT_TRUE(compiled.registers[step.host_src].mem_case.is_host());
    }
  }
  if (expect_boxing && cuda_config.placement.parallel_num() > 1) {
    EXPECT_GT(compiled.num_boxing_steps, 0) << compiled.ToString();
    // Ranks sharing a GPU (several ranks on one GPU) box through the host; ranks with a
    // GPU each box on the devices over NCCL, with no host staging.
    Result<bool> shared = tensor::WorldSharesDevices();
    ASSERT_TRUE(shared.ok()) << shared.status().ToString();
    if (*shared) {
      EXPECT_EQ(staged, compiled.num_boxing_steps) << compiled.ToString();
      EXPECT_NE(compiled.ToString().find("(staged on host: r"), std::string::npos)
          << compiled.ToString();
    } else {
      EXPECT_EQ(staged, 0) << compiled.ToString();
      EXPECT_NE(compiled.ToString().find("(on the devices)"), std::string::npos)
          << compiled.ToString();
    }
  }

  Result<std::unique_ptr<PlanInstance>> instance = PlanInstance::Create(plan.value());
  ASSERT_TRUE(instance.ok()) << instance.status().ToString();
  PlanInstance& run = *instance.value();
  const PlanStats stats = run.stats();
  const MemCase device = MemCase::Cuda(ExpectedDevice());
  const PlanStats::PerMemCase* on_device = FindMemCase(stats, device);
  ASSERT_NE(on_device, nullptr) << compiled.memory.ToString();
  EXPECT_EQ(on_device->mem_case.ToString(), "cuda:" + std::to_string(ExpectedDevice()));
  EXPECT_GT(on_device->lower_bound, 0);
  EXPECT_GE(on_device->block_bytes, on_device->lower_bound);
  EXPECT_LE(on_device->block_bytes, on_device->no_reuse_bytes);
  // Host memory holds the boxing staging only.
  EXPECT_EQ(FindMemCase(stats, MemCase::Host()) != nullptr, staged > 0) << compiled.ToString();

  const NdSbp data_sbp = program->value(program->inputs()[0]).meta.nd_sbp;
  const Shape x_shape({cpu_config.batch, cpu_config.in});
  struct Set {
    tensor::Tensor cpu, cuda;
    std::vector<std::vector<float>> want_cpu, want_cuda;  // logical outputs
    std::vector<std::vector<float>> want_pieces;          // eager cuda's pieces
  };
  std::vector<Set> sets(2);
  for (int k = 0; k < 2; ++k) {
    Set& set = sets[k];
    set.cpu = Data(x_shape, 101 + 101 * k, cpu_config.placement, data_sbp);
    Result<tensor::Tensor> moved = tensor::ToGlobal(set.cpu, cuda_config.placement, data_sbp);
    ASSERT_TRUE(moved.ok()) << moved.status().ToString();
    set.cuda = moved.value();
    Result<std::vector<tensor::Tensor>> on_cpu = RunEager(cpu_program.value(), {set.cpu});
    ASSERT_TRUE(on_cpu.ok()) << on_cpu.status().ToString();
    Result<std::vector<tensor::Tensor>> on_cuda = RunEager(program.value(), {set.cuda});
    ASSERT_TRUE(on_cuda.ok()) << on_cuda.status().ToString();
    for (const tensor::Tensor& t : on_cpu.value()) set.want_cpu.push_back(Host(t));
    for (const tensor::Tensor& t : on_cuda.value()) {
      set.want_cuda.push_back(Host(t));
      set.want_pieces.push_back(Piece(t));
    }
  }

  // Set 0 as a cuda tensor, set 1 as a cpu tensor, set 0 as host pieces: every way in
  // gives the same outputs, and the third run reproduces the first.
  auto check = [&](const Set& set, const std::string& what) {
    ASSERT_EQ(run.num_outputs(), set.want_cuda.size());
    for (size_t o = 0; o < run.num_outputs(); ++o) {
      const std::string name = what + " output " + std::to_string(o);
      Result<PlanInstance::OutputView> view = run.Output(o);
      ASSERT_TRUE(view.ok()) << view.status().ToString();
      EXPECT_EQ(view->mem_case, device);
      ExpectNear(OutputPiece(run, o), set.want_pieces[o], (name + " piece").c_str(), kSameKernels);
      Result<tensor::Tensor> tensor = run.OutputTensor(o);
      ASSERT_TRUE(tensor.ok()) << tensor.status().ToString();
      EXPECT_EQ(tensor.value()->placement(), cuda_config.placement);
      const std::vector<float> got = Host(tensor.value());
      ExpectNear(got, set.want_cuda[o], (name + " vs eager cuda").c_str(), kSameKernels);
      ExpectNear(got, set.want_cpu[o], (name + " vs eager cpu").c_str(), kCpuKernels);
    }
  };
  Status s = run.Run({sets[0].cuda});
  ASSERT_TRUE(s.ok()) << s.ToString();
  check(sets[0], "cuda tensor");
  s = run.Run({sets[1].cpu});
  ASSERT_TRUE(s.ok()) << s.ToString();
  check(sets[1], "cpu tensor");
  const kernels::LocalTensor host_piece = sets[0].cpu->local();
  s = run.Run(&host_piece, 1);
  ASSERT_TRUE(s.ok()) << s.ToString();
  check(sets[0], "host piece");

  // Warm: the runs above set up the stream, cuBLAS, the workspaces and communicators.
  const std::vector<tensor::Tensor> cuda_input = {sets[1].cuda};
  for (int k = 0; k < 2; ++k) {
    const long before = memory::ThreadHeapAllocations();
    s = k == 0 ? run.Run(cuda_input) : run.Run(&host_piece, 1);
    const long during = memory::ThreadHeapAllocations() - before;
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(during, 0) << "warm run " << k;
    EXPECT_EQ(run.stats().heap_allocations_last_run, 0) << "warm run " << k;
    EXPECT_EQ(run.stats().allocator_calls_last_run, 0) << "warm run " << k;
  }
  check(sets[0], "warm host piece");
  const PlanStats after = run.stats();
  EXPECT_EQ(after.num_runs, 5);
  // Replay (plan_exec.h): run 1 launches kernel by kernel, run 2 captures and launches
  // a graph per stretch of kernels between boxing steps, runs 3-5 launch them; the
  // checks above read the graphs' results, with the boxing steps run between them.
  int64_t stretches = 0;  // of steps without a boxing step, holding a kernel of this rank
  bool in_stretch = false;
  for (const CompiledStep& step : compiled.steps) {
    if (step.kind == StepKind::kBoxing) {
      in_stretch = false;
    } else if (step.kernel != nullptr && !in_stretch) {
      in_stretch = true;
      ++stretches;
    }
  }
  if (compiled.num_boxing_steps == 0) {
    EXPECT_EQ(stretches, 1) << compiled.ToString();
  }
  EXPECT_EQ(after.cuda_graph_refusal, "");
  EXPECT_EQ(after.cuda_graphs, stretches) << compiled.ToString();
  EXPECT_EQ(after.cuda_graph_launches, 4 * stretches) << compiled.ToString();
}

// The plan tests' layouts moved to cuda; split weights stage their boxing through host
// registers.
TEST_F(CudaPlanTest, MlpEveryLayoutMatchesEagerOnCudaAndCpu) {
  for (const plan_test::MlpCase& c : plan_test::MlpCases()) {
    SCOPED_TRACE(c.name);
    CheckCudaMlp(c.config, c.expect_boxing);
  }
}

// y = relu(x w + b) against plain loops, with inputs boxed in from other layouts and
// devices, a variable output read from device memory, and pipelined slots.
TEST_F(CudaPlanTest, DenseLayerMatchesPlainLoops) {
  Result<DenseLayer> layer = plan_test::MakeDenseLayer(CudaWorld(), 5, 3, 4);
  ASSERT_TRUE(layer.ok()) << layer.status().ToString();
  DenseLayer& d = layer.value();
  ValueId b_id = -1;
  for (size_t v = 0; v < d.program.values().size(); ++v) {
    if (d.program.values()[v].name == "b") b_id = static_cast<ValueId>(v);
  }
  ASSERT_GE(b_id, 0);
  ASSERT_TRUE(d.program.MarkOutput(b_id).ok());
  const infer::TensorMeta& xm = d.program.value(d.x).meta;
  const Placement cpu = WorldPlacement();

  for (int slots : {1, 2}) {
    SCOPED_TRACE("input_register_num " + std::to_string(slots));
    Result<std::shared_ptr<const CompiledPlan>> plan = Compile(d.program, CompileOptions{slots});
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    auto instance = PlanInstance::Create(plan.value());
    ASSERT_TRUE(instance.ok()) << instance.status().ToString();
    PlanInstance& run = *instance.value();
    for (int k = 0; k < 4; ++k) {
      std::vector<float> x(static_cast<size_t>(d.m * d.k));
      for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i + k) % 7) - 3.0f;
      const std::vector<float> want = d.Forward(x);
      // The program's layout on cuda, B on cuda, the program's nd-sbp on cpu, B on cpu.
      const Placement& p = k < 2 ? xm.placement : cpu;
      const NdSbp nd = k % 2 == 0 ? xm.nd_sbp : Broadcast(p);
      tensor::Tensor xt = tensor::FromLogical(x.data(), xm.shape, DType::kF32, p, nd).value();
      const std::string what =
          "input " + std::to_string(k) + " on " + p.ToString() + " " + nd.ToString();
      Status s = slots == 1 ? run.Run({xt}) : run.Push({xt});
      ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
      if (slots > 1) {
        s = run.RunPushed();
        ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
      }
      ExpectNear(Host(run.OutputTensor(0).value()), want, what.c_str(), 0.0f);
      ExpectNear(OutputPiece(run, 1), d.b, "the variable b", 0.0f);
      Result<PlanInstance::OutputView> view = run.Output(1);
      ASSERT_TRUE(view.ok());
      EXPECT_EQ(view->mem_case, MemCase::Cuda(ExpectedDevice()));
    }
  }
}

// Two input sets pushed ahead into device slots, run in order; warm pushes and runs make
// no host or device allocation.
TEST_F(CudaPlanTest, PushedAheadSlotsOnTheDevice) {
  Result<DenseLayer> layer = plan_test::MakeDenseLayer(CudaWorld(), 5, 3, 4);
  ASSERT_TRUE(layer.ok()) << layer.status().ToString();
  const DenseLayer& d = layer.value();
  const infer::TensorMeta& xm = d.program.value(d.x).meta;
  auto run = PlanInstance::Create(Compile(d.program, CompileOptions{2}).value()).value();
  std::vector<std::vector<float>> want;
  std::vector<tensor::Tensor> host_inputs;  // cpu tensors: their pieces are host memory
  for (int k = 0; k < 2; ++k) {
    std::vector<float> x(static_cast<size_t>(d.m * d.k));
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.5f * static_cast<float>((3 * i + k) % 9) - 2.0f;
    want.push_back(d.Forward(x));
    host_inputs.push_back(
        tensor::FromLogical(x.data(), xm.shape, DType::kF32, WorldPlacement(), xm.nd_sbp).value());
  }
  // Round 0 runs each slot plainly, round 1 captures its graph (which allocates), rounds
  // 2-3 replay.
  for (int round = 0; round < 4; ++round) {
    const kernels::LocalTensor l0 = host_inputs[0]->local(), l1 = host_inputs[1]->local();
    ASSERT_TRUE(run->Push(&l0, 1).ok());
    ASSERT_TRUE(run->Push(&l1, 1).ok());
    EXPECT_EQ(run->stats().num_waiting, 2);
    ASSERT_TRUE(run->RunPushed().ok());
    std::vector<float> first = OutputPiece(*run, 0);
    ASSERT_TRUE(run->RunPushed().ok());
    if (round > 1) {
      const PlanStats stats = run->stats();
      EXPECT_EQ(stats.heap_allocations_last_push, 0);
      EXPECT_EQ(stats.allocator_calls_last_push, 0);
      EXPECT_EQ(stats.heap_allocations_last_run, 0);
      EXPECT_EQ(stats.allocator_calls_last_run, 0);
    }
    ExpectNear(Host(run->OutputTensor(0).value()), want[1], "second set", 0.0f);
    tensor::Tensor want0 =
        tensor::FromLogical(want[0].data(), d.program.value(d.y).meta.shape, DType::kF32,
                            xm.placement, d.program.value(d.y).meta.nd_sbp)
            .value();
    ExpectNear(first, Piece(want0), "first set", 0.0f);
  }
}

// Replay's two ways out (plan_exec.h): a capture the stream refuses (with synchronous
// data checks, integer division's zero-divisor check waits for the stream) leaves the
// plan on plain launches with the reason kept, and TESSERA_CUDA_GRAPHS=0 never captures;
// the results stay right either way.
TEST_F(CudaPlanTest, GraphReplayFallsBackWhenRefusedAndTurnsOff) {
  const Placement p = CudaWorld();
  const NdSbp b = Broadcast(p);
  Program program;
  const std::vector<int32_t> two(6, 2);
  ValueId x = program.AddInput("x", Shape({6}), DType::kI32, p, b).value();
  ValueId divisor =
      program
          .AddVariable("divisor",
                       tensor::FromLogical(two.data(), Shape({6}), DType::kI32, p, b).value())
          .value();
  ValueId q = program.AddOp("div", {x, divisor}).value()[0];
  ASSERT_TRUE(program.MarkOutput(q).ok());
  for (const bool refused : {true, false}) {
    SCOPED_TRACE(refused ? "synchronous data checks" : "TESSERA_CUDA_GRAPHS=0");
    if (refused) {
      kernels::cuda::SetSynchronousDataChecks(true);
    } else {
      ASSERT_EQ(setenv("TESSERA_CUDA_GRAPHS", "0", 1), 0);
    }
    auto plan = Compile(program);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    EXPECT_EQ(plan.value()->num_boxing_steps, 0);
    auto run = PlanInstance::Create(plan.value());
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    for (int k = 0; k < 4; ++k) {
      std::vector<int32_t> in(6), want(6), got(6, -1);
      for (int i = 0; i < 6; ++i) {
        in[i] = 3 * i + k + 1;
        want[i] = in[i] / 2;
      }
      tensor::Tensor xt = tensor::FromLogical(in.data(), Shape({6}), DType::kI32, p, b).value();
      Status s = run.value()->Run({xt});
      ASSERT_TRUE(s.ok()) << s.ToString();
      s = run.value()->OutputLocal(0, got.data(), got.size() * sizeof(int32_t));
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_EQ(got, want) << "run " << k;
    }
    const PlanStats stats = run.value()->stats();
    EXPECT_EQ(stats.cuda_graphs, 0);
    EXPECT_EQ(stats.cuda_graph_launches, 0);
    if (refused) {
      EXPECT_NE(stats.cuda_graph_refusal, "") << "the refused capture's reason";
    } else {
      EXPECT_EQ(stats.cuda_graph_refusal, "");
    }
    kernels::cuda::SetSynchronousDataChecks(false);
    unsetenv("TESSERA_CUDA_GRAPHS");
  }
  // Without the checks the same plan replays.
  auto replayed = PlanInstance::Create(Compile(program).value());
  ASSERT_TRUE(replayed.ok()) << replayed.status().ToString();
  const std::vector<int32_t> in = {1, 2, 3, 4, 5, 6};
  tensor::Tensor xt = tensor::FromLogical(in.data(), Shape({6}), DType::kI32, p, b).value();
  for (int k = 0; k < 3; ++k) ASSERT_TRUE(replayed.value()->Run({xt}).ok());
  EXPECT_EQ(replayed.value()->stats().cuda_graphs, 1);
  EXPECT_EQ(replayed.value()->stats().cuda_graph_launches, 2);

  ASSERT_EQ(setenv("TESSERA_CUDA_GRAPHS", "2", 1), 0);
  auto bad = PlanInstance::Create(Compile(program).value());
  unsetenv("TESSERA_CUDA_GRAPHS");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("TESSERA_CUDA_GRAPHS"), std::string::npos)
      << bad.status().ToString();
}

// A data error recorded by a check kernel inside a replayed graph surfaces where the
// output leaves the device, as it does from plain launches: the graph's launch marks the
// stream's record as possibly written (data_errors.h reads the record only when a check
// was queued since its last read, and a replay queues none through CheckData). The error
// is reported once; the next good run is clean.
TEST_F(CudaPlanTest, DataErrorsOfAReplayedGraphSurfaceAtTheOutput) {
  const Placement p = CudaWorld();
  const NdSbp b = Broadcast(p);
  Program program;
  ValueId x = program.AddInput("x", Shape({2, 3}), DType::kI64, p, b).value();
  ValueId y = program.AddInput("y", Shape({2, 3}), DType::kI64, p, b).value();
  ASSERT_TRUE(program.MarkOutput(program.AddOp("div", {x, y}).value()[0]).ok());
  auto plan = Compile(program);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto run = PlanInstance::Create(plan.value());
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  const std::vector<int64_t> xs = {10, 20, 30, 40, 50, 60};
  const std::vector<int64_t> good = {1, 2, 3, 4, 5, 6}, bad = {1, 2, 3, 4, 0, 6};
  tensor::Tensor xt = tensor::FromLogical(xs.data(), Shape({2, 3}), DType::kI64, p, b).value();
  // Runs 0-2 are plain, captured and replayed; 3 (a zero divisor) and 4 replay too.
  for (int k = 0; k < 5; ++k) {
    SCOPED_TRACE("run " + std::to_string(k));
    const std::vector<int64_t>& ys = k == 3 ? bad : good;
    tensor::Tensor yt = tensor::FromLogical(ys.data(), Shape({2, 3}), DType::kI64, p, b).value();
    Status s = run.value()->Run({xt, yt});
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::vector<int64_t> got(6, -1);
    s = run.value()->OutputLocal(0, got.data(), got.size() * sizeof(int64_t));
    if (k == 3) {
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
      EXPECT_NE(s.message().find("input \"y\" has 0 at [1,1]; integer division by zero"),
                std::string::npos)
          << s.ToString();
    } else {
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_EQ(got, std::vector<int64_t>({10, 10, 10, 10, 10, 10}));
    }
  }
  const PlanStats stats = run.value()->stats();
  EXPECT_EQ(stats.cuda_graph_refusal, "");
  EXPECT_EQ(stats.cuda_graphs, 1);
  EXPECT_EQ(stats.cuda_graph_launches, 4);
}

// An op mixing cpu and cuda tensors fails the same way eagerly and in a program.
TEST_F(CudaPlanTest, MixingCpuAndCudaIsEagersError) {
  tensor::Tensor a = tensor::Ones(Shape({4, 3}), DType::kF32, WorldPlacement(), Nd("S(0)")).value();
  tensor::Tensor b = tensor::Ones(Shape({4, 3}), DType::kF32, CudaWorld(), Nd("S(0)")).value();
  Result<std::vector<tensor::Tensor>> eager_sum = eager::Apply("add", {a, b});
  ASSERT_FALSE(eager_sum.ok());
  Program program;
  ValueId va = program.AddVariable("a", a).value();
  ValueId vb = program.AddVariable("b", b).value();
  Result<std::vector<ValueId>> planned = program.AddOp("add", {va, vb});
  ASSERT_FALSE(planned.ok());
  EXPECT_EQ(planned.status().code(), eager_sum.status().code());
  EXPECT_EQ(planned.status().message(), "AddOp: op #0 (add): " + eager_sum.status().message());
}

// A CUDA build on a machine without a GPU: compiling a cuda program says why, on every
// rank that would hold a piece.
TEST(CudaPlanNoGpuTest, CompileWithoutADeviceIsUnavailable) {
  if (VisibleGpus() > 0) GTEST_SKIP() << "a GPU is visible";
  Program program;
  ValueId x = program.AddInput("x", Shape({6, 2}), DType::kF32, CudaWorld()).value();
  ValueId y = program.AddOp("relu", {x}).value()[0];
  ASSERT_TRUE(program.MarkOutput(y).ok());
  Result<std::shared_ptr<const CompiledPlan>> plan = Compile(program);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kUnavailable) << plan.status().ToString();
  EXPECT_NE(plan.status().message().find("Compile: the program has values on cuda placements, "
                                         "but "),
            std::string::npos)
      << plan.status().message();
  EXPECT_NE(plan.status().message().find("no CUDA device visible"), std::string::npos)
      << plan.status().message();
}

}  // namespace
}  // namespace tessera::plan
