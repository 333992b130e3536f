// Kernels are on the eager hot path: after warm-up a call allocates nothing. Global
// operator new is replaced in this binary to count allocations on this thread.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <random>
#include <string>

#include "core/op/op_registry.h"
#include "kernels/cpu/kernel_test_util.h"

namespace {
thread_local long allocations = 0;
}  // namespace

void* operator new(std::size_t size) {
  ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

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
    const long before = allocations;
    Status s = c.fn(c.ctx);
    const long during = allocations - before;
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(during, 0) << name << " allocated " << during << " times";
  }
}

TEST(NoAllocationTest, TheCounterSeesAllocations) {
  const long before = allocations;
  std::string* s = new std::string(100, 'x');
  delete s;
  EXPECT_GE(allocations - before, 1);
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
