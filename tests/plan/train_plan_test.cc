// Training in plan mode under mpirun (1 and 3 ranks): the forward, autograd's backward and
// a per-tensor optimizer step of a data-parallel MLP (tests/optim/mlp.h) captured into ONE
// plan; K plan runs must give the parameters and losses of K eager steps and of the naive
// reference (hand-derived gradients, PyTorch's update rules), and a warm run allocates
// nothing. Also the assign primitive itself (Program::AddAssign, plan::CaptureAssign) on a
// counter, and every bad input of it and of Optimizer::CaptureStep.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/autograd/backward.h"
#include "core/eager/interpreter.h"
#include "core/optim/optimizer.h"
#include "core/plan/capture.h"
#include "core/plan/compile.h"
#include "core/plan/plan_exec.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"
#include "tests/optim/mlp.h"

namespace tessera::plan {
namespace {

using optim::Algorithm;
using optim::Optimizer;
using optim::OptimizerOptions;
using optim_test::Mlp;
using optim_test::MlpConfig;
using optim_test::Values;
using tensor::Tensor;

constexpr int kSteps = 4;

OptimizerOptions SgdMomentum() {
  OptimizerOptions o;
  o.algorithm = Algorithm::kSgd;
  o.lr = 0.3;
  o.momentum = 0.9;
  o.weight_decay = 0.01;
  return o;
}

double Scalar(const Tensor& t) {
  double v = 0;
  EXPECT_TRUE(tensor::ToHost(t, &v).ok());
  return v;
}

// kSteps eager steps; the losses, in order.
std::vector<double> TrainEager(Mlp& mlp, Optimizer& opt) {
  std::vector<double> losses;
  for (int t = 1; t <= kSteps; ++t) {
    EXPECT_TRUE(opt.ZeroGrad().ok());
    auto batch = mlp.Batch(t).value();
    autograd::Variable loss = mlp.Loss(batch.first, batch.second).value();
    losses.push_back(Scalar(loss.value));
    EXPECT_TRUE(autograd::Backward({loss}, {}).ok());
    EXPECT_TRUE(opt.Step().ok());
  }
  return losses;
}

// Forward, backward and optimizer step captured into one program whose output is the
// loss.
Result<std::unique_ptr<Program>> CaptureTrainStep(Mlp& mlp, Optimizer& opt) {
  const MlpConfig& c = mlp.config;
  TESS_RETURN_IF_ERROR(BeginCapture());
  Result<std::unique_ptr<Program>> program = [&]() -> Result<std::unique_ptr<Program>> {
    TESS_ASSIGN_OR_RETURN(
        Tensor x, CapturePlaceholder("x", Shape{c.batch, c.in}, c.dtype, c.placement, c.data_sbp));
    TESS_ASSIGN_OR_RETURN(Tensor y, CapturePlaceholder("labels", Shape{c.batch}, DType::kI32,
                                                       c.placement, c.data_sbp));
    TESS_ASSIGN_OR_RETURN(autograd::Variable loss, mlp.Loss(x, y));
    TESS_RETURN_IF_ERROR(autograd::Backward({loss}, {}));
    TESS_RETURN_IF_ERROR(opt.CaptureStep());
    return EndCapture({loss.value});
  }();
  if (!program.ok()) {
    AbortCapture();
    // The gradients are placeholders of the aborted capture.
    for (autograd::Variable& p : mlp.params) p.meta->grad = nullptr;
  }
  return program;
}

OptimizerOptions AdamW() {
  OptimizerOptions o;
  o.algorithm = Algorithm::kAdamW;
  o.lr = 0.05;
  o.beta1 = 0.8;
  o.beta2 = 0.95;
  o.eps = 1e-6;
  o.weight_decay = 0.1;
  return o;
}

OptimizerOptions Adam() {
  OptimizerOptions o = AdamW();
  o.algorithm = Algorithm::kAdam;
  return o;
}

class TrainPlanTest : public ::testing::TestWithParam<OptimizerOptions> {};

TEST_P(TrainPlanTest, PlanMatchesEagerAndReference) {
  const MlpConfig c = optim_test::DataParallel(DType::kF64);
  const OptimizerOptions o = GetParam();

  Mlp eager = Mlp::Make(c).value();
  auto eager_opt = Optimizer::Create(eager.Params(), o).value();
  const std::vector<double> eager_losses = TrainEager(eager, *eager_opt);

  Mlp planned = Mlp::Make(c).value();
  auto opt = Optimizer::Create(planned.Params(), o).value();
  Result<std::unique_ptr<Program>> program = CaptureTrainStep(planned, *opt);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  // Four parameters and their state written back (Adam: also a step counter each).
  EXPECT_EQ((*program)->assigns().size(), o.algorithm == Algorithm::kSgd ? 8u : 16u);
  for (const autograd::Variable& p : planned.params) EXPECT_EQ(p.meta->grad, nullptr);
  auto compiled = Compile(**program).value();
  auto instance = PlanInstance::Create(compiled).value();
  std::vector<double> plan_losses;
  for (int t = 1; t <= kSteps; ++t) {
    auto batch = planned.Batch(t).value();
    ASSERT_TRUE(instance->Run({batch.first, batch.second}).ok());
    // The plan's parameters are the Mlp's own tensors: updated in place by the assigns.
    if (t > 1) {
      EXPECT_EQ(instance->stats().heap_allocations_last_run, 0) << "run " << t;
      EXPECT_EQ(instance->stats().allocator_calls_last_run, 0) << "run " << t;
    }
    plan_losses.push_back(Scalar(instance->OutputTensor(0).value()));
  }
  const Values want = optim_test::ReferenceTraining(c, o, kSteps);
  const Values eager_values = eager.ParamValues().value();
  const Values plan_values = planned.ParamValues().value();
  EXPECT_LE(optim_test::MaxRelativeError(plan_values, eager_values), 1e-12);
  EXPECT_LE(optim_test::MaxRelativeError(plan_values, want), 1e-12);
  ASSERT_EQ(plan_losses.size(), eager_losses.size());
  for (size_t t = 0; t < plan_losses.size(); ++t) {
    EXPECT_NEAR(plan_losses[t], eager_losses[t], 1e-12) << "step " << t + 1;
  }
  // The parameters moved: the test would fail were the assigns lost.
  EXPECT_GT(optim_test::MaxRelativeError(plan_values, optim_test::InitialParams(c)), 1e-3);
  // Lifetime reuse: the packed block is smaller than the registers laid end to end.
  const PlanStats stats = instance->stats();
  ASSERT_FALSE(stats.mem_cases.empty());
  EXPECT_LT(stats.mem_cases[0].block_bytes, stats.mem_cases[0].no_reuse_bytes);
}

INSTANTIATE_TEST_SUITE_P(Algorithms, TrainPlanTest,
                         ::testing::Values(SgdMomentum(), AdamW(), Adam()),
                         [](const ::testing::TestParamInfo<OptimizerOptions>& info) {
                           return std::string(optim::AlgorithmName(info.param.algorithm));
                         });

// After eager steps, a captured step continues the same training (the momentum buffers
// the eager steps made become variables); also SGD with dampening, allowed then.
TEST(TrainPlanContinueTest, PlanContinuesEagerTraining) {
  const MlpConfig c = optim_test::DataParallel(DType::kF64);
  for (OptimizerOptions o : {SgdMomentum(), AdamW()}) {
    o.dampening = o.algorithm == Algorithm::kSgd ? 0.1 : 0;
    Mlp mlp = Mlp::Make(c).value();
    auto opt = Optimizer::Create(mlp.Params(), o).value();
    ASSERT_TRUE(mlp.ForwardBackward(1).ok());
    ASSERT_TRUE(opt->Step().ok());
    ASSERT_TRUE(opt->ZeroGrad().ok());
    auto program = CaptureTrainStep(mlp, *opt);
    ASSERT_TRUE(program.ok()) << program.status().ToString();
    auto instance = PlanInstance::Create(Compile(**program).value()).value();
    for (int t = 2; t <= kSteps; ++t) {
      auto batch = mlp.Batch(t).value();
      ASSERT_TRUE(instance->Run({batch.first, batch.second}).ok());
    }
    EXPECT_LE(optim_test::MaxRelativeError(mlp.ParamValues().value(),
                                           optim_test::ReferenceTraining(c, o, kSteps)),
              1e-12)
        << optim::AlgorithmName(o.algorithm);
  }
}

TEST(TrainPlanBadInputTest, CaptureStep) {
  const MlpConfig c = optim_test::DataParallel(DType::kF64);
  Mlp mlp = Mlp::Make(c).value();
  auto sgd = Optimizer::Create(mlp.Params(), SgdMomentum()).value();
  Status s = sgd->CaptureStep();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("no capture is active"), std::string::npos) << s.ToString();

