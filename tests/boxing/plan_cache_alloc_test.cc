// A plan cache hit (PlanBoxing with the same arguments) must not allocate.
#include <gtest/gtest.h>

#include <vector>

#include "core/boxing/boxing.h"
#include "core/memory/heap_counter.h"

namespace tessera::boxing {
namespace {

TEST(PlanCacheAllocTest, CounterSeesAllocations) {
  long before = memory::ThreadHeapAllocations();
  auto* v = new std::vector<int>(100);
  delete v;
  EXPECT_GE(memory::ThreadHeapAllocations() - before, 2);
}

TEST(PlanCacheAllocTest, HitAllocatesNothing) {
  const Placement grid = Placement::Parse("cpu:[[0,1],[2,3]]").value();
  const Placement line = Placement::Parse("cpu:[1,2,3]").value();
  const NdSbp a = NdSbp::Parse("(S(0), P)").value(), b = NdSbp::Parse("S(1)").value();
  const NdSbp c = NdSbp::Parse("(S(1), S(1))").value();
  const Shape shape{9, 6, 5};
  ASSERT_TRUE(PlanBoxing(shape, DType::kF32, grid, a, line, b).ok());  // misses allocate
  ASSERT_TRUE(PlanBoxing(shape, DType::kI64, grid, a, grid, c).ok());
  const long before = memory::ThreadHeapAllocations();
  for (int i = 0; i < 1000; ++i) {
    auto x = PlanBoxing(shape, DType::kF32, grid, a, line, b);
    auto y = PlanBoxing(shape, DType::kI64, grid, a, grid, c);
    if (!x.ok() || !y.ok()) FAIL() << "unexpected error";
  }
  EXPECT_EQ(memory::ThreadHeapAllocations() - before, 0);
}

}  // namespace
}  // namespace tessera::boxing
