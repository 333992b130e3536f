// Every registered op has a CPU kernel, and each one runs an f32 call.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/kernel/kernel_registry.h"
#include "core/op/op_registry.h"
#include "kernels/cpu/kernel_test_util.h"
#include "kernels/cpu/register_cpu_kernels.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

TEST(CpuKernelRegistryTest, KernelsAndOpsAreTheSameSet) {
  KernelRegistry registry;
  ASSERT_TRUE(RegisterCpuKernels(&registry).ok());
  const std::vector<std::string> ops = op::OpRegistry::Global().Names();
  for (const std::string& name : ops) {
    EXPECT_NE(registry.Find(name, Device::kCpu), nullptr) << "no cpu kernel for op " << name;
  }
  // No kernel under a name the op registry does not know (a typo would hide there).
  EXPECT_EQ(registry.Names(Device::kCpu), ops);
  EXPECT_TRUE(registry.Names(Device::kCuda).empty());
}

TEST(CpuKernelRegistryTest, RegistrationIsIdempotent) {
  KernelRegistry registry;
  ASSERT_TRUE(RegisterCpuKernels(&registry).ok());
  Status again = RegisterCpuKernels(&registry);
  EXPECT_TRUE(again.ok()) << again.ToString();
  EXPECT_EQ(RegisterCpuKernels(nullptr).code(), StatusCode::kInvalidArgument);
}

TEST(CpuKernelRegistryTest, MissingKernelsAreNull) {
  KernelRegistry registry;
  ASSERT_TRUE(RegisterCpuKernels(&registry).ok());
  EXPECT_EQ(registry.Find("no_such_op", Device::kCpu), nullptr);
  EXPECT_EQ(registry.Find("matmul", Device::kCuda), nullptr);
  EXPECT_EQ(registry.Find("", Device::kCpu), nullptr);
}

TEST(CpuKernelRegistryTest, EveryOpRunsAnF32Call) {
  std::mt19937 rng(73);
  for (const std::string& name : op::OpRegistry::Global().Names()) {
    SCOPED_TRACE(name);
    auto it = ExampleCalls().find(name);
    ASSERT_NE(it, ExampleCalls().end()) << "add an example call of the new op " << name
                                        << " to ExampleCalls() in kernel_test_util.cc";
    auto out = RunOp(name, ExampleInputs(it->second, &rng), it->second.attrs);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    for (const HostTensor& t : *out) {
      for (double v : t.Values()) EXPECT_FALSE(std::isnan(v)) << "an output was not written";
    }
  }
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
