// CUDA kernels are on the eager hot path: after warm-up a call allocates nothing on the
// host (global operator new counts allocations on this thread: allocation_counter.h).
// On a GPU.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/memory/heap_counter.h"
#include "core/op/op_registry.h"
#include "kernels/cuda/cuda_test_util.h"
#include "kernels/cuda/data_errors.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

using NoAllocationTest = GpuTest;

TEST_F(NoAllocationTest, EveryKernelCallAfterWarmUp) {
  std::mt19937 rng(79);
  for (const std::string& name : op::OpRegistry::Global().Names()) {
    SCOPED_TRACE(name);
    const cpu::ExampleCall& example = cpu::ExampleCalls().at(name);
    const std::vector<HostTensor> inputs = cpu::ExampleInputs(example, &rng);
    Result<std::vector<HostTensor>> outputs = cpu::RunOp(name, inputs, example.attrs);
    ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
    CudaCall call(name, inputs, example.attrs, *outputs, stream_);
    // Warm-up: the stream's state, cuBLAS's handle and workspace are made once.
    ASSERT_TRUE(call.Launch().ok());
    const long before = memory::ThreadHeapAllocations();
    const Status s = call.Launch();
    const long during = memory::ThreadHeapAllocations() - before;
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(during, 0) << name << " allocated " << during << " times";
    ASSERT_TRUE(device::SynchronizeStream(stream_).ok());
  }
}

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
