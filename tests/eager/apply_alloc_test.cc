// The eager hot path: a warm Apply (inference cache hit, no boxing) allocates one heap
// block per output tensor (the tensor object and its reference count, via make_shared)
// and nothing else: storage comes from the caching allocator, and metas, kernel
// arguments and the output list live in reused scratch.
#include <gtest/gtest.h>

#include <vector>

#include "core/eager/creation.h"
#include "core/eager/interpreter.h"
#include "core/memory/heap_counter.h"
#include "core/op/op_registry.h"

namespace tessera::eager {
namespace {

TEST(ApplyAllocTest, WarmAddAllocatesOnlyItsOutputTensor) {
  Placement p = Placement::Parse("cpu:[0]").value();
  NdSbp b = NdSbp::Parse("B").value();
  Tensor x = Ones(Shape::Make({4}).value(), DType::kF32, p, b).value();
  Tensor y = Full(Shape::Make({4}).value(), DType::kF32, 2.0, p, b).value();
  const op::OpDef* add = op::OpRegistry::Global().Find("add").value();
  const op::AttrMap no_attrs;
  const Tensor inputs[2] = {x, y};
  std::vector<Tensor> outputs;
  outputs.reserve(1);
  for (int warm = 0; warm < 3; ++warm) ASSERT_TRUE(Apply(*add, inputs, 2, no_attrs, &outputs).ok());
  outputs.clear();
  const long before = memory::ThreadHeapAllocations();
  Status s = Apply(*add, inputs, 2, no_attrs, &outputs);
  const long after = memory::ThreadHeapAllocations();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(after - before, 1);
  const float* out = static_cast<const float*>(outputs[0]->local_data());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], 3.0f);
}

}  // namespace
}  // namespace tessera::eager
