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
  ASSERT_EQ(tess_init(), TESS_OK) << LastError();
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

TEST(EagerCapiAllocTest, TheCounterSeesAllocations) {
  const long before = memory::ThreadHeapAllocations();
  std::vector<int>* v = new std::vector<int>(10);
  delete v;
  EXPECT_GE(memory::ThreadHeapAllocations() - before, 2);
}

}  // namespace
}  // namespace tessera::capi_test