  OptimizerOptions damped = SgdMomentum();
  damped.dampening = 0.5;
  auto damped_opt = Optimizer::Create(mlp.Params(), damped).value();
  Result<std::unique_ptr<Program>> p = CaptureTrainStep(mlp, *damped_opt);
  EXPECT_EQ(p.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(p.status().message().find("parameter 0 took no step yet and dampening is 0.5"),
            std::string::npos)
      << p.status().ToString();
  EXPECT_FALSE(Capturing());

  OptimizerOptions fused = SgdMomentum();
  fused.fused = true;
  Mlp other = Mlp::Make(c).value();
  auto fused_opt = Optimizer::Create(other.Params(), fused).value();
  p = CaptureTrainStep(other, *fused_opt);
  EXPECT_EQ(p.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(p.status().message().find("fused mode"), std::string::npos) << p.status().ToString();
}

Placement World() { return optim_test::DataParallel(DType::kF64).placement; }

// counter += x at every run: the assign makes the program stateful.
TEST(AssignTest, CounterAccumulatesAcrossRuns) {
  const Placement p = World();
  const NdSbp b(Sbp::Broadcast());
  Tensor counter = tensor::Zeros(Shape{3}, DType::kF64, p, b).value();
  ASSERT_TRUE(BeginCapture().ok());
  Tensor x = CapturePlaceholder("x", Shape{3}, DType::kF64, p, b).value();
  Tensor sum = eager::Apply("add", {counter, x}).value()[0];
  Tensor twice = eager::Apply("add", {sum, counter}).value()[0];  // reads the old counter
  ASSERT_TRUE(CaptureAssign(counter, sum).ok());
  // An op on the variable alone is recorded through CaptureVariable (not run at capture).
  Tensor read = CaptureVariable(counter).value();
  EXPECT_TRUE(read->is_placeholder());
  EXPECT_TRUE(eager::Apply("scalar_mul", {read}, {{"value", op::AttrValue::Float(2)}})
                  .value()[0]
                  ->is_placeholder());
  auto program = EndCapture({twice}).value();
  EXPECT_NE(program->ToString().find("assigns: %1 <- %2"), std::string::npos)
      << program->ToString();
  auto instance = PlanInstance::Create(Compile(*program).value()).value();
  const double x_host[3] = {1, 2, 3};
  Tensor xt = tensor::FromLogical(x_host, Shape{3}, DType::kF64, p, b).value();
  for (int run = 1; run <= 3; ++run) {
    ASSERT_TRUE(instance->Run({xt}).ok());
    double got[3], out[3];
    ASSERT_TRUE(tensor::ToHost(counter, got).ok());
    ASSERT_TRUE(tensor::ToHost(instance->OutputTensor(0).value(), out).ok());
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(got[i], run * x_host[i]) << "run " << run;
      // 2 * old counter + x, the old counter being (run - 1) * x.
      EXPECT_EQ(out[i], (2 * run - 1) * x_host[i]) << "run " << run;
    }
  }
  EXPECT_EQ(instance->stats().heap_allocations_last_run, 0);
}

TEST(AssignTest, BadInputs) {
  const Placement p = World();
  const NdSbp b(Sbp::Broadcast());
  Tensor real = tensor::Zeros(Shape{4}, DType::kF64, p, b).value();
  Tensor real2 = tensor::Zeros(Shape{4}, DType::kF64, p, b).value();
  EXPECT_EQ(CaptureAssign(real, real2).code(), StatusCode::kFailedPrecondition);

  ASSERT_TRUE(BeginCapture().ok());
  Tensor x = CapturePlaceholder("x", Shape{4}, DType::kF64, p, b).value();
  Tensor y = eager::Apply("add", {real, x}).value()[0];
  Tensor wide = CapturePlaceholder("w", Shape{5}, DType::kF64, p, b).value();
  Tensor w2 = eager::Apply("relu", {wide}).value()[0];
  auto message = [](const Status& s) { return s.ToString(); };
  EXPECT_NE(message(CaptureAssign(nullptr, y)).find("target is NULL"), std::string::npos);
  EXPECT_NE(message(CaptureAssign(real, nullptr)).find("value is NULL"), std::string::npos);
  EXPECT_NE(message(CaptureAssign(x, y)).find("target ([4] f64"), std::string::npos);
  EXPECT_NE(message(CaptureAssign(real, real2)).find("is a real tensor, not a result"),
            std::string::npos);
  const Status mismatch = CaptureAssign(real, w2);
  EXPECT_EQ(mismatch.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(mismatch.message().find("they must match"), std::string::npos) << message(mismatch);
  ASSERT_TRUE(CaptureAssign(real, y).ok());
  const Status twice = CaptureAssign(real, y);
  EXPECT_NE(twice.message().find("is already assigned value"), std::string::npos) << message(twice);
  EXPECT_NE(message(CaptureVariable(nullptr).status()).find("t is NULL"), std::string::npos);
  EXPECT_NE(message(CaptureVariable(x).status()).find("is already a placeholder"),
            std::string::npos);
  AbortCapture();
  EXPECT_EQ(CaptureVariable(real).status().code(), StatusCode::kFailedPrecondition);

  // Program level: the target must be a variable, the value an op output.
  Program program;
  const ValueId in = program.AddInput("in", Shape{4}, DType::kF64, p, b).value();
  const ValueId var = program.AddVariable("var", real).value();
  const ValueId sum = program.AddOp("add", {in, var}).value()[0];
  EXPECT_NE(message(program.AddAssign(in, sum)).find("is not a variable"), std::string::npos);
  EXPECT_NE(message(program.AddAssign(var, in)).find("is not an op output"), std::string::npos);
  EXPECT_NE(message(program.AddAssign(var, 99)).find("value %99 does not exist"),
            std::string::npos);
  EXPECT_NE(message(program.AddAssign(-1, sum)).find("value %-1 does not exist"),
            std::string::npos);
  EXPECT_TRUE(program.AddAssign(var, sum).ok());
}

}  // namespace
}  // namespace tessera::plan
