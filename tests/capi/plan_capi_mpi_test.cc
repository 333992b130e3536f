// Plan mode through tessera.h under mpirun (1-4 ranks): a small MLP forward, built
// explicitly (tess_program_*) and recorded by capture (tess_capture_*), compiled, run
// on several inputs and checked against the same ops run eagerly and against plain
// loops; runs from local buffers; the statistics; and every function's bad inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
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
};
using ProgramPtr = std::unique_ptr<tess_program, PlanDestroy>;
using PlanPtr = std::unique_ptr<tess_plan, PlanDestroy>;
using InstancePtr = std::unique_ptr<tess_plan_instance, PlanDestroy>;

constexpr int64_t kBatch = 7, kIn = 6, kWidth = 8, kOut = 5;

// tess_plan_compile with input_register_num `slots`.
tess_status Compile(tess_plan** out, const tess_program* program, int32_t slots) {
  tess_plan_compile_options options = TESS_PLAN_COMPILE_OPTIONS_INIT;
  options.input_register_num = slots;
  return tess_plan_compile(out, program, &options);
}

tess_plan_stats StatsOf(const tess_plan_instance* instance) {
  tess_plan_stats stats = TESS_PLAN_STATS_INIT;
  EXPECT_EQ(tess_plan_instance_get_stats(&stats, instance), TESS_OK) << LastError();
  return stats;
}

std::vector<float> Values(int64_t n, int salt) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7 + salt) % 23 - 11) * 0.125f;
  return v;
}

// The weights as host values and as tensors: w1 split along its columns (the matmul
// then needs boxing on more than one rank), the rest broadcast.
struct Weights {
  std::vector<float> w1 = Values(kIn * kWidth, 1), b1 = Values(kWidth, 2);
  std::vector<float> w2 = Values(kWidth * kOut, 3), b2 = Values(kOut, 4);
  TensorPtr t_w1, t_b1, t_w2, t_b2;
  Weights() {
    const std::string world = CpuOf(WorldRanks());
    t_w1 = FromHost(w1, {kIn, kWidth}, world, "S(1)");
    t_b1 = FromHost(b1, {kWidth}, world, "B");
    t_w2 = FromHost(w2, {kWidth, kOut}, world, "B");
    t_b2 = FromHost(b2, {kOut}, world, "B");
  }
};

// softmax(relu(x w1 + b1) w2 + b2) by plain loops.
std::vector<float> Oracle(const std::vector<float>& x, const Weights& w) {
  std::vector<float> h(kBatch * kWidth), y(kBatch * kOut);
  for (int64_t i = 0; i < kBatch; ++i) {
    for (int64_t j = 0; j < kWidth; ++j) {
      double s = w.b1[j];
      for (int64_t k = 0; k < kIn; ++k) s += double(x[i * kIn + k]) * w.w1[k * kWidth + j];
      h[i * kWidth + j] = s > 0 ? static_cast<float>(s) : 0.0f;
    }
    double max = -1e30, sum = 0;
    std::vector<double> logits(kOut);
    for (int64_t j = 0; j < kOut; ++j) {
      double s = w.b2[j];
      for (int64_t k = 0; k < kWidth; ++k) s += double(h[i * kWidth + k]) * w.w2[k * kOut + j];
      logits[j] = s;
      max = std::max(max, s);
    }
    for (int64_t j = 0; j < kOut; ++j) sum += std::exp(logits[j] - max);
    for (int64_t j = 0; j < kOut; ++j) {
      y[i * kOut + j] = static_cast<float>(std::exp(logits[j] - max) / sum);
    }
  }
  return y;
}

TensorPtr Apply1(const char* op, std::vector<const tess_tensor*> inputs) {
  tess_op_call* call = nullptr;
  EXPECT_EQ(tess_op_call_create(&call, op), TESS_OK) << LastError();
  OpCallPtr owned(call);
  tess_tensor* out = nullptr;
  size_t n = 0;
  EXPECT_EQ(tess_op_call_apply(&out, 1, &n, call, inputs.data(), inputs.size()), TESS_OK)
      << op << ": " << LastError();
  return TensorPtr(out);
}

// The model through the typed ops: eager on real tensors, recorded on placeholders.
TensorPtr Model(const tess_tensor* x, const Weights& w) {
  tess_tensor* t = nullptr;
  EXPECT_EQ(tess_matmul(&t, x, w.t_w1.get(), 0, 0), TESS_OK) << LastError();
  TensorPtr h(t);
  h = Apply1("bias_add", {h.get(), w.t_b1.get()});
  EXPECT_EQ(tess_relu(&t, h.get()), TESS_OK) << LastError();
  h.reset(t);
  EXPECT_EQ(tess_matmul(&t, h.get(), w.t_w2.get(), 0, 0), TESS_OK) << LastError();
  h.reset(t);
  h = Apply1("bias_add", {h.get(), w.t_b2.get()});
  EXPECT_EQ(tess_softmax(&t, h.get(), -1), TESS_OK) << LastError();
  return TensorPtr(t);
}

