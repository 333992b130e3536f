#include "core/device/host_copy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace tessera::device {
namespace {

// A byte pattern that differs between neighbouring bytes and between calls (seed), so a
// misplaced, skipped or doubled part shows.
std::vector<uint8_t> Pattern(size_t bytes, uint32_t seed) {
  std::vector<uint8_t> v(bytes);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < bytes; ++i) {
    x = x * 1664525u + 1013904223u;
    v[i] = static_cast<uint8_t>(x >> 24);
  }
  return v;
}

// Copies `bytes` between buffers misaligned by `src_shift` and `dst_shift` and checks
// every byte, and that the bytes just outside the destination are untouched.
void CheckCopy(size_t bytes, size_t src_shift, size_t dst_shift, uint32_t seed) {
  const std::vector<uint8_t> expected = Pattern(bytes, seed);
  std::vector<uint8_t> src(bytes + src_shift);
  // std::copy and std::equal: an empty vector's data() may be null, which memcpy and
  // memcmp may not take even for 0 bytes.
  std::copy(expected.begin(), expected.end(), src.begin() + src_shift);
  std::vector<uint8_t> dst(bytes + dst_shift + 2, 0xAB);
  ParallelCopy(dst.data() + dst_shift + 1, src.data() + src_shift, bytes);
  ASSERT_EQ(dst[dst_shift], 0xAB) << "byte before the destination written, bytes " << bytes;
  ASSERT_EQ(dst[dst_shift + 1 + bytes], 0xAB) << "byte after the destination written";
  ASSERT_TRUE(std::equal(expected.begin(), expected.end(), dst.begin() + dst_shift + 1))
      << bytes << " bytes, shifts " << src_shift << "/" << dst_shift << ", " << CopyThreads()
      << " threads";
}

TEST(HostCopyTest, SetCopyThreadsRefusesCountsOutsideOneToMax) {
  for (int bad : {0, -1, kMaxCopyThreads + 1}) {
    const Status s = SetCopyThreads(bad);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("threads is " + std::to_string(bad)), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find("expected 1 to 64"), std::string::npos) << s.message();
  }
  ASSERT_TRUE(SetCopyThreads(5).ok());
  EXPECT_EQ(CopyThreads(), 5);
  EXPECT_FALSE(SetCopyThreads(0).ok());
  EXPECT_EQ(CopyThreads(), 5) << "a refused count changed the setting";
  ASSERT_TRUE(SetCopyThreads(kMaxCopyThreads).ok());
  ASSERT_TRUE(SetCopyThreads(1).ok());
}

TEST(HostCopyTest, DefaultIsTheShareOfHardwareThreadsBetweenOneAndEight) {
  EXPECT_EQ(DefaultCopyThreads(16, 2), 8);
  EXPECT_EQ(DefaultCopyThreads(16, 4), 4);
  EXPECT_EQ(DefaultCopyThreads(64, 1), kMaxDefaultCopyThreads);
  EXPECT_EQ(DefaultCopyThreads(12, 5), 2);
  EXPECT_EQ(DefaultCopyThreads(2, 3), 1);
  EXPECT_EQ(DefaultCopyThreads(0, 0), 1);
  EXPECT_EQ(DefaultCopyThreads(-4, 1), 1);
}

TEST(HostCopyTest, EverySizeAndAlignmentCopiesExactly) {
  const size_t mb = kParallelCopyMinBytes;
  const size_t sizes[] = {0, 1, 4095, mb - 1, mb, mb + 13, 5 * mb + 7, (64 << 20) + 3};
  uint32_t seed = 0;
  for (int threads : {1, 2, 3, 8}) {
    ASSERT_TRUE(SetCopyThreads(threads).ok());
    for (size_t bytes : sizes) {
      for (size_t shift : {0, 1, 3}) CheckCopy(bytes, shift, (shift * 5) % 7, ++seed);
    }
  }
  ASSERT_TRUE(SetCopyThreads(1).ok());
}

TEST(HostCopyTest, LargeCopiesUseHelpersAndSmallOnesDoNot) {
  ASSERT_TRUE(SetCopyThreads(3).ok());
  const HostCopyStats before = GetHostCopyStats();
  CheckCopy(kParallelCopyMinBytes - 1, 0, 0, 7);
  const HostCopyStats small = GetHostCopyStats();
  EXPECT_EQ(small.parallel_copies, before.parallel_copies);
  EXPECT_EQ(small.alone_copies, before.alone_copies + 1);
  CheckCopy(3 * kParallelCopyMinBytes, 0, 0, 8);
  const HostCopyStats large = GetHostCopyStats();
  EXPECT_EQ(large.parallel_copies, small.parallel_copies + 1);
  EXPECT_GE(large.helper_threads, 2);
  ASSERT_TRUE(SetCopyThreads(1).ok());
  CheckCopy(3 * kParallelCopyMinBytes, 0, 0, 9);
  EXPECT_EQ(GetHostCopyStats().parallel_copies, large.parallel_copies);
}

// Back-to-back copies: a helper still finishing (or waking for) one copy must never
// copy a part of the next with the previous copy's pointers.
TEST(HostCopyTest, ManyCopiesInARowStayExact) {
  ASSERT_TRUE(SetCopyThreads(4).ok());
  const size_t bytes = kParallelCopyMinBytes + 4096 * 3 + 5;
  std::vector<std::vector<uint8_t>> sources;
  for (uint32_t s = 0; s < 4; ++s) sources.push_back(Pattern(bytes, 100 + s));
  std::vector<uint8_t> dst(bytes);
  for (int i = 0; i < 400; ++i) {
    const std::vector<uint8_t>& src = sources[i % sources.size()];
    ParallelCopy(dst.data(), src.data(), bytes);
    ASSERT_EQ(std::memcmp(dst.data(), src.data(), bytes), 0) << "copy " << i;
  }
  ASSERT_TRUE(SetCopyThreads(1).ok());
}

// Several threads copying at once: one gets the helpers, the others copy alone; every
// copy is exact either way.
TEST(HostCopyTest, ConcurrentCallersAreAllExact) {
  ASSERT_TRUE(SetCopyThreads(3).ok());
  const HostCopyStats before = GetHostCopyStats();
  constexpr int kCallers = 4, kCopies = 25;
  const size_t bytes = 2 * kParallelCopyMinBytes + 123;
  std::vector<int> failures(kCallers, 0);
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&, t] {
      const std::vector<uint8_t> src = Pattern(bytes, 1000 + t);
      std::vector<uint8_t> dst(bytes);
      for (int i = 0; i < kCopies; ++i) {
        std::memset(dst.data(), 0, bytes);
        ParallelCopy(dst.data(), src.data(), bytes);
        if (std::memcmp(dst.data(), src.data(), bytes) != 0) ++failures[t];
      }
    });
  }
  for (std::thread& t : callers) t.join();
  for (int t = 0; t < kCallers; ++t) EXPECT_EQ(failures[t], 0) << "caller " << t;
  const HostCopyStats after = GetHostCopyStats();
  EXPECT_EQ(
      (after.parallel_copies - before.parallel_copies) + (after.alone_copies - before.alone_copies),
      static_cast<uint64_t>(kCallers * kCopies));
  EXPECT_EQ(after.alone_copies - before.alone_copies, after.busy_fallbacks - before.busy_fallbacks);
  ASSERT_TRUE(SetCopyThreads(1).ok());
}

}  // namespace
}  // namespace tessera::device
