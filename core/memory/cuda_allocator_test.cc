#include <cuda_runtime.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "core/device/device.h"
#include "core/memory/buffer.h"
#include "core/memory/caching_allocator.h"
#include "core/memory/cuda_device_allocator.h"
#include "core/memory/device_caching_allocator.h"

namespace tessera {
namespace memory {
namespace {

using ::testing::HasSubstr;

int VisibleDevices() {
  Result<int> count = device::DeviceCount();
  return count.ok() ? *count : 0;
}

// Device checks run before any allocation, so they hold with or without a GPU.
TEST(CudaAllocatorArgumentTest, NegativeDeviceIsInvalid) {
  Result<std::unique_ptr<CudaDeviceAllocator>> system = CudaDeviceAllocator::Create(-1);
  EXPECT_EQ(system.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(system.status().message(),
              HasSubstr("CudaDeviceAllocator::Create(device=-1): the device index must be >= 0"));
  Result<CachingAllocator*> caching = DeviceCachingAllocator(-1);
  EXPECT_EQ(caching.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(caching.status().message(), HasSubstr("DeviceCachingAllocator(device=-1)"));
}

TEST(CudaAllocatorArgumentTest, DevicePastTheCountIsNamed) {
  const int count = VisibleDevices();
  Result<std::unique_ptr<CudaDeviceAllocator>> system = CudaDeviceAllocator::Create(count);
  ASSERT_FALSE(system.ok());
  Result<CachingAllocator*> caching = DeviceCachingAllocator(count);
  ASSERT_FALSE(caching.ok());
  if (count == 0) {
    EXPECT_EQ(system.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_THAT(system.status().message(), HasSubstr("no CUDA device visible"));
    EXPECT_EQ(caching.status().code(), StatusCode::kFailedPrecondition);
  } else {
    EXPECT_EQ(system.status().code(), StatusCode::kOutOfRange);
    EXPECT_THAT(system.status().message(),
                HasSubstr("(device=" + std::to_string(count) + "): only " + std::to_string(count)));
    EXPECT_EQ(caching.status().code(), StatusCode::kOutOfRange);
  }
}

class GpuAllocatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (VisibleDevices() == 0) {
      std::printf("SKIPPED: no CUDA device visible\n");
      GTEST_SKIP() << "no CUDA device visible";
    }
    Result<std::unique_ptr<CudaDeviceAllocator>> system = CudaDeviceAllocator::Create(0);
    ASSERT_TRUE(system.ok()) << system.status().ToString();
    system_ = std::move(*system);
  }

  // Fills n floats on the device and reads them back.
  static std::vector<float> RoundTrip(void* device, int64_t n, float value) {
    EXPECT_TRUE(device::FillF32(static_cast<float*>(device), n, value, nullptr).ok());
    std::vector<float> host(n);
    EXPECT_EQ(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost),
              cudaSuccess);
    return host;
  }

  std::unique_ptr<CudaDeviceAllocator> system_;
};

TEST_F(GpuAllocatorTest, SystemAllocatorGivesUsableDeviceMemory) {
  EXPECT_EQ(system_->DeviceName(), "cuda:0");
  Result<void*> p = system_->Allocate(1000 * sizeof(float), 256);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*p) % 256, 0u);
  cudaPointerAttributes attributes{};
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, *p), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
  EXPECT_EQ(attributes.device, 0);
  std::vector<float> host = RoundTrip(*p, 1000, 2.5f);
  for (float v : host) ASSERT_EQ(v, 2.5f);
  ASSERT_TRUE(system_->Free(*p).ok());
  EXPECT_EQ(system_->Free(*p).code(), StatusCode::kInvalidArgument) << "double free";

  Result<void*> over = system_->Allocate(64, 512);
  EXPECT_EQ(over.status().code(), StatusCode::kInvalidArgument)
      << "cudaMalloc promises only 256-byte alignment";
}

TEST_F(GpuAllocatorTest, CachingReusesAndAlignsDeviceMemory) {
  CachingAllocator cache(system_.get());
  EXPECT_EQ(cache.device_type(), DeviceType::kCuda);
  std::vector<void*> ptrs;
  for (size_t alignment : {size_t{256}, size_t{512}, size_t{4096}, size_t{2} << 20}) {
    Result<void*> p = cache.Allocate(3000 * sizeof(float), alignment);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(*p) % alignment, 0u) << alignment;
    std::vector<float> host = RoundTrip(*p, 3000, static_cast<float>(alignment));
    for (float v : host) ASSERT_EQ(v, static_cast<float>(alignment));
    ptrs.push_back(*p);
  }
  for (void* p : ptrs) ASSERT_TRUE(cache.Free(p).ok());
  const uint64_t system_allocs = system_->stats().num_allocs;
  for (int i = 0; i < 100; ++i) {
    Result<void*> p = cache.Allocate(1 << 20);
    ASSERT_TRUE(p.ok());
    ASSERT_TRUE(cache.Free(*p).ok());
  }
  EXPECT_EQ(system_->stats().num_allocs, system_allocs) << "warm cycles hit the cache";
  ASSERT_TRUE(cache.EmptyCache().ok());
  EXPECT_EQ(system_->stats().bytes_in_use, 0u);
}

TEST_F(GpuAllocatorTest, DeviceOutOfMemoryIsResourceExhausted) {
  CachingAllocator cache(system_.get());
  const size_t petabyte = size_t{1} << 50;
  Result<void*> p = cache.Allocate(petabyte);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(p.status().message(), HasSubstr(std::to_string(petabyte) + " bytes"));
  EXPECT_THAT(p.status().message(), HasSubstr("cudaMalloc"));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the OOM must not linger as a sticky error";
  Result<void*> after = cache.Allocate(1024);
  ASSERT_TRUE(after.ok()) << "the device stays usable after an OOM";
  ASSERT_TRUE(cache.Free(*after).ok());
}

TEST_F(GpuAllocatorTest, ProcessWideInstanceAndBuffer) {
  Result<CachingAllocator*> device = DeviceCachingAllocator(0);
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  Result<CachingAllocator*> again = DeviceCachingAllocator(0);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*device, *again);
  EXPECT_EQ((*device)->DeviceName(), "cuda:0");
  const uint64_t in_use = (*device)->stats().bytes_in_use;
  {
    Result<Buffer> buffer = Buffer::Allocate(**device, 4096 * sizeof(float));
    ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
    std::vector<float> host = RoundTrip(buffer->data(), 4096, -1.0f);
    for (float v : host) ASSERT_EQ(v, -1.0f);
    EXPECT_GT((*device)->stats().bytes_in_use, in_use);
  }
  EXPECT_EQ((*device)->stats().bytes_in_use, in_use);
}

}  // namespace
}  // namespace memory
}  // namespace tessera
