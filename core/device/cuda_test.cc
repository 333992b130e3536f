#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <nccl.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "core/device/cuda_error.h"
#include "core/device/device.h"
#include "core/device/nccl_version.h"

namespace tessera {
namespace device {
namespace {

TEST(NcclVersionTest, MatchesTheHeaderWithoutAGpu) {
  Result<int> version = device::NcclVersion();
  ASSERT_TRUE(version.ok()) << version.status().ToString();
  EXPECT_GT(*version, 0);
  // The library loaded at run time must be the major version we compiled against.
  EXPECT_EQ(*version / 10000, NCCL_MAJOR)
      << "run-time NCCL " << *version << ", header " << NCCL_VERSION_CODE;
}

TEST(CudaErrorTest, NamesTheCallAndTheError) {
  Status oom = device::CudaError("cudaMalloc(64 bytes)", cudaErrorMemoryAllocation);
  EXPECT_EQ(oom.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(oom.message(), std::string("cudaMalloc(64 bytes) failed: cudaErrorMemoryAllocation (") +
                               cudaGetErrorString(cudaErrorMemoryAllocation) + ")");
  Status device = device::CudaError("cudaSetDevice(3)", cudaErrorInvalidDevice);
  EXPECT_EQ(device.code(), StatusCode::kInternal);
  EXPECT_EQ(device.message().rfind("cudaSetDevice(3) failed: cudaErrorInvalidDevice (", 0), 0)
      << device.message();
}

TEST(DeviceCountTest, IsNeverAnErrorOnAHealthyMachine) {
  Result<int> count = device::DeviceCount();
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_GE(*count, 0);
}

// Argument checks run before any CUDA call, so they hold with or without a GPU.
TEST(ArgumentTest, NegativeLengthIsInvalidAndNamed) {
  float dummy = 0;
  Status fill = device::FillF32(&dummy, -3, 1.0f, nullptr);
  EXPECT_EQ(fill.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(fill.message().find("n must be >= 0, got -3"), std::string::npos) << fill.message();

  Status axpy = device::AxpyF32(-7, 2.0f, &dummy, &dummy, nullptr);
  EXPECT_EQ(axpy.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(axpy.message().find("got -7"), std::string::npos) << axpy.message();
}

TEST(ArgumentTest, NullPointersAreInvalidAndNamed) {
  float dummy = 0;
  Status fill = device::FillF32(nullptr, 4, 1.0f, nullptr);
  EXPECT_EQ(fill.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(fill.message().find("device_ptr is null with n=4"), std::string::npos)
      << fill.message();

  Status null_x = device::AxpyF32(4, 2.0f, nullptr, &dummy, nullptr);
  EXPECT_EQ(null_x.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(null_x.message().find("x is null"), std::string::npos) << null_x.message();

  Status null_y = device::AxpyF32(4, 2.0f, &dummy, nullptr, nullptr);
  EXPECT_EQ(null_y.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(null_y.message().find("y is null"), std::string::npos) << null_y.message();
}

TEST(ArgumentTest, EmptyRangeIsANoOpEvenWithNullPointers) {
  EXPECT_TRUE(device::FillF32(nullptr, 0, 1.0f, nullptr).ok());
  EXPECT_TRUE(device::AxpyF32(0, 2.0f, nullptr, nullptr, nullptr).ok());
}

struct CudaFree {
  void operator()(float* p) const { cudaFree(p); }
};
using DeviceBuffer = std::unique_ptr<float, CudaFree>;

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<int> count = device::DeviceCount();
    ASSERT_TRUE(count.ok()) << count.status().ToString();
    if (*count == 0) {
      std::printf("SKIPPED: no CUDA device visible\n");
      GTEST_SKIP() << "no CUDA device visible";
    }
    ASSERT_EQ(cudaStreamCreate(&stream_), cudaSuccess);
  }

  void TearDown() override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  DeviceBuffer Allocate(int64_t n) {
    float* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, n * sizeof(float)), cudaSuccess);
    return DeviceBuffer(p);
  }

  std::vector<float> CopyToHost(const DeviceBuffer& buffer, int64_t n) {
    std::vector<float> host(n);
    EXPECT_EQ(cudaMemcpyAsync(host.data(), buffer.get(), n * sizeof(float), cudaMemcpyDeviceToHost,
                              stream_),
              cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    return host;
  }

  cudaStream_t stream_ = nullptr;
};

// More elements than one capped grid covers (4096 blocks x 256 threads), and odd, so both
// the grid-stride loop and the ragged tail run.
constexpr int64_t kN = 3'000'017;

TEST_F(GpuTest, FillWritesExactlyNElements) {
  DeviceBuffer buffer = Allocate(kN + 1);
  ASSERT_TRUE(device::FillF32(buffer.get(), kN + 1, -1.0f, stream_).ok());
  ASSERT_TRUE(device::FillF32(buffer.get(), kN, 2.5f, stream_).ok());
  std::vector<float> host = CopyToHost(buffer, kN + 1);
  int64_t wrong = 0;
  for (int64_t i = 0; i < kN; ++i) wrong += host[i] != 2.5f;
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(host[kN], -1.0f) << "FillF32 wrote past n";
}

TEST_F(GpuTest, AxpyMatchesHostReference) {
  const float alpha = 3.0f;
  std::vector<float> y_host(kN);
  for (int64_t i = 0; i < kN; ++i) y_host[i] = static_cast<float>(i % 97) * 0.25f - 7.0f;

  DeviceBuffer x = Allocate(kN);
  DeviceBuffer y = Allocate(kN);
  ASSERT_TRUE(device::FillF32(x.get(), kN, 0.5f, stream_).ok());
  ASSERT_EQ(
      cudaMemcpyAsync(y.get(), y_host.data(), kN * sizeof(float), cudaMemcpyHostToDevice, stream_),
      cudaSuccess);
  ASSERT_TRUE(device::AxpyF32(kN, alpha, x.get(), y.get(), stream_).ok());
  std::vector<float> result = CopyToHost(y, kN);

  int64_t wrong = 0;
  int64_t first_wrong = -1;
  for (int64_t i = 0; i < kN; ++i) {
    const float expected = alpha * 0.5f + y_host[i];
    if (result[i] != expected) {
      if (first_wrong < 0) first_wrong = i;
      ++wrong;
    }
  }
  // Every operand is a small multiple of 1/4, so fused or unfused float math is exact.
  EXPECT_EQ(wrong, 0) << "first mismatch at " << first_wrong << ": got " << result[first_wrong]
                      << ", expected " << alpha * 0.5f + y_host[first_wrong];
}

TEST_F(GpuTest, AxpyInPlaceTriples) {
  const int64_t n = 1001;
  DeviceBuffer y = Allocate(n);
  ASSERT_TRUE(device::FillF32(y.get(), n, 1.25f, stream_).ok());
  ASSERT_TRUE(device::AxpyF32(n, 2.0f, y.get(), y.get(), stream_).ok());
  std::vector<float> result = CopyToHost(y, n);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(result[i], 3.75f) << "at " << i;
}

}  // namespace
}  // namespace device
}  // namespace tessera
