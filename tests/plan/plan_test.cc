// Plan mode end to end under mpirun (1-4 ranks): a 20-op MLP compiled and run through a
// PlanInstance matches the same program replayed through eager::Apply, on 1-d and 2-d
// placements, with broadcast weights and with split weights that force boxing and partial
// sums; a warm run allocates nothing; variables persist; bad calls fail with clear
// messages. A small dense layer is also checked against plain loops.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/memory/heap_counter.h"
#include "core/plan/compile.h"
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
using plan_test::ExpectNear;
using plan_test::Host;
using plan_test::MlpConfig;
using plan_test::Nd;
using plan_test::RunEager;
using plan_test::WorldPlacement;
using plan_test::WorldRank;
using plan_test::WorldSize;

// Compiles and runs `config`'s MLP three times on eager-tensor inputs, checks each run
// against eager, that variables persist across runs, and that warm runs allocate nothing.
void CheckMlp(const MlpConfig& config, bool expect_boxing) {
  Result<Program> program = BuildMlp(config);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  Result<std::shared_ptr<const CompiledPlan>> plan = Compile(program.value());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  if (expect_boxing && config.placement.parallel_num() > 1) {
    EXPECT_GT(plan.value()->num_boxing_steps, 0) << plan.value()->ToString();
  }
  Result<std::unique_ptr<PlanInstance>> instance = PlanInstance::Create(plan.value());
  ASSERT_TRUE(instance.ok()) << instance.status().ToString();
  PlanInstance& run = *instance.value();
  std::vector<std::vector<float>> variables;
  for (const ProgramValue& v : program->values()) {
    if (v.kind == ValueKind::kVariable) variables.push_back(Host(v.variable));
  }

  const NdSbp data_sbp = program->value(program->inputs()[0]).meta.nd_sbp;
  const Shape x_shape({config.batch, config.in});
  const std::vector<tensor::Tensor> x1 = {Data(x_shape, 101, config.placement, data_sbp)};
  const std::vector<tensor::Tensor> x2 = {Data(x_shape, 202, config.placement, data_sbp)};
  Result<std::vector<tensor::Tensor>> eager1 = RunEager(program.value(), x1);
  ASSERT_TRUE(eager1.ok()) << eager1.status().ToString();
  Result<std::vector<tensor::Tensor>> eager2 = RunEager(program.value(), x2);
  ASSERT_TRUE(eager2.ok()) << eager2.status().ToString();
  std::vector<std::vector<float>> want1;
  for (const tensor::Tensor& t : eager1.value()) want1.push_back(Host(t));
  std::vector<std::vector<float>> want2;
  for (const tensor::Tensor& t : eager2.value()) want2.push_back(Host(t));

  // x1, x2, x1: the third run must reproduce the first, so nothing a run writes leaks
  // into the variables or the next run.
  for (int r = 0; r < 3; ++r) {
    const auto& x = r == 1 ? x2 : x1;
    const auto& want = r == 1 ? want2 : want1;
    Status s = run.Run(x);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(run.num_outputs(), want.size());
    for (size_t o = 0; o < want.size(); ++o) {
      ExpectNear(Host(run.OutputTensor(o).value()), want[o], ("run " + std::to_string(r)).c_str());
    }
  }
  // Warm: the runs above grew every workspace and communicator cache.
  const long before = memory::ThreadHeapAllocations();
  Status s = run.Run(x2);
  const long after = memory::ThreadHeapAllocations();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(after - before, 0);
  EXPECT_EQ(run.stats().heap_allocations_last_run, 0);
  EXPECT_EQ(run.stats().allocator_calls_last_run, 0);
  EXPECT_EQ(run.stats().num_runs, 4);
  for (size_t o = 0; o < want2.size(); ++o) {
    Result<PlanInstance::OutputView> view = run.Output(o);
    ASSERT_TRUE(view.ok()) << view.status().ToString();
    ExpectNear(Host(run.OutputTensor(o).value()), want2[o], "warm run");
  }

  // The same through local buffers (this rank's pieces of x1).
  std::vector<kernels::LocalTensor> local = {x1[0]->local()};
  s = run.Run(local.data(), local.size());
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = run.Run(local.data(), local.size());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(run.stats().heap_allocations_last_run, 0);
  EXPECT_EQ(run.stats().allocator_calls_last_run, 0);
  for (size_t o = 0; o < want1.size(); ++o) {
    ExpectNear(Host(run.OutputTensor(o).value()), want1[o], "local-buffer run");
  }

  // Every variable still holds the values it had before the first run.
  size_t next = 0;
  for (const ProgramValue& v : program->values()) {
    if (v.kind == ValueKind::kVariable) ExpectNear(Host(v.variable), variables[next++], "variable");
  }
}

