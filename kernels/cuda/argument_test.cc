// What the CUDA kernels decide before touching the device, so it runs with or without a
// GPU: every bad call is refused exactly as the CPU kernel refuses it (the device's name
// aside), calls with nothing to write succeed without any CUDA call, and (on a machine
// without a GPU) launch failures name the op.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/op/op_registry.h"
#include "kernels/cuda/cuda_test_util.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

HostTensor T(const Shape& shape, DType dtype = DType::kF32) { return HostTensor(shape, dtype); }

std::vector<OpCall> BadCalls() {
  const DType f32 = DType::kF32, f64 = DType::kF64, i32 = DType::kI32, i64 = DType::kI64;
  const HostTensor x23 = T({2, 3});
  return {
      // elementwise
      {"gelu", {T({2}, i32)}, {}, {T({2}, i32)}},
      {"relu", {x23}, {}, {T({3, 2})}},
      {"identity", {x23}, {}, {T({2, 3}, f64)}},
      {"scalar_add", {T({2})}, {}, {T({2})}},
      {"scalar_mul", {T({2})}, {{"value", AttrValue::Int(2)}}, {T({2})}},
      {"cast", {T({2})}, {{"dtype", AttrValue::OfDType(DType::kF16)}}, {T({2})}},
      {"cast", {T({2})}, {{"dtype", AttrValue::OfDType(f64)}}, {T({2})}},
      {"add_n", {x23, x23, T({3, 2})}, {}, {x23}},
      {"add_n", {x23, T({2, 3}, f64)}, {}, {x23}},
      {"add_n", {x23}, {}, {x23}},
      {"add", {x23, T({4})}, {}, {x23}},
      {"sub", {x23, T({3}, f64)}, {}, {x23}},
      {"mul", {x23}, {}, {x23}},
      {"div", {x23, x23, x23}, {}, {x23}},
      {"add", {x23, x23}, {}, {}},
      {"maximum", {x23, T({3})}, {}, {T({3})}},
      {"minimum", {T({2}, DType::kBool), T({2}, DType::kBool)}, {}, {T({2}, DType::kBool)}},
      // matmul
      {"matmul", {x23, T({4, 2})}, {}, {T({2, 2})}},
      {"matmul", {x23, T({2, 4})}, {{"transpose_b", AttrValue::Bool(true)}}, {T({2, 2})}},
      {"matmul", {x23, T({3, 2}, f64)}, {}, {T({2, 2})}},
      {"matmul", {T({2, 3, 1}), x23}, {}, {T({2, 2})}},
      {"matmul", {x23, T({3, 2})}, {}, {T({2, 3})}},
      {"matmul", {x23, T({3, 2})}, {{"transpose_a", AttrValue::Int(1)}}, {T({2, 2})}},
      {"batch_matmul", {T({2, 2, 3}), T({3, 3, 2})}, {}, {T({2, 2, 2})}},
      {"batch_matmul", {x23, T({3, 2})}, {}, {T({2, 2})}},
      // reductions
      {"reduce_sum", {x23}, {{"axes", AttrValue::Ints({1, -1})}}, {T({2})}},
      {"reduce_max", {x23}, {{"axes", AttrValue::Ints({2})}}, {T({2})}},
      {"reduce_mean", {T({2, 3}, i32)}, {{"axes", AttrValue::Ints({1})}}, {T({2}, i32)}},
      {"reduce_min", {x23}, {{"axes", AttrValue::Ints({1})}}, {T({3})}},
      // softmax family
      {"softmax", {x23}, {{"axis", AttrValue::Int(2)}}, {x23}},
      {"log_softmax", {T({2, 3}, i64)}, {}, {T({2, 3}, i64)}},
      {"sparse_softmax_cross_entropy", {x23, T({3}, i32)}, {}, {x23, T({2})}},
      {"sparse_softmax_cross_entropy", {x23, T({2}, f32)}, {}, {x23, T({2})}},
      {"sparse_softmax_cross_entropy", {T({}), T({}, i32)}, {}, {T({}), T({})}},
      {"sparse_softmax_cross_entropy", {x23, T({2}, i32)}, {}, {x23, T({3})}},
      // layer_norm, bias_add
      {"layer_norm", {x23, T({2}), T({3})}, {}, {x23, T({2}), T({2})}},
      {"layer_norm", {x23, T({3}), T({3}, f64)}, {}, {x23, T({2}), T({2})}},
      {"layer_norm",
       {x23, T({3}), T({3})},
       {{"begin_norm_axis", AttrValue::Int(-3)}},
       {x23, T({2}), T({2})}},
      {"layer_norm", {x23, T({3}), T({3})}, {}, {x23, T({2}), T({3})}},
      {"layer_norm",
       {T({2, 3}, i32), T({3}, i32), T({3}, i32)},
       {},
       {T({2, 3}, i32), T({2}, i32), T({2}, i32)}},
      {"bias_add", {x23, T({2})}, {}, {x23}},
      {"bias_add", {x23, T({3}, i32)}, {}, {x23}},
      // moving elements
      {"transpose", {x23}, {{"perm", AttrValue::Ints({0, 0})}}, {x23}},
      {"transpose", {x23}, {{"perm", AttrValue::Ints({1, 0, 2})}}, {x23}},
      {"transpose", {x23}, {}, {x23}},
      {"transpose", {x23}, {{"perm", AttrValue::Ints({1, 0})}}, {x23}},
      {"reshape", {x23}, {{"shape", AttrValue::Ints({6})}}, {T({5})}},
      {"reshape", {x23}, {{"shape", AttrValue::Ints({6})}}, {T({6}, i32)}},
      {"concat", {x23, T({2, 4})}, {}, {T({4, 3})}},
      {"concat", {x23, T({2, 3}, i64)}, {}, {T({4, 3})}},
      {"concat", {x23, x23}, {{"axis", AttrValue::Int(2)}}, {T({4, 3})}},
      {"concat", {}, {}, {T({4, 3})}},
      {"slice",
       {x23},
       {{"start", AttrValue::Ints({0})},
        {"stop", AttrValue::Ints({1, 1})},
        {"step", AttrValue::Ints({1, 1})}},
       {T({1, 1})}},
      {"slice",
       {x23},
       {{"start", AttrValue::Ints({0, 0})},
        {"stop", AttrValue::Ints({1, 1})},
        {"step", AttrValue::Ints({1, 0})}},
       {T({1, 1})}},
      {"slice",
       {x23},
       {{"start", AttrValue::Ints({0, 0})},
        {"stop", AttrValue::Ints({1, 1})},
        {"step", AttrValue::Ints({1, 1})}},
       {T({2, 1})}},
      // gather, embedding (index values are checked on the device: see data_error_test)
      {"gather", {T({4, 3}), T({2}, f32)}, {}, {T({2, 3})}},
      {"gather", {T({4, 3}), T({2}, i32)}, {{"axis", AttrValue::Int(2)}}, {T({2, 3})}},
      {"gather", {T({4, 3}), T({2}, i32)}, {}, {T({2, 4})}},
      {"gather", {T({1, 1, 1, 1, 1}), T({1, 1, 1, 1}, i32)}, {}, {T({1})}},
      {"embedding", {T({10}), T({2}, i32)}, {}, {T({2, 1})}},
      {"embedding", {T({10, 3}), T({2}, i64)}, {}, {T({2, 4})}},
      // the backward-only ops
      {"relu_grad", {x23, T({3, 2})}, {}, {x23}},
      {"gelu_grad", {T({2}, i32), T({2}, i32)}, {}, {T({2}, i32)}},
      {"equal_mask", {x23, T({2, 3}, f64)}, {}, {x23}},
      {"xlogy", {x23, x23}, {}, {T({2})}},
      {"sparse_softmax_cross_entropy_grad", {x23, T({2}, i32), T({2}, f64)}, {}, {x23}},
      {"sparse_softmax_cross_entropy_grad", {x23, T({3}, i32), T({2})}, {}, {x23}},
      {"gather_grad",
       {x23, T({3}, i32)},
       {{"axis", AttrValue::Int(1)}, {"size", AttrValue::Int(4)}},
       {T({2, 3})}},
      {"gather_grad",
       {x23, T({3}, i32)},
       {{"axis", AttrValue::Int(2)}, {"size", AttrValue::Int(4)}},
       {T({2, 4})}},
      {"gather_grad",
       {T({2, 3}, i32), T({3}, i32)},
       {{"axis", AttrValue::Int(1)}, {"size", AttrValue::Int(4)}},
       {T({2, 4}, i32)}},
      {"slice_grad",
       {x23},
       {{"shape", AttrValue::Ints({3, 3})},
        {"start", AttrValue::Ints({2, 0})},
        {"step", AttrValue::Ints({1, 1})}},
       {T({3, 3})}},
      {"slice_grad",
       {x23},
       {{"shape", AttrValue::Ints({-1, 3})},
        {"start", AttrValue::Ints({1, 0})},
        {"step", AttrValue::Ints({1, 1})}},
       {x23}},
  };
}

