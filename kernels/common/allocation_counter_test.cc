// The counter behind the no-allocation tests sees allocations, and only this thread's.
#include "kernels/common/allocation_counter.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>

namespace tessera {
namespace kernels {
namespace {

TEST(AllocationCounterTest, SeesThisThreadsAllocations) {
  const long before = ThreadAllocations();
  auto s = std::make_unique<std::string>(100, 'x');
  EXPECT_GE(ThreadAllocations() - before, 1);
}

TEST(AllocationCounterTest, CountsOnlyThisThread) {
  const long before = ThreadAllocations();
  std::thread other([] {
    for (int i = 0; i < 1000; ++i) delete new int(i);
  });
  other.join();
  EXPECT_LT(ThreadAllocations() - before, 10);  // std::thread's own state, not the 1000
}

}  // namespace
}  // namespace kernels
}  // namespace tessera
