// The hot path of the typed ops: a warm tess_add (inference cached, no boxing) adds
// exactly one heap allocation, its handle, to what eager::Apply itself does. Global
// //core/memory:heap_counter replaces operator new in this binary to count this
// thread's allocations.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "capi/src/handles.h"
#include "capi/tensor_test_util.h"
#include "core/eager/interpreter.h"
#include "core/memory/heap_counter.h"
#include "core/op/op_registry.h"
#include "tessera/tessera.h"

namespace tessera::capi_test {
namespace {

// The core tensor behind a handle, for calling eager::Apply directly (the test links
// the C API library, so it may look inside the handle).
tensor::Tensor Core(const tess_tensor* t) { return t->value; }

constexpr int kCalls = 50;

TEST(EagerCapiAllocTest, WarmAddAllocatesOnlyItsHandleBeyondTheCore) {
  ASSERT_EQ(tess_runtime_init(), TESS_OK) << LastError();
  TensorPtr x = FromHost(std::vector<float>(64, 1.5f), {8, 8}, "cpu:[0]", "S(0)");
  TensorPtr y = FromHost(std::vector<float>(64, 2.0f), {8, 8}, "cpu:[0]", "S(0)");
  for (int i = 0; i < 3; ++i) {  // warm-up: inference cache, scratch buffers, allocator
    tess_tensor* out = nullptr;
    ASSERT_EQ(tess_add(&out, x.get(), y.get()), TESS_OK) << LastError();
    tess_tensor_destroy(out);
  }
  long before = memory::ThreadHeapAllocations();
  for (int i = 0; i < kCalls; ++i) {
    tess_tensor* out = nullptr;
    tess_add(&out, x.get(), y.get());
    tess_tensor_destroy(out);
  }
  const long capi = memory::ThreadHeapAllocations() - before;

  const op::OpDef* add = op::OpRegistry::Global().Find("add").value();
  const tensor::Tensor inputs[2] = {Core(x.get()), Core(y.get())};
  const op::AttrMap attrs;
  std::vector<tensor::Tensor> outputs;
  outputs.reserve(1);
  ASSERT_TRUE(eager::Apply(*add, inputs, 2, attrs, &outputs).ok());
  outputs.clear();
  before = memory::ThreadHeapAllocations();
  for (int i = 0; i < kCalls; ++i) {
    if (!eager::Apply(*add, inputs, 2, attrs, &outputs).ok()) break;
    outputs.clear();
  }
  const long core = memory::ThreadHeapAllocations() - before;

  ::testing::Test::RecordProperty("tess_add_allocations_per_call", static_cast<int>(capi / kCalls));
  ::testing::Test::RecordProperty("eager_apply_allocations_per_call",
                                  static_cast<int>(core / kCalls));
  EXPECT_EQ(capi - core, kCalls) << "tess_add: " << capi << " memory::ThreadHeapAllocations() in "
                                 << kCalls << " calls; eager::Apply: " << core;
  // The core itself allocates only the output tensor object.
  EXPECT_LE(core, kCalls);
}

// The generated typed ops with attributes keep them in a per-thread map that changes
// only when a value does: a warm call repeating its attributes (bools for matmul, an
// int list and a bool for reduce_sum) also adds exactly one allocation, its handle.
template <typename Call>
void ExpectOneAllocationBeyondTheCore(const char* name, const op::AttrMap& attrs,
                                      std::vector<tensor::Tensor> inputs, Call call) {
  for (int i = 0; i < 3; ++i) {  // warm-up
    tess_tensor* out = nullptr;
    ASSERT_EQ(call(&out), TESS_OK) << LastError();
    tess_tensor_destroy(out);
  }
  long before = memory::ThreadHeapAllocations();
  for (int i = 0; i < kCalls; ++i) {
    tess_tensor* out = nullptr;
    call(&out);
    tess_tensor_destroy(out);
  }
  const long capi = memory::ThreadHeapAllocations() - before;
  const op::OpDef* def = op::OpRegistry::Global().Find(name).value();
  std::vector<tensor::Tensor> outputs;
  outputs.reserve(1);
  ASSERT_TRUE(eager::Apply(*def, inputs.data(), inputs.size(), attrs, &outputs).ok());
  outputs.clear();
  before = memory::ThreadHeapAllocations();
  for (int i = 0; i < kCalls; ++i) {
    if (!eager::Apply(*def, inputs.data(), inputs.size(), attrs, &outputs).ok()) break;
    outputs.clear();
  }
  const long core = memory::ThreadHeapAllocations() - before;
  EXPECT_EQ(capi - core, kCalls) << name << ": " << capi << " allocations in " << kCalls
                                 << " calls; eager::Apply: " << core;
}

TEST(EagerCapiAllocTest, WarmOpsWithAttributesAllocateOnlyTheirHandle) {
  ASSERT_EQ(tess_runtime_init(), TESS_OK) << LastError();
  TensorPtr x = FromHost(std::vector<float>(64, 1.5f), {8, 8}, "cpu:[0]", "S(0)");
  TensorPtr w = FromHost(std::vector<float>(64, 0.5f), {8, 8}, "cpu:[0]", "B");
  op::AttrMap mm;
  mm.Set("transpose_a", op::AttrValue::Bool(false));
  mm.Set("transpose_b", op::AttrValue::Bool(true));
  ExpectOneAllocationBeyondTheCore(
      "matmul", mm, {Core(x.get()), Core(w.get())},
      [&](tess_tensor** out) { return tess_matmul(out, x.get(), w.get(), 0, 1); });
  const int64_t axes[] = {1};
  op::AttrMap rs;
  rs.Set("axes", op::AttrValue::Ints({1}));
  rs.Set("keepdims", op::AttrValue::Bool(true));
  ExpectOneAllocationBeyondTheCore("reduce_sum", rs, {Core(x.get())}, [&](tess_tensor** out) {
    return tess_reduce_sum(out, x.get(), axes, 1, 1);
  });
}

TEST(EagerCapiAllocTest, TheCounterSeesAllocations) {
  const long before = memory::ThreadHeapAllocations();
  std::vector<int>* v = new std::vector<int>(10);
  delete v;
  EXPECT_GE(memory::ThreadHeapAllocations() - before, 2);
}

}  // namespace
}  // namespace tessera::capi_test
