// Capture under mpirun (1-4 ranks): a model written once as eager calls is run eagerly
// on real tensors and, on placeholders, recorded into a Program, compiled and run as a
// plan; the two must agree. Also: real tensors become deduplicated variables, ops on
// real tensors alone run eagerly, to_global records a boxing step, and every misuse
// (nested capture, placeholders outside their capture, to_host on a placeholder, bad
// outputs) fails with a clear error.
#include "core/plan/capture.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "core/eager/interpreter.h"
#include "core/plan/compile.h"
#include "core/plan/plan_exec.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"
#include "tests/plan/plan_test_util.h"

namespace tessera::plan {
namespace {

using plan_test::ExpectNear;
using plan_test::Host;
using plan_test::Nd;
using plan_test::WorldPlacement;
using plan_test::WorldSize;
using tensor::Tensor;

Tensor Op(const char* name, const std::vector<Tensor>& inputs, const op::AttrMap& attrs = {}) {
  Result<std::vector<Tensor>> out = eager::Apply(name, inputs, attrs);
  EXPECT_TRUE(out.ok()) << name << ": " << out.status().ToString();
  return out.ok() ? out.value()[0] : nullptr;
}

struct Weights {
  Tensor w1, b1, w2, b2;
};

Weights MakeWeights(const Placement& p) {
  const NdSbp b = Nd("B");
  Weights w;
  w.w1 = tensor::Randn(Shape({6, 8}), DType::kF32, 1, p, Nd("S(1)")).value();  // forces boxing
  w.b1 = tensor::Randn(Shape({8}), DType::kF32, 2, p, b).value();
  w.w2 = tensor::Randn(Shape({8, 5}), DType::kF32, 3, p, b).value();
  w.b2 = tensor::Randn(Shape({5}), DType::kF32, 4, p, b).value();
  return w;
}

// The model, written once. w1 is used twice (a residual through the same weight) so the
// capture must make it one variable.
std::vector<Tensor> Model(const Tensor& x, const Weights& w) {
  Tensor h = Op("relu", {Op("bias_add", {Op("matmul", {x, w.w1}), w.b1})});
  Tensor g = Op("tanh", {Op("matmul", {x, w.w1})});
  h = Op("add", {h, g});
  Tensor logits = Op("bias_add", {Op("matmul", {h, w.w2}), w.b2});
  Tensor probs = Op("softmax", {logits});
  Tensor total = Op("reduce_sum", {probs}, {{"axes", op::AttrValue::Ints({0})}});
  return {probs, total};
}

TEST(CaptureTest, CapturedModelMatchesEager) {
  const Placement p = WorldPlacement();
  const Weights w = MakeWeights(p);
  ASSERT_TRUE(BeginCapture().ok());
  EXPECT_TRUE(Capturing());
  Result<Tensor> x = CapturePlaceholder("x", Shape({7, 6}), DType::kF32, p);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_TRUE(x.value()->is_placeholder());
  EXPECT_FALSE(x.value()->has_local());
  EXPECT_EQ(x.value()->nd_sbp(), Nd("S(0)"));  // data inputs default to S(0)
  const std::vector<Tensor> outs = Model(x.value(), w);
  ASSERT_TRUE(outs[0] != nullptr && outs[1] != nullptr);
  EXPECT_TRUE(outs[0]->is_placeholder());
  EXPECT_EQ(outs[0]->shape(), Shape({7, 5}));
  Result<std::unique_ptr<Program>> program = EndCapture(outs);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  EXPECT_FALSE(Capturing());

  // 10 ops; one variable per distinct weight (w1 used twice).
  const Program& prog = *program.value();
  EXPECT_EQ(prog.ops().size(), 10u) << prog.ToString();
  int variables = 0;
  for (const ProgramValue& v : prog.values()) variables += v.kind == ValueKind::kVariable;
  EXPECT_EQ(variables, 4) << prog.ToString();
  EXPECT_EQ(prog.inputs().size(), 1u);
  EXPECT_EQ(prog.outputs().size(), 2u);
  EXPECT_NE(prog.ToString().find("input \"x\""), std::string::npos) << prog.ToString();

  Result<std::shared_ptr<const CompiledPlan>> plan = Compile(prog);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  if (WorldSize() > 1) {
    EXPECT_GT(plan.value()->num_boxing_steps, 0) << plan.value()->ToString();
  }
  Result<std::unique_ptr<PlanInstance>> run = PlanInstance::Create(plan.value());
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  for (uint64_t seed : {10, 20, 10}) {
    const Tensor real = tensor::Randn(Shape({7, 6}), DType::kF32, seed, p, Nd("S(0)")).value();
    const std::vector<Tensor> want = Model(real, w);
    Status s = run.value()->Run({real});
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (size_t o = 0; o < want.size(); ++o) {
      ExpectNear(Host(run.value()->OutputTensor(o).value()), Host(want[o]),
                 ("output " + std::to_string(o) + " seed " + std::to_string(seed)).c_str());
    }
  }
}

TEST(CaptureTest, OpsOnRealTensorsRunEagerlyDuringCapture) {
  const Placement p = WorldPlacement();
  const Tensor a = tensor::Full(Shape({4}), DType::kF32, 2.0, p, Nd("B")).value();
  ASSERT_TRUE(BeginCapture().ok());
  const Tensor doubled = Op("add", {a, a});  // real: runs now, a constant of the program
  ASSERT_NE(doubled, nullptr);
  EXPECT_FALSE(doubled->is_placeholder());
  Result<Tensor> x = CapturePlaceholder("x", Shape({4}), DType::kF32, p, Nd("B"));
  ASSERT_TRUE(x.ok());
  const Tensor y = Op("mul", {x.value(), doubled});
  Result<std::unique_ptr<Program>> program = EndCapture({y});
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  EXPECT_EQ(program.value()->ops().size(), 1u) << program.value()->ToString();
  EXPECT_EQ(Host(doubled), std::vector<float>(4, 4.0f));

  Result<std::shared_ptr<const CompiledPlan>> plan = Compile(*program.value());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto run = PlanInstance::Create(plan.value()).value();
  const Tensor in = tensor::Arange(0, 4, 1, DType::kF32, p, Nd("B")).value();
  ASSERT_TRUE(run->Run({in}).ok());
  EXPECT_EQ(Host(run->OutputTensor(0).value()), (std::vector<float>{0, 4, 8, 12}));
}

TEST(CaptureTest, ToGlobalOnAPlaceholderBecomesABoxingStep) {
  const Placement p = WorldPlacement();
  ASSERT_TRUE(BeginCapture().ok());
  Result<Tensor> x = CapturePlaceholder("x", Shape({5, 3}), DType::kF32, p, Nd("S(0)"));
  ASSERT_TRUE(x.ok());
  Result<Tensor> b = tensor::ToGlobal(x.value(), p, Nd("B"));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_TRUE(b.value()->is_placeholder());
  EXPECT_EQ(b.value()->nd_sbp(), Nd("B"));
  const Tensor y = Op("neg", {b.value()});
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->nd_sbp(), Nd("B"));
  Result<std::unique_ptr<Program>> program = EndCapture({y});
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  Result<std::shared_ptr<const CompiledPlan>> plan = Compile(*program.value());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  if (WorldSize() > 1) {
    EXPECT_EQ(plan.value()->num_boxing_steps, 1) << plan.value()->ToString();
  }
  auto run = PlanInstance::Create(plan.value()).value();
  std::vector<float> logical(15);
  std::iota(logical.begin(), logical.end(), 0.0f);
  const Tensor real =
      tensor::FromLogical(logical.data(), Shape({5, 3}), DType::kF32, p, Nd("S(0)")).value();
  ASSERT_TRUE(run->Run({real}).ok());
  std::vector<float> want(15);
  for (size_t i = 0; i < 15; ++i) want[i] = -logical[i];
  EXPECT_EQ(Host(run->OutputTensor(0).value()), want);
}

TEST(CaptureTest, Misuse) {
  const Placement p = WorldPlacement();
  // No capture active.
  EXPECT_EQ(CapturePlaceholder("x", Shape({2}), DType::kF32, p).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(EndCapture({}).status().code(), StatusCode::kFailedPrecondition);
  AbortCapture();  // harmless without a capture

  ASSERT_TRUE(BeginCapture().ok());
  Status nested = BeginCapture();
  EXPECT_EQ(nested.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(nested.message().find("already active"), std::string::npos) << nested.ToString();
  Tensor x = CapturePlaceholder("x", Shape({2, 3}), DType::kF32, p, Nd("B")).value();
  // A repeated input name, a bad op call: errors at the call, the capture goes on.
  EXPECT_EQ(CapturePlaceholder("x", Shape({2}), DType::kF32, p).status().code(),
            StatusCode::kInvalidArgument);
  Result<std::vector<Tensor>> bad = eager::Apply("matmul", {x, x});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument) << bad.status().ToString();
  // A placeholder has no value.
  std::vector<float> host(6);
  Status to_host = tensor::ToHost(x, host.data());
  EXPECT_EQ(to_host.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(to_host.message().find("placeholder"), std::string::npos) << to_host.ToString();
  // Cross-placement moves are not recorded.
  if (WorldSize() > 1) {
    const Placement first = Placement::Make(DeviceType::kCpu, {0}, {1}).value();
    EXPECT_EQ(tensor::ToGlobal(x, first, Nd("B")).status().code(), StatusCode::kUnimplemented);
  }
  // A placeholder used on another thread (no capture there).
  Status other_thread;
  std::thread([&] { other_thread = eager::Apply("neg", {x}).status(); }).join();
  EXPECT_EQ(other_thread.code(), StatusCode::kFailedPrecondition) << other_thread.ToString();
  EXPECT_NE(other_thread.message().find("no capture is active"), std::string::npos);

  // Bad outputs end the capture too.
  const Tensor real = tensor::Full(Shape({2}), DType::kF32, 1.0, p, Nd("B")).value();
  Result<std::unique_ptr<Program>> r = EndCapture({real});
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("output #0"), std::string::npos) << r.status().ToString();
  EXPECT_FALSE(Capturing());
  // x's capture ended: using it fails; so does a stale placeholder in a new capture.
  EXPECT_EQ(eager::Apply("neg", {x}).status().code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(BeginCapture().ok());
  EXPECT_EQ(eager::Apply("neg", {x}).status().code(), StatusCode::kFailedPrecondition);
  const Tensor y =
      eager::Apply("neg", {CapturePlaceholder("y", Shape({2}), DType::kF32, p).value()}).value()[0];
  EXPECT_EQ(EndCapture({y, y}).status().code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(BeginCapture().ok());
  EXPECT_EQ(EndCapture({nullptr}).status().code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(BeginCapture().ok());
  EXPECT_EQ(EndCapture({y}).status().code(), StatusCode::kInvalidArgument);  // another capture's
  ASSERT_TRUE(BeginCapture().ok());
  AbortCapture();
  EXPECT_FALSE(Capturing());
}

}  // namespace
}  // namespace tessera::plan
