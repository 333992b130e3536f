#include "core/kernel/kernel_providers.h"

#include <gtest/gtest.h>

namespace tessera {
namespace kernels {
namespace {

Status Relu(const KernelContext&) { return Status::Ok(); }

int g_runs = 0;
Status ProvideRelu(KernelRegistry* registry) {
  ++g_runs;
  return registry->Register("test_relu", Device::kCpu, Relu);
}
Status ProvideClash(KernelRegistry* registry) {
  // Another function under the same name: ALREADY_EXISTS, reported, not fatal.
  return registry->Register("test_relu", Device::kCpu,
                            [](const KernelContext&) { return Internal("clash"); });
}

// Added the way kernel libraries add theirs: from static initialisers.
const bool kReluAdded = AddKernelProvider("test", &ProvideRelu);
const bool kClashAdded = AddKernelProvider("clash", &ProvideClash);

TEST(KernelProvidersTest, LinkedKernelsRunsEveryProviderOnce) {
  ASSERT_TRUE(kReluAdded);
  ASSERT_TRUE(kClashAdded);
  const KernelRegistry& first = LinkedKernels();
  const KernelRegistry& again = LinkedKernels();
  EXPECT_EQ(&first, &again);
  EXPECT_EQ(&first, &KernelRegistry::Global());
  EXPECT_EQ(g_runs, 1);
  // The first provider won; the clashing one was reported and changed nothing.
  EXPECT_EQ(first.Find("test_relu", Device::kCpu), Relu);
  // No kernel library is linked into this test: nothing else is registered.
  EXPECT_EQ(first.Names(Device::kCpu), std::vector<std::string>{"test_relu"});
}

TEST(KernelProvidersTest, RejectsNullAndTooMany) {
  EXPECT_FALSE(AddKernelProvider("null", nullptr));
  int added = 0;
  while (AddKernelProvider("filler", &ProvideRelu)) ++added;
  EXPECT_EQ(added, kMaxKernelProviders - 2);  // two slots were taken statically
  EXPECT_FALSE(AddKernelProvider("one too many", &ProvideRelu));
}

}  // namespace
}  // namespace kernels
}  // namespace tessera
