#include "core/kernel/kernel_registry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace tessera {
namespace kernels {
namespace {

Status KernelA(const KernelContext&) { return Status::Ok(); }
Status KernelB(const KernelContext&) { return Internal("B"); }

TEST(KernelRegistryTest, RegisterThenFindPerDevice) {
  KernelRegistry r;
  ASSERT_TRUE(r.Register("add", Device::kCpu, KernelA).ok());
  ASSERT_TRUE(r.Register("add", Device::kCuda, KernelB).ok());
  ASSERT_TRUE(r.Register("relu", Device::kCpu, KernelB).ok());
  EXPECT_EQ(r.Find("add", Device::kCpu), KernelA);
  EXPECT_EQ(r.Find("add", Device::kCuda), KernelB);
  EXPECT_EQ(r.Find("relu", Device::kCpu), KernelB);
  EXPECT_EQ(r.Find("relu", Device::kCuda), nullptr);
  EXPECT_EQ(r.Find("ad", Device::kCpu), nullptr);
  EXPECT_EQ(r.Find("add", static_cast<Device>(7)), nullptr);
  EXPECT_EQ(r.Names(Device::kCpu), (std::vector<std::string>{"add", "relu"}));
  EXPECT_EQ(r.Names(Device::kCuda), (std::vector<std::string>{"add"}));
}

TEST(KernelRegistryTest, SameFunctionTwiceIsOkADifferentOneIsNot) {
  KernelRegistry r;
  ASSERT_TRUE(r.Register("add", Device::kCpu, KernelA).ok());
  EXPECT_TRUE(r.Register("add", Device::kCpu, KernelA).ok());
  Status s = r.Register("add", Device::kCpu, KernelB);
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(),
            "KernelRegistry::Register: op \"add\" on cpu: a different kernel is registered");
  EXPECT_EQ(r.Find("add", Device::kCpu), KernelA);
}

TEST(KernelRegistryTest, BadArgumentsAreNamed) {
  KernelRegistry r;
  Status empty = r.Register("", Device::kCpu, KernelA);
  EXPECT_EQ(empty.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(empty.message(), "KernelRegistry::Register: op_name is empty");
  Status null_fn = r.Register("add", Device::kCpu, nullptr);
  EXPECT_EQ(null_fn.message(), "KernelRegistry::Register: op \"add\" on cpu: fn is null");
  Status device = r.Register("add", static_cast<Device>(5), KernelA);
  EXPECT_EQ(device.message(),
            "KernelRegistry::Register: op \"add\": device 5 is not a known device type");
  EXPECT_TRUE(r.Names(Device::kCpu).empty());
}

TEST(KernelRegistryTest, FullTableIsResourceExhaustedAndStillServesLookups) {
  KernelRegistry r;
  for (int i = 0; i < KernelRegistry::kCapacity; ++i) {
    ASSERT_TRUE(r.Register("op" + std::to_string(i), Device::kCpu, KernelA).ok()) << i;
  }
  Status s = r.Register("one_more", Device::kCpu, KernelA);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(),
            "KernelRegistry::Register: op \"one_more\" on cpu: the registry is full (" +
                std::to_string(KernelRegistry::kCapacity) + " ops)");
  // A taken name still gains a device, and every name is still found.
  EXPECT_TRUE(r.Register("op3", Device::kCuda, KernelB).ok());
  for (int i = 0; i < KernelRegistry::kCapacity; ++i) {
    EXPECT_EQ(r.Find("op" + std::to_string(i), Device::kCpu), KernelA) << i;
  }
  EXPECT_EQ(r.Find("op3", Device::kCuda), KernelB);
  EXPECT_EQ(r.Find("one_more", Device::kCpu), nullptr);
}

TEST(KernelRegistryTest, ConcurrentRegisterAndFind) {
  KernelRegistry r;
  constexpr int kOps = 200;
  std::atomic<bool> done{false};
  std::atomic<int> wrong{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&] {
      while (!done.load()) {
        for (int i = 0; i < kOps; ++i) {
          KernelFn fn = r.Find("op" + std::to_string(i), Device::kCpu);
          // Either not yet visible or fully registered: never another function.
          if (fn != nullptr && fn != KernelA) wrong.fetch_add(1);
        }
      }
    });
  }
  std::thread writer([&] {
    for (int i = 0; i < kOps; ++i) {
      if (!r.Register("op" + std::to_string(i), Device::kCpu, KernelA).ok()) wrong.fetch_add(1);
    }
  });
  writer.join();
  done.store(true);
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  for (int i = 0; i < kOps; ++i) EXPECT_EQ(r.Find("op" + std::to_string(i), Device::kCpu), KernelA);
}

TEST(KernelRegistryTest, GlobalIsOneInstance) {
  EXPECT_EQ(&KernelRegistry::Global(), &KernelRegistry::Global());
}

}  // namespace
}  // namespace kernels
}  // namespace tessera