// Broadcast weights and a split weight pair (boxing and partial sums), 1-d and, with 4
// ranks, 2-d.
TEST(PlanMlpTest, EveryLayoutMatchesEager) {
  for (const plan_test::MlpCase& c : plan_test::MlpCases()) {
    SCOPED_TRACE(c.name);
    CheckMlp(c.config, c.expect_boxing);
  }
}

TEST(PlanMlpTest, StatsAndPrinting) {
  const Placement p = WorldPlacement();
  Program program = BuildMlp(MlpConfig{p, Nd("S(1)"), Nd("S(0)")}).value();
  EXPECT_EQ(program.ops().size(), 20u);
  const std::string text = program.ToString();
  EXPECT_NE(text.find("input \"x\""), std::string::npos) << text;
  EXPECT_NE(text.find("= matmul(%0, %1)"), std::string::npos) << text;
  auto plan = Compile(program).value();
  const std::string plan_text = plan->ToString();
  EXPECT_NE(plan_text.find("kernel softmax"), std::string::npos) << plan_text;
  EXPECT_NE(plan_text.find("0: feed"), std::string::npos) << plan_text;
  if (p.parallel_num() > 1) {
    EXPECT_NE(plan_text.find(": box %"), std::string::npos) << plan_text;
  }
  auto instance = PlanInstance::Create(plan).value();
  const PlanStats stats = instance->stats();
  ASSERT_EQ(stats.mem_cases.size(), 1u);
  EXPECT_EQ(stats.num_registers, static_cast<int64_t>(plan->registers.size()));
  EXPECT_EQ(stats.num_steps, 20 + stats.num_boxing_steps);
  EXPECT_GE(stats.mem_cases[0].block_bytes, stats.mem_cases[0].lower_bound);
  EXPECT_LT(stats.mem_cases[0].block_bytes, stats.mem_cases[0].no_reuse_bytes);
  EXPECT_EQ(stats.num_runs, 0);
}

// y = relu(x w + b) by plain loops, against the plan.
TEST(PlanDenseTest, MatchesPlainLoops) {
  const Placement p = WorldPlacement();
  Result<plan_test::DenseLayer> layer = plan_test::MakeDenseLayer(p, 5, 3, 4);
  ASSERT_TRUE(layer.ok()) << layer.status().ToString();
  const plan_test::DenseLayer& d = layer.value();
  std::vector<float> x(static_cast<size_t>(d.m * d.k));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
  auto instance = PlanInstance::Create(Compile(d.program).value()).value();
  tensor::Tensor xt = tensor::FromLogical(x.data(), Shape({d.m, d.k}), DType::kF32, p,
                                          d.program.value(d.x).meta.nd_sbp)
                          .value();
  ASSERT_TRUE(instance->Run({xt}).ok());
  const std::vector<float> want = d.Forward(x);
  ExpectNear(Host(instance->OutputTensor(0).value()), want, "dense");

  // An input given as B (not the program's S(0)) is boxed into place.
  tensor::Tensor xb =
      tensor::FromLogical(x.data(), Shape({d.m, d.k}), DType::kF32, p, Broadcast(p)).value();
  ASSERT_TRUE(instance->Run({xb}).ok());
  ExpectNear(Host(instance->OutputTensor(0).value()), want, "dense, boxed input");
}

// --- bad inputs ---