int64_t AddOp(tess_program* p, const char* op, std::vector<int64_t> inputs) {
  tess_op_call* call = nullptr;
  EXPECT_EQ(tess_op_call_create(&call, op), TESS_OK) << LastError();
  OpCallPtr owned(call);
  int64_t first = -1;
  size_t n = 0;
  EXPECT_EQ(tess_program_add_op(&first, &n, p, call, inputs.data(), inputs.size()), TESS_OK)
      << op << ": " << LastError();
  EXPECT_EQ(n, 1u);
  return first;
}

ProgramPtr ExplicitMlp(const Weights& w) {
  tess_program* p = nullptr;
  EXPECT_EQ(tess_program_create(&p), TESS_OK);
  ProgramPtr program(p);
  PlacementPtr world = Placement(CpuOf(WorldRanks()));
  const int64_t shape[] = {kBatch, kIn};
  int64_t x = -1, w1 = -1, b1 = -1, w2 = -1, b2 = -1;
  EXPECT_EQ(tess_program_add_input(&x, p, "x", shape, 2, TESS_DTYPE_F32, world.get(), nullptr),
            TESS_OK)
      << LastError();
  EXPECT_EQ(tess_program_add_variable(&w1, p, "w1", w.t_w1.get()), TESS_OK) << LastError();
  EXPECT_EQ(tess_program_add_variable(&b1, p, "b1", w.t_b1.get()), TESS_OK) << LastError();
  EXPECT_EQ(tess_program_add_variable(&w2, p, "w2", w.t_w2.get()), TESS_OK) << LastError();
  EXPECT_EQ(tess_program_add_variable(&b2, p, "b2", w.t_b2.get()), TESS_OK) << LastError();
  int64_t h = AddOp(p, "matmul", {x, w1});
  h = AddOp(p, "bias_add", {h, b1});
  h = AddOp(p, "relu", {h});
  h = AddOp(p, "matmul", {h, w2});
  h = AddOp(p, "bias_add", {h, b2});
  h = AddOp(p, "softmax", {h});
  EXPECT_EQ(tess_program_mark_output(p, h), TESS_OK) << LastError();
  return program;
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5f) << what << " " << i;
}

