// Pinned staging moves every byte in both directions, whichever path a copy takes
// (small, chunked with a partial last chunk, exactly whole chunks, from pinned memory),
// and copies from several threads at once stay correct (one stages, the others go
// direct). The cases need a GPU and skip without one.
#include "core/device/pinned_staging.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "core/device/device.h"
#include "core/device/host_copy.h"

namespace tessera {
namespace device {
namespace {

// A byte pattern no chunk boundary can hide: position i holds a hash of i and `seed`.
std::vector<unsigned char> Pattern(size_t bytes, uint32_t seed) {
  std::vector<unsigned char> out(bytes);
  for (size_t i = 0; i < bytes; ++i) {
    out[i] = static_cast<unsigned char>((i * 2654435761u + seed) >> 13);
  }
  return out;
}

class PinnedStagingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<int> count = DeviceCount();
    ASSERT_TRUE(count.ok()) << count.status().ToString();
    if (*count == 0) {
      std::printf("SKIPPED: no CUDA device visible\n");
      GTEST_SKIP() << "no CUDA device visible";
    }
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  // Host -> device -> host through the staged functions; the device copy in between is
  // checked too, against a plain cudaMemcpy.
  void RoundTrip(size_t bytes, uint32_t seed) {
    const std::vector<unsigned char> want = Pattern(bytes, seed);
    void* device = nullptr;
    ASSERT_EQ(cudaMalloc(&device, bytes == 0 ? 1 : bytes), cudaSuccess);
    Status up = CopyHostToDeviceStaged(0, stream_, device, want.data(), bytes);
    ASSERT_TRUE(up.ok()) << up.ToString();
    std::vector<unsigned char> plain(bytes);
    ASSERT_EQ(cudaMemcpy(plain.data(), device, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(plain, want) << bytes << " bytes up";
    std::vector<unsigned char> back(bytes, 0xAB);
    Status down = CopyDeviceToHostStaged(0, stream_, back.data(), device, bytes);
    ASSERT_TRUE(down.ok()) << down.ToString();
    EXPECT_EQ(back, want) << bytes << " bytes down";
    cudaFree(device);
  }

  cudaStream_t stream_ = nullptr;
};

TEST_F(PinnedStagingTest, EverySizeRoundTrips) {
  const size_t chunk = kStagingChunkBytes;
  for (size_t bytes : {size_t{0}, size_t{1}, kStagingMinBytes - 1, kStagingMinBytes, chunk - 1,
                       chunk, chunk + 1, 2 * chunk, 3 * chunk + 7}) {
    RoundTrip(bytes, static_cast<uint32_t>(bytes));
  }
}

// The host side of each chunk split among copy threads (host_copy.h): every size still
// round-trips, and the chunks went through the helpers.
TEST_F(PinnedStagingTest, EverySizeRoundTripsWithCopyThreads) {
  ASSERT_TRUE(SetCopyThreads(4).ok());
  const HostCopyStats before = GetHostCopyStats();
  const size_t chunk = kStagingChunkBytes;
  for (size_t bytes : {kStagingMinBytes, chunk - 1, chunk, chunk + 1, 3 * chunk + 7}) {
    RoundTrip(bytes, static_cast<uint32_t>(bytes) + 3);
  }
  EXPECT_GT(GetHostCopyStats().parallel_copies, before.parallel_copies);
  ASSERT_TRUE(SetCopyThreads(1).ok());
}

TEST_F(PinnedStagingTest, LargePageableCopiesAreStagedAndPinnedOnesAreNot) {
  const size_t bytes = 2 * kStagingChunkBytes + 5;
  const StagingStats before = GetStagingStats();
  RoundTrip(bytes, 7);
  const StagingStats after = GetStagingStats();
  EXPECT_EQ(after.staged_copies - before.staged_copies, 2u);

  void* pinned = nullptr;
  ASSERT_EQ(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault), cudaSuccess);
  EXPECT_TRUE(IsPinnedHost(pinned));
  const std::vector<unsigned char> want = Pattern(bytes, 11);
  std::memcpy(pinned, want.data(), bytes);
  void* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, bytes), cudaSuccess);
  ASSERT_TRUE(CopyHostToDeviceStaged(0, stream_, device, pinned, bytes).ok());
  std::memset(pinned, 0, bytes);
  ASSERT_TRUE(CopyDeviceToHostStaged(0, stream_, pinned, device, bytes).ok());
  EXPECT_EQ(std::memcmp(pinned, want.data(), bytes), 0);
  const StagingStats pinned_after = GetStagingStats();
  EXPECT_EQ(pinned_after.staged_copies, after.staged_copies);
  EXPECT_EQ(pinned_after.direct_copies - after.direct_copies, 2u);
  cudaFree(device);
  cudaFreeHost(pinned);
}

TEST_F(PinnedStagingTest, PageableIsNotPinned) {
  std::vector<unsigned char> pageable(16);
  EXPECT_FALSE(IsPinnedHost(pageable.data()));
  EXPECT_FALSE(IsPinnedHost(nullptr));
}

TEST_F(PinnedStagingTest, ConcurrentCopiesFromSeveralThreadsStayCorrect) {
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      cudaSetDevice(0);
      cudaStream_t stream = nullptr;
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      const size_t bytes = kStagingChunkBytes + 1000 * (t + 1);
      const std::vector<unsigned char> want = Pattern(bytes, 100 + t);
      void* device = nullptr;
      cudaMalloc(&device, bytes);
      for (int round = 0; round < 5; ++round) {
        std::vector<unsigned char> back(bytes, 0);
        if (!CopyHostToDeviceStaged(0, stream, device, want.data(), bytes).ok() ||
            !CopyDeviceToHostStaged(0, stream, back.data(), device, bytes).ok() || back != want) {
          ++failures[t];
        }
      }
      cudaFree(device);
      cudaStreamDestroy(stream);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace device
}  // namespace tessera