// The CPU's message with the device named as cuda.
std::string AsCuda(std::string message) {
  const std::string cpu = "the cpu kernel", cuda = "the cuda kernel";
  for (size_t at = message.find(cpu); at != std::string::npos; at = message.find(cpu, at)) {
    message.replace(at, cpu.size(), cuda);
  }
  return message;
}

TEST(CudaArgumentTest, BadCallsAreRefusedLikeOnTheCpu) {
  int device_named = 0;
  for (const OpCall& c : BadCalls()) {
    const std::string cpu_message = cpu::ErrorOf(c.op, c.inputs, c.attrs, c.outputs);
    SCOPED_TRACE(c.op + ": " + cpu_message);
    ASSERT_FALSE(cpu_message.empty());
    const std::string cuda_message = CudaErrorOf(c.op, c.inputs, c.attrs, c.outputs);
    EXPECT_EQ(cuda_message, AsCuda(cpu_message));
    device_named += cuda_message.find("the cuda kernel supports") != std::string::npos;
  }
  EXPECT_GE(device_named, 4);  // the dtype refusals say which device refuses
}

// Each op's example call with an empty axis: outputs with no elements.
std::vector<OpCall> EmptyCalls() {
  const DType i32 = DType::kI32, i64 = DType::kI64;
  const Shape e{0, 4};
  std::vector<OpCall> calls;
  for (const char* op : {"relu", "gelu", "exp", "neg", "sqrt", "tanh", "sigmoid", "identity",
                         "softmax", "log_softmax", "abs", "log", "sin", "cos"}) {
    calls.push_back({op, {T(e)}, {}, {}});
  }
  for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum"}) {
    calls.push_back({op, {T(e), T({4})}, {}, {}});
    calls.push_back({op, {T(e, i32), T({4}, i32)}, {}, {}});
  }
  calls.push_back({"pow", {T(e), T({4})}, {}, {}});  // floating types only
  calls.push_back({"scalar_add", {T(e, i64)}, {{"value", AttrValue::Float(1.5)}}, {}});
  calls.push_back({"scalar_mul", {T(e)}, {{"value", AttrValue::Float(2)}}, {}});
  calls.push_back({"cast", {T(e)}, {{"dtype", AttrValue::OfDType(i32)}}, {}});
  calls.push_back({"add_n", {T(e), T(e), T(e)}, {}, {}});
  calls.push_back({"matmul", {T(e), T({4, 2})}, {}, {}});
  calls.push_back({"matmul", {T({3, 4}), T({4, 0})}, {}, {}});
  calls.push_back({"batch_matmul", {T({0, 3, 4}), T({0, 4, 5})}, {}, {}});
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"}) {
    calls.push_back({op, {T(e)}, {{"axes", AttrValue::Ints({1})}}, {}});
  }
  calls.push_back({"transpose", {T(e)}, {{"perm", AttrValue::Ints({1, 0})}}, {}});
  calls.push_back({"reshape", {T(e)}, {{"shape", AttrValue::Ints({4, 0})}}, {}});
  calls.push_back({"concat", {T(e), T({0, 2})}, {{"axis", AttrValue::Int(1)}}, {}});
  calls.push_back({"slice",
                   {T({3, 4})},
                   {{"start", AttrValue::Ints({2, 0})},
                    {"stop", AttrValue::Ints({1, 4})},
                    {"step", AttrValue::Ints({1, 1})}},
                   {}});
  calls.push_back({"gather", {T({3, 4}), T({0}, i32)}, {}, {}});
  calls.push_back({"embedding", {T({5, 3}), T({0, 2}, i64)}, {}, {}});
  calls.push_back({"layer_norm", {T(e), T({4}), T({4})}, {}, {}});
  calls.push_back({"bias_add", {T(e), T({4})}, {}, {}});
  calls.push_back({"sparse_softmax_cross_entropy", {T(e), T({0}, i32)}, {}, {}});
  for (const char* op : {"relu_grad", "gelu_grad", "equal_mask", "xlogy"}) {
    calls.push_back({op, {T(e), T(e)}, {}, {}});
  }
  calls.push_back({"sparse_softmax_cross_entropy_grad", {T(e), T({0}, i32), T({0})}, {}, {}});
  calls.push_back({"gather_grad",
                   {T(e), T({0}, i64)},
                   {{"axis", AttrValue::Int(0)}, {"size", AttrValue::Int(0)}},
                   {}});
  calls.push_back({"slice_grad",
                   {T(e)},
                   {{"shape", AttrValue::Ints({0, -1})},
                    {"start", AttrValue::Ints({0, 0})},
                    {"step", AttrValue::Ints({1, 1})}},
                   {}});
  for (const char* op : {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}) {
    calls.push_back({op, {T(e), T({4})}, {}, {}});
  }
  calls.push_back({"where", {T(e, DType::kBool), T(e), T({4})}, {}, {}});
  calls.push_back({"argmax", {T(e)}, {{"axis", AttrValue::Int(1)}}, {}});
  calls.push_back({"cumsum", {T(e)}, {{"axis", AttrValue::Int(1)}}, {}});
  for (const char* op : {"var", "std"}) {
    calls.push_back({op, {T(e)}, {{"axes", AttrValue::Ints({1})}}, {}});
  }
  calls.push_back({"expand", {T({0, 1})}, {{"shape", AttrValue::Ints({0, 4})}}, {}});
  calls.push_back({"flatten", {T({0, 2, 3})}, {}, {}});
  calls.push_back({"squeeze", {T({0, 1, 4})}, {{"axes", AttrValue::Ints({1})}}, {}});
  calls.push_back({"unsqueeze", {T(e)}, {{"axis", AttrValue::Int(0)}}, {}});
  // reduction 0 (none): a per-row loss of no rows; mean and sum would write one element.
  for (const char* op : {"nll_loss", "cross_entropy"}) {
    calls.push_back({op, {T(e), T({0}, i64)}, {{"reduction", AttrValue::Int(0)}}, {}});
  }
  calls.push_back({"sgd_update", {T(e), T(e), T(e)}, {{"momentum", AttrValue::Float(0.9)}}, {}});
  calls.push_back({"adam_update", {T(e), T(e), T(e), T(e)}, {}, {}});
  calls.push_back({"adam_update_at_step", {T(e), T(e), T(e), T(e), T({}, i64)}, {}, {}});
  return calls;
}