// Compiles `program`, runs it on three inputs (x1, x2, x1) and checks each output
// against the eager model and the loops; then warm runs allocate nothing.
void CheckProgram(const tess_program* program, const Weights& w) {
  tess_plan* raw_plan = nullptr;
  ASSERT_EQ(tess_plan_compile(&raw_plan, program, nullptr), TESS_OK) << LastError();
  PlanPtr plan(raw_plan);
  const std::string text = tess_plan_string(plan.get());
  EXPECT_NE(text.find("kernel matmul"), std::string::npos) << text;
  tess_plan_instance* raw = nullptr;
  ASSERT_EQ(tess_plan_instantiate(&raw, plan.get()), TESS_OK) << LastError();
  InstancePtr instance(raw);
  plan.reset();  // the instance keeps what it needs

  const std::string world = CpuOf(WorldRanks());
  for (int salt : {10, 20, 10}) {
    const std::vector<float> x = Values(kBatch * kIn, salt);
    TensorPtr tx = FromHost(x, {kBatch, kIn}, world, "S(0)");
    const tess_tensor* inputs[] = {tx.get()};
    ASSERT_EQ(tess_plan_instance_run(instance.get(), inputs, 1), TESS_OK) << LastError();
    tess_tensor* out = nullptr;
    ASSERT_EQ(tess_plan_instance_output(&out, instance.get(), 0), TESS_OK) << LastError();
    TensorPtr y(out);
    const std::vector<float> got = ToHost<float>(y.get());
    TensorPtr eager = Model(tx.get(), w);
    ExpectNear(got, ToHost<float>(eager.get()), "plan vs eager");
    ExpectNear(got, Oracle(x, w), "plan vs loops");

    // The piece's dtype and shape without the collective output: those of y's piece.
    tess_dtype dtype = -1;
    ASSERT_EQ(tess_plan_instance_output_dtype(&dtype, instance.get(), 0), TESS_OK) << LastError();
    EXPECT_EQ(dtype, TESS_DTYPE_F32);
    const int64_t* dims = nullptr;
    size_t ndim = 0;
    ASSERT_EQ(tess_plan_instance_output_local_shape(&dims, &ndim, instance.get(), 0), TESS_OK)
        << LastError();
    EXPECT_EQ(std::vector<int64_t>(dims, dims + ndim), ShapeOf(y.get(), /*local=*/true));

    // The same input as this rank's local piece: the same output piece.
    int64_t n = 0;
    ASSERT_EQ(tess_tensor_local_num_elements(&n, tx.get()), TESS_OK);
    std::vector<float> local(static_cast<size_t>(n));
    ASSERT_EQ(tess_tensor_copy_local(local.data(), local.size() * 4, tx.get()), TESS_OK);
    std::vector<float> piece_tensor_run;
    int64_t out_n = -1;
    ASSERT_EQ(tess_plan_instance_output_local_num_elements(&out_n, instance.get(), 0), TESS_OK);
    piece_tensor_run.resize(static_cast<size_t>(out_n));
    ASSERT_EQ(tess_plan_instance_output_local(piece_tensor_run.data(), piece_tensor_run.size() * 4,
                                              instance.get(), 0),
              TESS_OK)
        << LastError();
    const void* locals[] = {local.data()};
    const size_t bytes[] = {local.size() * 4};
    ASSERT_EQ(tess_plan_instance_run_local(instance.get(), locals, bytes, 1), TESS_OK)
        << LastError();
    std::vector<float> piece(static_cast<size_t>(out_n));
    ASSERT_EQ(tess_plan_instance_output_local(piece.data(), piece.size() * 4, instance.get(), 0),
              TESS_OK);
    EXPECT_EQ(piece, piece_tensor_run);
  }

  const tess_plan_stats stats = StatsOf(instance.get());
  const int64_t registers = stats.registers, steps = stats.steps, boxing = stats.boxing_steps,
                runs = stats.runs;
  EXPECT_GT(registers, 0);
  EXPECT_EQ(steps, 6 + boxing);
  if (WorldSize() > 1) {
    EXPECT_GT(boxing, 0);
  }
  EXPECT_EQ(runs, 6);
  EXPECT_EQ(stats.allocator_calls_last_run, 0);
  EXPECT_EQ(stats.heap_allocations_last_run, -1);  // this binary does not count operator new
  EXPECT_EQ(stats.cuda_graphs, 0);                 // cpu placements never replay as CUDA graphs
  EXPECT_EQ(stats.cuda_graph_launches, 0);
  size_t cases = 0;
  ASSERT_EQ(tess_plan_instance_num_mem_cases(&cases, instance.get()), TESS_OK);
  ASSERT_EQ(cases, 1u);
  EXPECT_STREQ(tess_plan_instance_mem_case_name(instance.get(), 0), "cpu");
  int64_t block = 0, lower = 0, no_reuse = 0;
  ASSERT_EQ(tess_plan_instance_mem_case_bytes(&block, &lower, &no_reuse, instance.get(), 0),
            TESS_OK);
  EXPECT_GT(lower, 0);
  EXPECT_GE(block, lower);
  EXPECT_GE(no_reuse, block);
}

TEST(PlanCapiTest, ExplicitProgramMatchesEagerAndLoops) {
  Weights w;
  ProgramPtr program = ExplicitMlp(w);
  int64_t values = 0, ops = 0, inputs = 0, outputs = 0;
  ASSERT_EQ(tess_program_sizes(&values, &ops, &inputs, &outputs, program.get()), TESS_OK);
  EXPECT_EQ(values, 11);
  EXPECT_EQ(ops, 6);
  EXPECT_EQ(inputs, 1);
  EXPECT_EQ(outputs, 1);
  const std::string text = tess_program_string(program.get());
  EXPECT_NE(text.find("%5 = matmul(%0, %1)"), std::string::npos) << text;
  CheckProgram(program.get(), w);
}

TEST(PlanCapiTest, CapturedProgramMatchesEagerAndLoops) {
  Weights w;
  PlacementPtr world = Placement(CpuOf(WorldRanks()));
  ASSERT_EQ(tess_capture_begin(), TESS_OK) << LastError();
  int32_t active = 0;
  ASSERT_EQ(tess_capture_active(&active), TESS_OK);
  EXPECT_EQ(active, 1);
  const int64_t shape[] = {kBatch, kIn};
  tess_tensor* raw = nullptr;
  ASSERT_EQ(tess_capture_placeholder(&raw, "x", shape, 2, TESS_DTYPE_F32, world.get(), nullptr),
            TESS_OK)
      << LastError();
  TensorPtr x(raw);
  EXPECT_NE(std::string(tess_tensor_string(x.get())).find("S(0)"), std::string::npos);
  TensorPtr y = Model(x.get(), w);
  const tess_tensor* outs[] = {y.get()};
  tess_program* p = nullptr;
  ASSERT_EQ(tess_capture_end(&p, outs, 1), TESS_OK) << LastError();
  ProgramPtr program(p);
  ASSERT_EQ(tess_capture_active(&active), TESS_OK);
  EXPECT_EQ(active, 0);
  int64_t values = 0, ops = 0, inputs = 0, outputs = 0;
  ASSERT_EQ(tess_program_sizes(&values, &ops, &inputs, &outputs, program.get()), TESS_OK);
  EXPECT_EQ(ops, 6) << tess_program_string(program.get());
  EXPECT_EQ(values, 11);
  CheckProgram(program.get(), w);
}

