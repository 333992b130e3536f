// Device registers through DefaultAllocatorFor: the block comes from the device caching
// allocator, the header area from host memory, and the planned reuse keeps device values
// intact. The GPU cases skip on machines without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "core/device/device.h"
#include "core/plan/mem_plan.h"
#include "core/plan/mem_test_util.h"
#include "core/plan/register_manager.h"

namespace tessera::plan {
namespace {

class RegisterManagerCudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<int> count = device::DeviceCount();
    ASSERT_TRUE(count.ok()) << count.status().ToString();
    if (*count == 0) {
      std::printf("SKIPPED: no CUDA device visible\n");
      GTEST_SKIP() << "no CUDA device visible";
    }
  }
};

TEST_F(RegisterManagerCudaTest, DeviceBlocksHoldValuesThroughTheirLifetimes) {
  // A chain a -> b -> c -> d on cuda:0 (a and c share, b and d share), an input with two
  // copies, and a host register.
  Result<MemoryPlan> plan = PlanMemory({
      MakeRegister("in", {256}, {0, 1}, MemCase::Cuda(0), 2),
      MakeRegister("a", {1000}, {1, 2}, MemCase::Cuda(0)),
      MakeRegister("b", {1000}, {2, 3}, MemCase::Cuda(0)),
      MakeRegister("c", {1000}, {3, 4}, MemCase::Cuda(0)),
      MakeRegister("d", {1000}, {4, 5}, MemCase::Cuda(0)),
      MakeRegister("h", {7, 3}, {0, 5}, MemCase::Host()),
  });
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  std::printf("%s", plan->ToString().c_str());
  Result<std::unique_ptr<RegisterManager>> manager = RegisterManager::Create(*plan);
  ASSERT_TRUE(manager.ok()) << manager.status().ToString();
  const RegisterManager& m = **manager;
  EXPECT_EQ(m.stats().num_block_allocations, 3);  // host, cuda:0 block, cuda:0 headers

  cudaPointerAttributes attributes;
  Blob a = *m.GetBlob(1, 0);
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, a.body()), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
  EXPECT_EQ(attributes.device, 0);
  EXPECT_EQ(a.shape(), Shape({1000}));  // the header is host memory: readable directly
  EXPECT_TRUE(a.set_shape(Shape({10})).ok());
  EXPECT_TRUE(a.set_shape(Shape({1000})).ok());

  // Step by step: fill each register at its first step, check it at its last.
  auto fill = [&](int64_t id, int copy, float value) {
    Blob blob = *m.GetBlob(id, copy);
    return device::FillF32(static_cast<float*>(blob.body()), blob.shape().num_elements(), value,
                           nullptr);
  };
  auto read = [&](int64_t id, int copy) {
    Blob blob = *m.GetBlob(id, copy);
    std::vector<float> host(blob.shape().num_elements());
    EXPECT_EQ(
        cudaMemcpy(host.data(), blob.body(), host.size() * sizeof(float), cudaMemcpyDeviceToHost),
        cudaSuccess);
    return host;
  };
  ASSERT_TRUE(fill(0, 0, 1.0f).ok());
  ASSERT_TRUE(fill(0, 1, 2.0f).ok());
  for (int64_t id = 1; id <= 4; ++id) {
    ASSERT_TRUE(fill(id, 0, 10.0f * id).ok());
    if (id >= 2) {
      for (float v : read(id - 1, 0)) ASSERT_EQ(v, 10.0f * (id - 1)) << "register " << id - 1;
    }
  }
  for (float v : read(4, 0)) ASSERT_EQ(v, 40.0f);
  for (float v : read(0, 0)) ASSERT_EQ(v, 1.0f);
  for (float v : read(0, 1)) ASSERT_EQ(v, 2.0f);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

}  // namespace
}  // namespace tessera::plan