TEST(PlanErrorsTest, ProgramBuilding) {
  const Placement p = WorldPlacement();
  Program program;
  ValueId x = program.AddInput("x", Shape({4, 3}), DType::kF32, p).value();
  Result<ValueId> dup = program.AddInput("x", Shape({4}), DType::kF32, p);
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("name \"x\" is already used by an input"),
            std::string::npos)
      << dup.status().message();
  Result<ValueId> bad_sbp = program.AddInput("y", Shape({4}), DType::kF32, p, Nd("S(3)"));
  ASSERT_FALSE(bad_sbp.ok());
  EXPECT_NE(bad_sbp.status().message().find("AddInput: input \"y\""), std::string::npos)
      << bad_sbp.status().message();
  EXPECT_FALSE(program.AddInput("", Shape({4}), DType::kF32, p).ok());
  Result<ValueId> null_var = program.AddVariable("w", nullptr);
  ASSERT_FALSE(null_var.ok());
  EXPECT_NE(null_var.status().message().find("variable \"w\" is a null tensor"), std::string::npos);

  Result<std::vector<ValueId>> unknown = program.AddOp("matmull", {x, x});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("matmull"), std::string::npos)
      << unknown.status().message();

  ValueId w =
      program.AddVariable("w", tensor::Zeros(Shape({5, 2}), DType::kF32, p, Broadcast(p)).value())
          .value();
  Result<std::vector<ValueId>> mismatch = program.AddOp("matmul", {x, w});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(mismatch.status().message().find("AddOp: op #0 (matmul): "), std::string::npos)
      << mismatch.status().message();

  Result<std::vector<ValueId>> bad_id = program.AddOp("relu", {42});
  ASSERT_FALSE(bad_id.ok());
  EXPECT_NE(bad_id.status().message().find("value %42 does not exist (the program has 2 values)"),
            std::string::npos)
      << bad_id.status().message();

  // Inputs on two placements.
  const Placement other = Placement::Parse("cpu:[[0]]").value();
  ValueId z = program.AddInput("z", Shape({4, 3}), DType::kF32, other).value();
  Result<std::vector<ValueId>> placements = program.AddOp("add", {x, z});
  ASSERT_FALSE(placements.ok());
  EXPECT_NE(placements.status().message().find("AddOp: op #0 (add)"), std::string::npos)
      << placements.status().message();

  EXPECT_FALSE(program.MarkOutput(-1).ok());
  ASSERT_TRUE(program.MarkOutput(x).ok());
  Status again = program.MarkOutput(x);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.message().find("value %0 is already an output"), std::string::npos);
  EXPECT_EQ(program.ops().size(), 0u);
}

TEST(PlanErrorsTest, CompileWithoutOutputs) {
  Program program;
  ASSERT_TRUE(program.AddInput("x", Shape({4}), DType::kF32, WorldPlacement()).ok());
  Result<std::shared_ptr<const CompiledPlan>> plan = Compile(program);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("Compile: the program has no outputs"), std::string::npos);
  EXPECT_FALSE(PlanInstance::Create(nullptr).ok());
}

TEST(PlanErrorsTest, RunInputs) {
  const Placement p = WorldPlacement();
  Program program;
  ValueId x = program.AddInput("x", Shape({6, 2}), DType::kF32, p).value();
  ValueId y = program.AddOp("relu", {x}).value()[0];
  ASSERT_TRUE(program.MarkOutput(y).ok());
  auto instance = PlanInstance::Create(Compile(program).value()).value();

  Result<PlanInstance::OutputView> early = instance->Output(0);
  ASSERT_FALSE(early.ok());
  EXPECT_NE(early.status().message().find("has not run yet"), std::string::npos);

  Status count = instance->Run(std::vector<tensor::Tensor>{});
  ASSERT_FALSE(count.ok());
  EXPECT_NE(count.message().find("the program takes 1 inputs but got 0"), std::string::npos)
      << count.message();

  tensor::Tensor wrong_shape = tensor::Zeros(Shape({6, 3}), DType::kF32, p, Nd("S(0)")).value();
  Status shape = instance->Run({wrong_shape});
  ASSERT_FALSE(shape.ok());
  EXPECT_NE(shape.message().find("input #0 (\"x\") is [6,3]"), std::string::npos)
      << shape.message();

  const Placement other = Placement::Parse("cpu:[[0]]").value();
  tensor::Tensor wrong_place =
      tensor::Zeros(Shape({6, 2}), DType::kF32, other, Nd("(B, B)")).value();
  Status place = instance->Run({wrong_place});
  ASSERT_FALSE(place.ok());
  EXPECT_NE(place.message().find("shape, dtype and placement must match"), std::string::npos)
      << place.message();
  Status null_input = instance->Run({tensor::Tensor()});
  EXPECT_FALSE(null_input.ok());

  // A local piece of the wrong shape.
  std::vector<float> buf(12);
  kernels::LocalTensor bad{buf.data(), Shape({1, 1}), DType::kF32};
  Status local = instance->Run(&bad, 1);
  ASSERT_FALSE(local.ok());
  EXPECT_NE(local.message().find("input #0 (\"x\") on rank " + std::to_string(WorldRank()) +
                                 " has local shape [1,1]"),
            std::string::npos)
      << local.message();

  tensor::Tensor good = tensor::Ones(Shape({6, 2}), DType::kF32, p, Nd("S(0)")).value();
  ASSERT_TRUE(instance->Run({good}).ok());
  Result<PlanInstance::OutputView> out_of_range = instance->Output(1);
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_EQ(out_of_range.status().code(), StatusCode::kOutOfRange);
}

