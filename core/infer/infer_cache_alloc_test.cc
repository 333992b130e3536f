// A cache hit must not allocate. This binary links //core/memory:heap_counter, which
// replaces the global operator new to
// count allocations made by the calling thread.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/infer/infer_cache.h"
#include "core/infer/infer_test_util.h"
#include "core/memory/heap_counter.h"

namespace tessera {
namespace infer {
namespace {

TEST(InferCacheAllocTest, CounterSeesAllocations) {
  long before = memory::ThreadHeapAllocations();
  auto* v = new std::vector<int>(100);
  delete v;
  EXPECT_GE(memory::ThreadHeapAllocations() - before, 2);
}

TEST(InferCacheAllocTest, HitAllocatesNothing) {
  InferCache cache(64);
  const op::OpDef& matmul = Op("matmul");
  const op::OpDef& reduce = Op("reduce_sum");
  std::vector<TensorMeta> mm = {Meta({64, 32}, "cpu:[[0,1],[2,3]]", "(S(0), B)"),
                                Meta({32, 16}, "cpu:[[0,1],[2,3]]", "(B, S(1))")};
  std::vector<TensorMeta> x = {Meta({64, 32}, "cpu:[0,1]", "S(1)")};
  op::AttrMap attrs{{"axes", op::AttrValue::Ints({1})}, {"keepdims", op::AttrValue::Bool(true)}};
  std::vector<SbpConstraint> cons = {{true, 0, Nd("P")}};
  ASSERT_TRUE(cache.GetOrInfer(matmul, mm, {}).ok());  // misses allocate
  ASSERT_TRUE(cache.GetOrInfer(reduce, x, attrs, cons).ok());
  const op::AttrMap no_attrs;
  const std::vector<SbpConstraint> no_cons;

  const long before = memory::ThreadHeapAllocations();
  for (int i = 0; i < 1000; ++i) {
    auto a = cache.GetOrInfer(matmul, mm, no_attrs, no_cons);
    auto b = cache.GetOrInfer(reduce, x, attrs, cons);
    if (!a.ok() || !b.ok()) FAIL() << "unexpected miss error";
  }
  const long during = memory::ThreadHeapAllocations() - before;
  EXPECT_EQ(during, 0);
  EXPECT_EQ(cache.stats().hits, 2000u);
  EXPECT_EQ(cache.stats().misses, 2u);
}

}  // namespace
}  // namespace infer
}  // namespace tessera

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
