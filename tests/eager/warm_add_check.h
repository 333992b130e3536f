// The eager hot path's allocation check, on any placement: a warm Apply (inference
// cache hit, no boxing) allocates one heap block per output tensor (the tensor object
// and its reference count, via make_shared) and nothing else: storage comes from the
// caching allocators, and metas, kernel arguments and the output list live in reused
// scratch. The binary must link //core/memory:heap_counter.
#ifndef TESSERA_TESTS_EAGER_WARM_ADD_CHECK_H_
#define TESSERA_TESTS_EAGER_WARM_ADD_CHECK_H_

#include <gtest/gtest.h>

#include <vector>

#include "core/eager/interpreter.h"
#include "core/memory/heap_counter.h"
#include "core/op/op_registry.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"

namespace tessera {
namespace eager_test {

// 1 + 2 on `placement` (one rank), B.
inline void ExpectWarmAddAllocatesOnlyItsOutput(const char* placement) {
  using tensor::Tensor;
  const Placement p = Placement::Parse(placement).value();
  const NdSbp b = NdSbp::Parse("B").value();
  const Tensor x = tensor::Ones(Shape::Make({4}).value(), DType::kF32, p, b).value();
  const Tensor y = tensor::Full(Shape::Make({4}).value(), DType::kF32, 2.0, p, b).value();
  const op::OpDef* add = op::OpRegistry::Global().Find("add").value();
  const op::AttrMap no_attrs;
  const Tensor inputs[2] = {x, y};
  std::vector<Tensor> outputs;
  outputs.reserve(1);
  for (int warm = 0; warm < 3; ++warm) {
    ASSERT_TRUE(eager::Apply(*add, inputs, 2, no_attrs, &outputs).ok());
  }
  outputs.clear();
  const long before = memory::ThreadHeapAllocations();
  const Status s = eager::Apply(*add, inputs, 2, no_attrs, &outputs);
  const long after = memory::ThreadHeapAllocations();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(after - before, 1);
  std::vector<float> out(4, 0.0f);
  ASSERT_TRUE(tensor::ToHost(outputs[0], out.data()).ok());
  EXPECT_EQ(out, std::vector<float>(4, 3.0f));
}

}  // namespace eager_test
}  // namespace tessera

#endif  // TESSERA_TESTS_EAGER_WARM_ADD_CHECK_H_
