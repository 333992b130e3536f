// The CUDA family registers a kernel for exactly the ops the CPU family does. Needs no
// GPU: registration only records function pointers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/kernel/kernel_registry.h"
#include "core/op/op_registry.h"
#include "kernels/cpu/register_cpu_kernels.h"
#include "kernels/cuda/register_cuda_kernels.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

TEST(CudaKernelRegistryTest, SameOpsAsTheCpuKernels) {
  KernelRegistry registry;
  ASSERT_TRUE(cpu::RegisterCpuKernels(&registry).ok());
  ASSERT_TRUE(RegisterCudaKernels(&registry).ok());
  const std::vector<std::string> cuda = registry.Names(Device::kCuda);
  EXPECT_EQ(cuda, registry.Names(Device::kCpu));
  // And both are every op the op registry knows.
  EXPECT_EQ(cuda, op::OpRegistry::Global().Names());
  for (const std::string& name : cuda) {
    EXPECT_NE(registry.Find(name, Device::kCuda), registry.Find(name, Device::kCpu)) << name;
  }
}

TEST(CudaKernelRegistryTest, RegistrationIsIdempotentAndNeedsARegistry) {
  KernelRegistry registry;
  ASSERT_TRUE(RegisterCudaKernels(&registry).ok());
  const Status again = RegisterCudaKernels(&registry);
  EXPECT_TRUE(again.ok()) << again.ToString();
  EXPECT_TRUE(registry.Names(Device::kCpu).empty());
  const Status null = RegisterCudaKernels(nullptr);
  EXPECT_EQ(null.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(null.message(), "RegisterCudaKernels: registry is null");
}

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
