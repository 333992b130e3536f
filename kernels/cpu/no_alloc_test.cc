// Kernels are on the eager hot path: after warm-up a call allocates nothing (global
// operator new counts allocations on this thread: allocation_counter.h).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/memory/heap_counter.h"
#include "core/op/op_registry.h"
#include "kernels/cpu/kernel_test_util.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

TEST(NoAllocationTest, EveryKernelCallAfterWarmUp) {
  std::mt19937 rng(79);
  for (const std::string& name : op::OpRegistry::Global().Names()) {
    SCOPED_TRACE(name);
    auto it = ExampleCalls().find(name);
    ASSERT_NE(it, ExampleCalls().end());
    auto call = PrepareCall(name, ExampleInputs(it->second, &rng), it->second.attrs);
    ASSERT_TRUE(call.ok()) << call.status().ToString();
    const PreparedCall& c = **call;
    ASSERT_TRUE(c.fn(c.ctx).ok());  // warm-up (OpenBLAS sets up its buffers once)
    const long before = memory::ThreadHeapAllocations();
    Status s = c.fn(c.ctx);
    const long during = memory::ThreadHeapAllocations() - before;
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(during, 0) << name << " allocated " << during << " times";
  }
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