// OutputLocal copies this rank's piece to host memory; OutputLocalPiece describes it
// before any run.
TEST(PlanOutputTest, OutputLocalAndPiece) {
  const Placement p = WorldPlacement();
  Result<plan_test::DenseLayer> layer = plan_test::MakeDenseLayer(p, 5, 3, 4);
  ASSERT_TRUE(layer.ok()) << layer.status().ToString();
  const plan_test::DenseLayer& d = layer.value();
  auto instance = PlanInstance::Create(Compile(d.program).value()).value();
  std::vector<float> x(15);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.5f * static_cast<float>(i) - 3.0f;
  // This rank's piece of the plain-loop result, cut by an eager tensor of y's layout.
  const std::vector<float> want = d.Forward(x);
  const infer::TensorMeta& ym = d.program.value(d.y).meta;
  tensor::Tensor yt =
      tensor::FromLogical(want.data(), ym.shape, DType::kF32, ym.placement, ym.nd_sbp).value();
  const float* yp = static_cast<const float*>(yt->local_data());
  const std::vector<float> want_piece(yp, yp + yt->local_shape().num_elements());

  Result<PlanInstance::OutputPiece> piece = instance->OutputLocalPiece(0);
  ASSERT_TRUE(piece.ok()) << piece.status().ToString();
  EXPECT_TRUE(piece->has_local);
  EXPECT_EQ(piece->dtype, DType::kF32);
  EXPECT_EQ(piece->shape, yt->local_shape());
  EXPECT_EQ(piece->bytes(), want_piece.size() * sizeof(float));
  Result<PlanInstance::OutputPiece> bad_piece = instance->OutputLocalPiece(1);
  ASSERT_FALSE(bad_piece.ok());
  EXPECT_EQ(bad_piece.status().code(), StatusCode::kOutOfRange);
  EXPECT_NE(bad_piece.status().message().find("output index 1 but the program has 1 outputs"),
            std::string::npos)
      << bad_piece.status().message();

  std::vector<float> got(piece->bytes() / sizeof(float), -1.0f);
  Status early = instance->OutputLocal(0, got.data(), piece->bytes());
  EXPECT_EQ(early.code(), StatusCode::kFailedPrecondition) << early.ToString();
  EXPECT_NE(early.message().find("PlanInstance::OutputLocal: the plan has not run yet"),
            std::string::npos)
      << early.message();

  tensor::Tensor xt =
      tensor::FromLogical(x.data(), Shape({5, 3}), DType::kF32, p, d.program.value(d.x).meta.nd_sbp)
          .value();
  ASSERT_TRUE(instance->Run({xt}).ok());
  Status s = instance->OutputLocal(0, got.data(), piece->bytes());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectNear(got, want_piece, "OutputLocal");

  Status small = instance->OutputLocal(0, got.data(), piece->bytes() - 1);
  EXPECT_EQ(small.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(small.message().find("out_bytes is " + std::to_string(piece->bytes() - 1) +
                                 " but output #0's piece has " + std::to_string(piece->bytes()) +
                                 " bytes"),
            std::string::npos)
      << small.message();
  Status null_out = instance->OutputLocal(0, nullptr, piece->bytes());
  EXPECT_EQ(null_out.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(null_out.message().find("out is NULL"), std::string::npos) << null_out.message();
  EXPECT_EQ(instance->OutputLocal(1, got.data(), piece->bytes()).code(), StatusCode::kOutOfRange);
  Result<PlanInstance::OutputView> view = instance->Output(0);
  ASSERT_TRUE(view.ok());
  EXPECT_TRUE(view->mem_case.is_host());

  // A rank outside the output's placement holds no piece.
  if (WorldSize() > 1) {
    const Placement rank0 = Placement::Parse("cpu:[0]").value();
    Program program;
    ValueId in = program.AddInput("x", Shape({4}), DType::kF32, rank0).value();
    ValueId out = program.AddOp("relu", {in}).value()[0];
    ASSERT_TRUE(program.MarkOutput(out).ok());
    auto on_rank0 = PlanInstance::Create(Compile(program).value()).value();
    EXPECT_EQ(on_rank0->OutputLocalPiece(0)->has_local, WorldRank() == 0);
    EXPECT_EQ(on_rank0->OutputLocalPiece(0)->bytes(), WorldRank() == 0 ? 16u : 0u);
    std::vector<float> four = {-1, 2, -3, 4};
    kernels::LocalTensor local{four.data(), Shape({4}), DType::kF32};
    ASSERT_TRUE(on_rank0->Run(&local, 1).ok());
    std::vector<float> y(4, -7.0f);
    Status none = on_rank0->OutputLocal(0, y.data(), 16);
    if (WorldRank() == 0) {
      ASSERT_TRUE(none.ok()) << none.ToString();
      EXPECT_EQ(y, (std::vector<float>{0, 2, 0, 4}));
    } else {
      EXPECT_EQ(none.code(), StatusCode::kFailedPrecondition);
      EXPECT_NE(none.message().find("this rank holds no piece of output #0"), std::string::npos)
          << none.message();
    }
  }
}

// Programs on cuda placements are pure metadata until Compile, so every build can build
// them; a build without CUDA refuses to compile them, on every rank (also ranks the
// placement lacks), in the wording eager uses.
TEST(PlanCudaTest, CompileWithoutCudaIsUnimplemented) {
#if defined(TESSERA_WITH_CUDA)
  GTEST_SKIP() << "a CUDA build: tests/plan:cuda_plan_test covers cuda placements";
#endif
  const Placement world = WorldPlacement();
  // The world's ranks, and rank 0 alone.
  for (const Placement& p :
       {Placement::Make(DeviceType::kCuda, world.ranks(), world.hierarchy()).value(),
        Placement::Parse("cuda:[0]").value()}) {
    SCOPED_TRACE(p.ToString());
    Program program;
    ValueId x = program.AddInput("x", Shape({6, 2}), DType::kF32, p).value();
    ValueId y = program.AddOp("relu", {x}).value()[0];
    ASSERT_TRUE(program.MarkOutput(y).ok());
    Result<std::shared_ptr<const CompiledPlan>> plan = Compile(program);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.status().code(), StatusCode::kUnimplemented);
    EXPECT_EQ(plan.status().message(),
              "Compile: value %0 (\"x\") is on " + p.ToString() +
                  ": this Tessera was built without CUDA, so plans run on cpu placements only "
                  "(build with --config=cuda)");
  }
}

// An op mixing cpu and cuda inputs fails where it is added, with inference's message (the
// one eager::Apply gives for tensors on two placements).
TEST(PlanCudaTest, MixingCpuAndCudaInputsFailsAtAddOp) {
  const Placement cpu = WorldPlacement();
  const Placement cuda = Placement::Make(DeviceType::kCuda, cpu.ranks(), cpu.hierarchy()).value();
  Program program;
  ValueId a = program.AddInput("a", Shape({4, 3}), DType::kF32, cpu).value();
  ValueId b = program.AddInput("b", Shape({4, 3}), DType::kF32, cuda).value();
  Result<std::vector<ValueId>> mixed = program.AddOp("add", {a, b});
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = mixed.status().message();
  EXPECT_NE(m.find("AddOp: op #0 (add): "), std::string::npos) << m;
  EXPECT_NE(m.find("is on placement " + cuda.ToString() + " but"), std::string::npos) << m;
  EXPECT_NE(m.find("is on " + cpu.ToString() + "; inputs must share one placement"),
            std::string::npos)
      << m;
}

}  // namespace
}  // namespace tessera::plan
