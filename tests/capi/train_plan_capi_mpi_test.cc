// Training in plan mode through tessera.h under mpirun (1 and 3 ranks): a one-parameter
// model's forward, backward and SGD-momentum step captured into one plan
// (tess_optimizer_capture_step, which assigns the new parameter back with
// tess_capture_assign) and run three times; the parameter and the losses must follow
// the update rule computed here by hand. Then a counter through tess_capture_assign
// alone, and the bad inputs of both functions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/tessera.h"
#include "tests/capi/world_test_util.h"

namespace tessera::capi_test {
namespace {

struct PlanDestroy {
  void operator()(tess_program* p) const { tess_program_destroy(p); }
  void operator()(tess_plan* p) const { tess_plan_destroy(p); }
  void operator()(tess_plan_instance* p) const { tess_plan_instance_destroy(p); }
  void operator()(tess_optimizer* p) const { tess_optimizer_destroy(p); }
};
using ProgramPtr = std::unique_ptr<tess_program, PlanDestroy>;
using PlanPtr = std::unique_ptr<tess_plan, PlanDestroy>;
using InstancePtr = std::unique_ptr<tess_plan_instance, PlanDestroy>;
using OptimizerPtr = std::unique_ptr<tess_optimizer, PlanDestroy>;

const int64_t kShape[] = {3};
const double kX[] = {1, -2, 0.5};

TensorPtr FromHost(const double* data, const tess_placement* p, const tess_nd_sbp* b) {
  tess_tensor* t = nullptr;
  EXPECT_EQ(tess_tensor_from_host(&t, data, kShape, 1, TESS_DTYPE_F64, p, b), TESS_OK)
      << LastError();
  return TensorPtr(t);
}

std::vector<double> Host(const tess_tensor* t, size_t n) {
  std::vector<double> v(n);
  EXPECT_EQ(tess_tensor_to_host(v.data(), n * sizeof(double), t), TESS_OK) << LastError();
  return v;
}

InstancePtr Instantiate(const tess_program* program) {
  tess_plan* plan = nullptr;
  EXPECT_EQ(tess_plan_compile(&plan, program, nullptr), TESS_OK) << LastError();
  PlanPtr owned(plan);
  tess_plan_instance* instance = nullptr;
  EXPECT_EQ(tess_plan_instantiate(&instance, plan), TESS_OK) << LastError();
  return InstancePtr(instance);
}

// loss = sum(w * x), so dloss/dw = x; SGD with momentum m and lr: buf = m * buf + x
// (buf = x at the first step), w -= lr * buf.
TEST(TrainPlanCapiTest, CapturedSgdStepTrains) {
  PlacementPtr world = Placement(CpuOf(WorldRanks()));
  NdSbpPtr b = NdSbp("B");
  const double w0[] = {0.3, 0.7, -1.1};
  TensorPtr w = FromHost(w0, world.get(), b.get());
  ASSERT_EQ(tess_tensor_set_requires_grad(w.get(), 1), TESS_OK) << LastError();
  tess_optimizer_options o = TESS_OPTIMIZER_OPTIONS_INIT;
  o.algorithm = TESS_OPTIMIZER_SGD;
  o.lr = 0.1;
  o.momentum = 0.5;
  tess_tensor* params[] = {w.get()};
  tess_optimizer* raw_opt = nullptr;
  ASSERT_EQ(tess_optimizer_create(&raw_opt, params, 1, &o), TESS_OK) << LastError();
  OptimizerPtr opt(raw_opt);

  ASSERT_EQ(tess_capture_begin(), TESS_OK) << LastError();
  tess_tensor* raw = nullptr;
  ASSERT_EQ(tess_capture_placeholder(&raw, "x", kShape, 1, TESS_DTYPE_F64, world.get(), b.get()),
            TESS_OK)
      << LastError();
  TensorPtr x(raw);
  ASSERT_EQ(tess_mul(&raw, w.get(), x.get()), TESS_OK) << LastError();
  TensorPtr wx(raw);
  const int64_t axes[] = {0};
  ASSERT_EQ(tess_reduce_sum(&raw, wx.get(), axes, 1, 0), TESS_OK) << LastError();
  TensorPtr loss(raw);
  const tess_tensor* roots[] = {loss.get()};
  ASSERT_EQ(tess_autograd_backward(roots, 1, nullptr, nullptr), TESS_OK) << LastError();
  ASSERT_EQ(tess_optimizer_capture_step(opt.get()), TESS_OK) << LastError();
  tess_program* p = nullptr;
  ASSERT_EQ(tess_capture_end(&p, roots, 1), TESS_OK) << LastError();
  ProgramPtr program(p);
  InstancePtr instance = Instantiate(program.get());

  TensorPtr xt = FromHost(kX, world.get(), b.get());
  std::vector<double> want(w0, w0 + 3), buf(3, 0);
  for (int run = 1; run <= 3; ++run) {
    double want_loss = 0;
    for (int i = 0; i < 3; ++i) want_loss += want[i] * kX[i];
    const tess_tensor* inputs[] = {xt.get()};
    ASSERT_EQ(tess_plan_instance_run(instance.get(), inputs, 1), TESS_OK) << LastError();
    tess_tensor* out = nullptr;
    ASSERT_EQ(tess_plan_instance_output(&out, instance.get(), 0), TESS_OK) << LastError();
    TensorPtr got_loss(out);
    EXPECT_NEAR(Host(got_loss.get(), 1)[0], want_loss, 1e-14) << "run " << run;
    for (int i = 0; i < 3; ++i) {
      buf[i] = run == 1 ? kX[i] : o.momentum * buf[i] + kX[i];
      want[i] -= o.lr * buf[i];
    }
    const std::vector<double> got = Host(w.get(), 3);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(got[i], want[i], 1e-14) << "run " << run;
  }
}

TEST(TrainPlanCapiTest, AssignAccumulatesAndBadInputs) {
  PlacementPtr world = Placement(CpuOf(WorldRanks()));
  NdSbpPtr b = NdSbp("B");
  const double zeros[] = {0, 0, 0};
  TensorPtr counter = FromHost(zeros, world.get(), b.get());
  EXPECT_EQ(tess_capture_assign(counter.get(), counter.get()), TESS_FAILED_PRECONDITION);
  EXPECT_TRUE(ErrorHas("no capture"));

  ASSERT_EQ(tess_capture_begin(), TESS_OK) << LastError();
  tess_tensor* raw = nullptr;
  ASSERT_EQ(tess_capture_placeholder(&raw, "x", kShape, 1, TESS_DTYPE_F64, world.get(), b.get()),
            TESS_OK)
      << LastError();
  TensorPtr x(raw);
  ASSERT_EQ(tess_add(&raw, counter.get(), x.get()), TESS_OK) << LastError();
  TensorPtr sum(raw);
  EXPECT_EQ(tess_capture_assign(nullptr, sum.get()), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("target"));
  EXPECT_EQ(tess_capture_assign(counter.get(), nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("value"));
  EXPECT_EQ(tess_capture_assign(x.get(), sum.get()), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("placeholder"));
  EXPECT_EQ(tess_capture_assign(counter.get(), counter.get()), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("real tensor"));
  ASSERT_EQ(tess_capture_assign(counter.get(), sum.get()), TESS_OK) << LastError();
  EXPECT_EQ(tess_capture_assign(counter.get(), sum.get()), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("already assigned"));
  const tess_tensor* outs[] = {sum.get()};
  tess_program* p = nullptr;
  ASSERT_EQ(tess_capture_end(&p, outs, 1), TESS_OK) << LastError();
  ProgramPtr program(p);
  InstancePtr instance = Instantiate(program.get());
  TensorPtr xt = FromHost(kX, world.get(), b.get());
  for (int run = 1; run <= 3; ++run) {
    const tess_tensor* inputs[] = {xt.get()};
    ASSERT_EQ(tess_plan_instance_run(instance.get(), inputs, 1), TESS_OK) << LastError();
    const std::vector<double> got = Host(counter.get(), 3);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(got[i], run * kX[i]) << "run " << run;
  }

  EXPECT_EQ(tess_optimizer_capture_step(nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("optimizer"));
  tess_optimizer_options o = TESS_OPTIMIZER_OPTIONS_INIT;
  ASSERT_EQ(tess_tensor_set_requires_grad(counter.get(), 1), TESS_OK) << LastError();
  tess_tensor* params[] = {counter.get()};
  tess_optimizer* raw_opt = nullptr;
  ASSERT_EQ(tess_optimizer_create(&raw_opt, params, 1, &o), TESS_OK) << LastError();
  OptimizerPtr opt(raw_opt);
  EXPECT_EQ(tess_optimizer_capture_step(opt.get()), TESS_FAILED_PRECONDITION);
  EXPECT_TRUE(ErrorHas("no capture"));
}

}  // namespace
}  // namespace tessera::capi_test