// input_register_num 2: a pusher thread pushes 12 precomputed input sets while this
// thread runs them; every output must equal the eager model's on its own input, in
// order. Then the pipeline's errors: nothing pushed, a run with sets waiting, close.
TEST(PlanCapiTest, PipelinedPushAndRun) {
  Weights w;
  ProgramPtr program = ExplicitMlp(w);
  tess_plan* raw_plan = nullptr;
  ASSERT_EQ(Compile(&raw_plan, program.get(), 2), TESS_OK) << LastError();
  PlanPtr plan(raw_plan);
  EXPECT_NE(std::string(tess_plan_string(plan.get())).find("2 copies of each input"),
            std::string::npos)
      << tess_plan_string(plan.get());
  tess_plan_instance* raw = nullptr;
  ASSERT_EQ(tess_plan_instantiate(&raw, plan.get()), TESS_OK) << LastError();
  InstancePtr instance(raw);

  constexpr int kSets = 12;
  const std::string world = CpuOf(WorldRanks());
  std::vector<TensorPtr> inputs;
  std::vector<std::vector<float>> want;
  for (int k = 0; k < kSets; ++k) {
    inputs.push_back(FromHost(Values(kBatch * kIn, 30 + k), {kBatch, kIn}, world, "S(0)"));
    TensorPtr eager = Model(inputs.back().get(), w);
    want.push_back(ToHost<float>(eager.get()));
  }
  std::vector<tess_status> pushed(kSets, -1);
  std::thread pusher([&] {
    for (int k = 0; k < kSets; ++k) {
      const tess_tensor* in[] = {inputs[k].get()};
      pushed[k] = tess_plan_instance_push(instance.get(), in, 1, -1);
    }
  });
  for (int k = 0; k < kSets; ++k) {
    ASSERT_EQ(tess_plan_instance_run_pushed(instance.get(), 30), TESS_OK) << LastError();
    tess_tensor* out = nullptr;
    ASSERT_EQ(tess_plan_instance_output(&out, instance.get(), 0), TESS_OK) << LastError();
    TensorPtr y(out);
    ExpectNear(ToHost<float>(y.get()), want[k], ("set " + std::to_string(k)).c_str());
  }
  pusher.join();
  for (int k = 0; k < kSets; ++k) EXPECT_EQ(pushed[k], TESS_OK) << "push " << k;
  EXPECT_EQ(StatsOf(instance.get()).allocator_calls_last_run, 0);

  // Nothing pushed: an error after the timeout, not a hang.
  EXPECT_EQ(tess_plan_instance_run_pushed(instance.get(), 0), TESS_DEADLINE_EXCEEDED);
  EXPECT_TRUE(ErrorHas("nothing was pushed"));
  const tess_tensor* in[] = {inputs[0].get()};
  ASSERT_EQ(tess_plan_instance_push(instance.get(), in, 1, 0), TESS_OK) << LastError();
  EXPECT_EQ(tess_plan_instance_run(instance.get(), in, 1), TESS_FAILED_PRECONDITION);
  ASSERT_EQ(tess_plan_instance_push(instance.get(), in, 1, 0), TESS_OK) << LastError();
  EXPECT_EQ(tess_plan_instance_push(instance.get(), in, 1, 0),
            TESS_DEADLINE_EXCEEDED);  // both full
  EXPECT_EQ(tess_plan_instance_push(instance.get(), nullptr, 1, 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_plan_instance_push(nullptr, in, 1, 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_plan_instance_run_pushed(nullptr, 0), TESS_INVALID_ARGUMENT);
  ASSERT_EQ(tess_plan_instance_run_pushed(instance.get(), 0), TESS_OK) << LastError();
  ASSERT_EQ(tess_plan_instance_close(instance.get()), TESS_OK);
  EXPECT_EQ(tess_plan_instance_close(instance.get()), TESS_OK);  // idempotent
  EXPECT_EQ(tess_plan_instance_run_pushed(instance.get(), 0), TESS_CANCELLED);
  EXPECT_EQ(tess_plan_instance_push(instance.get(), in, 1, 0), TESS_CANCELLED);
  EXPECT_EQ(tess_plan_instance_close(nullptr), TESS_INVALID_ARGUMENT);
}

TEST(PlanCapiTest, BadInputs) {
  Weights w;
  PlacementPtr world = Placement(CpuOf(WorldRanks()));
  const int64_t shape[] = {kBatch, kIn};
  int64_t id = -1;
  size_t n = 0;

  EXPECT_EQ(tess_program_create(nullptr), TESS_INVALID_ARGUMENT);
  tess_program* raw = nullptr;
  ASSERT_EQ(tess_program_create(&raw), TESS_OK);
  ProgramPtr p(raw);
  EXPECT_EQ(
      tess_program_add_input(&id, nullptr, "x", shape, 2, TESS_DTYPE_F32, world.get(), nullptr),
      TESS_INVALID_ARGUMENT);
  EXPECT_EQ(
      tess_program_add_input(&id, p.get(), nullptr, shape, 2, TESS_DTYPE_F32, world.get(), nullptr),
      TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("name"));
  EXPECT_EQ(tess_program_add_input(&id, p.get(), "x", shape, 2, 99, world.get(), nullptr),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("99"));
  const int64_t negative[] = {-1, 2};
  EXPECT_EQ(
      tess_program_add_input(&id, p.get(), "x", negative, 2, TESS_DTYPE_F32, world.get(), nullptr),
      TESS_INVALID_ARGUMENT);
  NdSbpPtr split7 = NdSbp("S(7)");
  EXPECT_EQ(tess_program_add_input(&id, p.get(), "x", shape, 2, TESS_DTYPE_F32, world.get(),
                                   split7.get()),
            TESS_INVALID_ARGUMENT);
  int64_t x = -1;
  ASSERT_EQ(
      tess_program_add_input(&x, p.get(), "x", shape, 2, TESS_DTYPE_F32, world.get(), nullptr),
      TESS_OK);
  EXPECT_EQ(
      tess_program_add_input(&id, p.get(), "x", shape, 2, TESS_DTYPE_F32, world.get(), nullptr),
      TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("\"x\""));
  EXPECT_EQ(tess_program_add_variable(&id, p.get(), "w", nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_program_add_variable(&id, p.get(), "", w.t_w1.get()), TESS_INVALID_ARGUMENT);

  tess_op_call* call = nullptr;
  ASSERT_EQ(tess_op_call_create(&call, "relu"), TESS_OK);
  OpCallPtr relu(call);
  const int64_t unknown[] = {42};
  EXPECT_EQ(tess_program_add_op(&id, &n, p.get(), relu.get(), unknown, 1), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("42"));
  EXPECT_EQ(tess_program_add_op(&id, &n, p.get(), relu.get(), nullptr, 1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_program_add_op(&id, &n, p.get(), nullptr, &x, 1), TESS_INVALID_ARGUMENT);
  const int64_t two[] = {x, x};
  EXPECT_EQ(tess_program_add_op(&id, &n, p.get(), relu.get(), two, 2), TESS_INVALID_ARGUMENT);
  ASSERT_EQ(tess_op_call_create(&call, "relu"), TESS_OK);
  OpCallPtr with_meta(call);
  NdSbpPtr b = NdSbp("B");
  ASSERT_EQ(tess_op_call_add_input(call, shape, 2, TESS_DTYPE_F32, world.get(), b.get()), TESS_OK);
  EXPECT_EQ(tess_program_add_op(&id, &n, p.get(), with_meta.get(), &x, 1), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("input metas"));

  // A program without outputs does not compile; marking twice or an unknown id fails.
  tess_plan* plan = nullptr;
  EXPECT_EQ(tess_plan_compile(&plan, p.get(), nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(plan, nullptr);
  EXPECT_EQ(tess_plan_compile(&plan, nullptr, nullptr), TESS_INVALID_ARGUMENT);
  int64_t y = -1;
  ASSERT_EQ(tess_program_add_op(&y, &n, p.get(), relu.get(), &x, 1), TESS_OK);
  EXPECT_EQ(tess_program_mark_output(p.get(), 99), TESS_INVALID_ARGUMENT);
  ASSERT_EQ(tess_program_mark_output(p.get(), y), TESS_OK);
  EXPECT_EQ(tess_program_mark_output(p.get(), y), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(Compile(&plan, p.get(), -1), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("input_register_num"));
  EXPECT_EQ(Compile(&plan, p.get(), 9), TESS_INVALID_ARGUMENT);
  EXPECT_STREQ(tess_plan_string(nullptr), "");
  EXPECT_STREQ(tess_program_string(nullptr), "");

  // The options struct: struct_size 0, below the first version, or bigger than this
  // library's with a nonzero tail is refused, naming the struct and the sizes.
  tess_plan_compile_options options = TESS_PLAN_COMPILE_OPTIONS_INIT;
  options.struct_size = 0;
  EXPECT_EQ(tess_plan_compile(&plan, p.get(), &options), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_plan_compile: options->struct_size is 0 but tess_plan_compile_options needs "
            "at least 12 (its first version; this library's is 16): set it to "
            "sizeof(tess_plan_compile_options) or start from its _INIT macro");
  options.struct_size = 11;
  EXPECT_EQ(tess_plan_compile(&plan, p.get(), &options), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("struct_size is 11")) << LastError();
  struct Newer {
    tess_plan_compile_options base;
    int64_t future_field;
  } newer = {TESS_PLAN_COMPILE_OPTIONS_INIT, 5};
  newer.base.struct_size = sizeof(Newer);
  EXPECT_EQ(tess_plan_compile(&plan, p.get(), &newer.base), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_plan_compile: options->struct_size is 24 but tess_plan_compile_options is 16 "
            "bytes in this library, and the caller's byte 16 past that is not zero: a newer "
            "field this library does not implement was set");
  EXPECT_EQ(plan, nullptr);
  // With a zero tail, and at the first version's size (the padding past it unread), it
  // compiles.
  newer.future_field = 0;
  newer.base.input_register_num = 2;
  ASSERT_EQ(tess_plan_compile(&plan, p.get(), &newer.base), TESS_OK) << LastError();
  EXPECT_NE(std::string(tess_plan_string(plan)).find("2 copies of each input"), std::string::npos);
  tess_plan_destroy(plan);
  plan = nullptr;
  options.struct_size = 12;
  options.input_register_num = 1;
  ASSERT_EQ(tess_plan_compile(&plan, p.get(), &options), TESS_OK) << LastError();
  tess_plan_destroy(plan);
  plan = nullptr;

  ASSERT_EQ(Compile(&plan, p.get(), 1), TESS_OK) << LastError();
  PlanPtr owned_plan(plan);
  tess_plan_instance* inst = nullptr;
  EXPECT_EQ(tess_plan_instantiate(&inst, nullptr), TESS_INVALID_ARGUMENT);
  ASSERT_EQ(tess_plan_instantiate(&inst, plan), TESS_OK);
  InstancePtr instance(inst);
  tess_tensor* out = nullptr;
  EXPECT_EQ(tess_plan_instance_output(&out, inst, 0), TESS_FAILED_PRECONDITION);  // before a run
  EXPECT_EQ(tess_plan_instance_output(&out, inst, 1), TESS_OUT_OF_RANGE);
  EXPECT_EQ(tess_plan_instance_run(inst, nullptr, 0), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("1 inputs"));
  const tess_tensor* null_input[] = {nullptr};
  EXPECT_EQ(tess_plan_instance_run(inst, null_input, 1), TESS_INVALID_ARGUMENT);
  TensorPtr wrong = FromHost(Values(12, 0), {3, 4}, CpuOf(WorldRanks()), "S(0)");
  const tess_tensor* wrong_input[] = {wrong.get()};
  EXPECT_EQ(tess_plan_instance_run(inst, wrong_input, 1), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("[3,4]"));
  const void* locals[] = {nullptr};
  const size_t bytes[] = {3};
  EXPECT_EQ(tess_plan_instance_run_local(inst, locals, bytes, 1), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("3 bytes"));
  EXPECT_EQ(tess_plan_instance_run_local(inst, locals, bytes, 2), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_plan_instance_run_local(inst, locals, nullptr, 1), TESS_INVALID_ARGUMENT);

  TensorPtr good = FromHost(Values(kBatch * kIn, 5), {kBatch, kIn}, CpuOf(WorldRanks()), "S(0)");
  // The right byte count without data (kBatch rows leave every rank some).
  int64_t piece = 0;
  ASSERT_EQ(tess_tensor_local_num_elements(&piece, good.get()), TESS_OK) << LastError();
  ASSERT_GT(piece, 0);
  const size_t piece_bytes[] = {static_cast<size_t>(piece) * sizeof(float)};
  EXPECT_EQ(tess_plan_instance_run_local(inst, locals, piece_bytes, 1), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("NULL")) << LastError();
  const tess_tensor* good_input[] = {good.get()};
  ASSERT_EQ(tess_plan_instance_run(inst, good_input, 1), TESS_OK) << LastError();
  int64_t elems = 0;
  ASSERT_EQ(tess_plan_instance_output_local_num_elements(&elems, inst, 0), TESS_OK);
  if (elems > 0) {
    std::vector<float> small(static_cast<size_t>(elems - 1));
    EXPECT_EQ(tess_plan_instance_output_local(small.data(), small.size() * 4, inst, 0),
              TESS_INVALID_ARGUMENT);
    EXPECT_TRUE(ErrorHas("out_bytes"));
  }
  EXPECT_EQ(tess_plan_instance_output_local(nullptr, 0, inst, 3), TESS_OUT_OF_RANGE);
  EXPECT_EQ(tess_plan_instance_output_local_num_elements(&elems, inst, 3), TESS_OUT_OF_RANGE);
  tess_dtype dtype = -1;
  EXPECT_EQ(tess_plan_instance_output_dtype(&dtype, inst, 3), TESS_OUT_OF_RANGE);
  EXPECT_TRUE(ErrorHas("output index 3"));
  EXPECT_EQ(tess_plan_instance_output_dtype(nullptr, inst, 0), TESS_INVALID_ARGUMENT);
  int64_t a = 0, c = 0, d = 0;
  EXPECT_EQ(tess_plan_instance_mem_case_bytes(&a, &c, &d, inst, 5), TESS_OUT_OF_RANGE);
  EXPECT_STREQ(tess_plan_instance_mem_case_name(inst, 5), "");
  tess_plan_stats stats = TESS_PLAN_STATS_INIT;
  EXPECT_EQ(tess_plan_instance_get_stats(nullptr, inst), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_plan_instance_get_stats: argument \"out\" is NULL");
  EXPECT_EQ(tess_plan_instance_get_stats(&stats, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_plan_instance_get_stats: argument \"instance\" is NULL");
  stats.struct_size = 8;
  stats.runs = 99;
  EXPECT_EQ(tess_plan_instance_get_stats(&stats, inst), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_plan_instance_get_stats: out->struct_size is 8 but tess_plan_stats needs at "
            "least 56 (its first version; this library's is 72): set it to "
            "sizeof(tess_plan_stats) or start from its _INIT macro");
  EXPECT_EQ(stats.runs, 99);
  // The first version's size (up to heap_allocations_last_run) gets those fields and
  // leaves the later ones alone.
  stats.struct_size = offsetof(tess_plan_stats, cuda_graphs);
  stats.cuda_graphs = 77;
  ASSERT_EQ(tess_plan_instance_get_stats(&stats, inst), TESS_OK) << LastError();
  EXPECT_EQ(stats.runs, 1);
  EXPECT_EQ(stats.cuda_graphs, 77);
  stats.struct_size = sizeof(stats);
  ASSERT_EQ(tess_plan_instance_get_stats(&stats, inst), TESS_OK) << LastError();
  EXPECT_EQ(stats.runs, 1);
  EXPECT_EQ(stats.cuda_graphs, 0);

  // The borrowed shape of this rank's output piece (kBatch rows of S(0) over the world).
  const int64_t* dims = nullptr;
  size_t shape_ndim = 0;
  ASSERT_EQ(tess_plan_instance_output_local_shape(&dims, &shape_ndim, inst, 0), TESS_OK)
      << LastError();
  ASSERT_EQ(shape_ndim, 2u);
  EXPECT_EQ(dims[0] * kIn, elems);  // the piece tess_plan_instance_output_local_num_elements counts
  EXPECT_EQ(dims[1], kIn);
  EXPECT_EQ(tess_plan_instance_output_local_shape(&dims, &shape_ndim, inst, 3), TESS_OUT_OF_RANGE);
  EXPECT_EQ(LastError(),
            "tess_plan_instance_output_local_shape: PlanInstance::OutputLocalPiece: output index 3 "
            "but the program has 1 outputs");
  EXPECT_EQ(tess_plan_instance_output_local_shape(nullptr, &shape_ndim, inst, 0),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_plan_instance_output_local_shape: argument \"out_dims\" is NULL");
  EXPECT_EQ(tess_plan_instance_output_local_shape(&dims, nullptr, inst, 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_plan_instance_output_local_shape: argument \"out_ndim\" is NULL");
  EXPECT_EQ(tess_plan_instance_output_local_shape(&dims, &shape_ndim, nullptr, 0),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_plan_instance_output_local_shape: argument \"instance\" is NULL");
  EXPECT_EQ(tess_plan_instance_num_outputs(&n, nullptr), TESS_INVALID_ARGUMENT);
  ASSERT_EQ(tess_plan_instance_num_outputs(&n, inst), TESS_OK);
  EXPECT_EQ(n, 1u);

  // A rank outside the output's placement has no piece to describe (its dtype is
  // still known). Nothing runs, so the other ranks need not take part.
  if (WorldSize() > 1) {
    PlacementPtr rank0 = Placement("cpu:[0]");
    ASSERT_EQ(tess_program_create(&raw), TESS_OK);
    ProgramPtr on_rank0(raw);
    int64_t x0 = -1, y0 = -1;
    ASSERT_EQ(tess_program_add_input(&x0, raw, "x", shape, 2, TESS_DTYPE_F32, rank0.get(), nullptr),
              TESS_OK)
        << LastError();
    ASSERT_EQ(tess_program_add_op(&y0, &n, raw, relu.get(), &x0, 1), TESS_OK) << LastError();
    ASSERT_EQ(tess_program_mark_output(raw, y0), TESS_OK);
    ASSERT_EQ(Compile(&plan, raw, 1), TESS_OK) << LastError();
    PlanPtr plan0(plan);
    ASSERT_EQ(tess_plan_instantiate(&inst, plan), TESS_OK) << LastError();
    InstancePtr instance0(inst);
    size_t nd = 77;
    const int64_t* piece_dims = nullptr;
    if (WorldRank() == 0) {
      ASSERT_EQ(tess_plan_instance_output_local_shape(&piece_dims, &nd, inst, 0), TESS_OK)
          << LastError();
      ASSERT_EQ(nd, 2u);
      EXPECT_EQ(piece_dims[0], kBatch);
      EXPECT_EQ(piece_dims[1], kIn);
    } else {
      EXPECT_EQ(tess_plan_instance_output_local_shape(&piece_dims, &nd, inst, 0),
                TESS_FAILED_PRECONDITION);
      EXPECT_EQ(LastError(),
                "tess_plan_instance_output_local_shape: this rank holds no piece of output #0 "
                "([7,6] f32 cpu:[0] B)");
      EXPECT_EQ(piece_dims, nullptr);
      EXPECT_EQ(nd, 77u);
    }
    ASSERT_EQ(tess_plan_instance_output_dtype(&dtype, inst, 0), TESS_OK);
    EXPECT_EQ(dtype, TESS_DTYPE_F32);
  }

  // NULL handles are harmless to destroy.
  tess_program_destroy(nullptr);
  tess_plan_destroy(nullptr);
  tess_plan_instance_destroy(nullptr);
}

TEST(PlanCapiTest, CaptureMisuse) {
  PlacementPtr world = Placement(CpuOf(WorldRanks()));
  const int64_t shape[] = {2, 3};
  tess_tensor* raw = nullptr;
  tess_program* p = nullptr;
  EXPECT_EQ(tess_capture_placeholder(&raw, "x", shape, 2, TESS_DTYPE_F32, world.get(), nullptr),
            TESS_FAILED_PRECONDITION);
  EXPECT_TRUE(ErrorHas("no capture"));
  EXPECT_EQ(tess_capture_end(&p, nullptr, 0), TESS_FAILED_PRECONDITION);
  tess_capture_abort();

  ASSERT_EQ(tess_capture_begin(), TESS_OK);
  EXPECT_EQ(tess_capture_begin(), TESS_FAILED_PRECONDITION);
  ASSERT_EQ(tess_capture_placeholder(&raw, "x", shape, 2, TESS_DTYPE_F32, world.get(), nullptr),
            TESS_OK);
  TensorPtr x(raw);
  // No data behind a placeholder.
  std::vector<float> buf(6);
  EXPECT_EQ(tess_tensor_copy_local(buf.data(), 24, x.get()), TESS_FAILED_PRECONDITION);
  EXPECT_TRUE(ErrorHas("placeholder"));
  EXPECT_EQ(tess_tensor_to_host(buf.data(), 24, x.get()), TESS_FAILED_PRECONDITION);
  EXPECT_TRUE(ErrorHas("placeholder"));
  int64_t id = 0;
  tess_program* other = nullptr;
  ASSERT_EQ(tess_program_create(&other), TESS_OK);
  ProgramPtr other_program(other);
  EXPECT_EQ(tess_program_add_variable(&id, other, "v", x.get()), TESS_FAILED_PRECONDITION);
  // A bad op fails at the call.
  tess_tensor* bad = nullptr;
  EXPECT_EQ(tess_matmul(&bad, x.get(), x.get(), 0, 0), TESS_INVALID_ARGUMENT);
  tess_tensor* y = nullptr;
  ASSERT_EQ(tess_neg(&y, x.get()), TESS_OK) << LastError();
  TensorPtr owned_y(y);
  const tess_tensor* outs[] = {y, y};
  EXPECT_EQ(tess_capture_end(&p, outs, 2), TESS_INVALID_ARGUMENT);  // listed twice
  EXPECT_EQ(p, nullptr);
  int32_t active = 1;
  ASSERT_EQ(tess_capture_active(&active), TESS_OK);
  EXPECT_EQ(active, 0);  // ended anyway
  // The placeholder outlived its capture.
  tess_tensor* z = nullptr;
  EXPECT_EQ(tess_neg(&z, y), TESS_FAILED_PRECONDITION);
  ASSERT_EQ(tess_capture_begin(), TESS_OK);
  EXPECT_EQ(tess_capture_end(nullptr, outs, 1), TESS_INVALID_ARGUMENT);
  ASSERT_EQ(tess_capture_active(&active), TESS_OK);
  EXPECT_EQ(active, 0);
  EXPECT_EQ(tess_capture_active(nullptr), TESS_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace tessera::capi_test