// No CUDA call at all: on a machine without a GPU any would fail.
TEST(CudaArgumentTest, NothingToWriteLaunchesNothing) {
  std::vector<std::string> covered;
  for (const OpCall& c : EmptyCalls()) {
    SCOPED_TRACE(c.op);
    Result<std::vector<HostTensor>> expected = cpu::RunOp(c.op, c.inputs, c.attrs);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    for (const HostTensor& t : *expected) ASSERT_EQ(t.size(), 0) << t.shape().ToString();
    std::vector<HostTensor> outputs = *expected;
    // Host tensors and no stream: valid only because nothing may be enqueued.
    const Status s = RunCudaOnHost(c.op, c.inputs, c.attrs, &outputs);
    EXPECT_TRUE(s.ok()) << s.ToString();
    covered.push_back(c.op);
  }
  std::sort(covered.begin(), covered.end());
  covered.erase(std::unique(covered.begin(), covered.end()), covered.end());
  EXPECT_EQ(covered, op::OpRegistry::Global().Names());
}

// A kernel whose launch fails says which op it was. Only without a GPU: with one, the
// host pointers below would reach the device.
TEST(CudaArgumentTest, LaunchFailuresNameTheOp) {
  if (VisibleGpus() > 0) GTEST_SKIP() << "needs a machine without a GPU";
  std::mt19937 rng(3);
  for (const std::string& name : op::OpRegistry::Global().Names()) {
    SCOPED_TRACE(name);
    const cpu::ExampleCall& call = cpu::ExampleCalls().at(name);
    const std::vector<HostTensor> inputs = cpu::ExampleInputs(call, &rng);
    Result<std::vector<HostTensor>> outputs = cpu::RunOp(name, inputs, call.attrs);
    ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
    const Status s = RunCudaOnHost(name, inputs, call.attrs, &*outputs);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kInternal) << s.ToString();
    EXPECT_EQ(s.message().rfind(name + ": ", 0), 0u) << s.message();
  }
}

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
