#include "core/memory/host_allocator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

// Under AddressSanitizer an impossible request must fail like it does under glibc (ENOMEM)
// rather than abort the test; the bazelrc's ASAN_OPTIONS leave this key at its default.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

namespace tessera {
namespace memory {
namespace {

using ::testing::HasSubstr;

TEST(SystemHostAllocatorTest, AllocatesAlignedWritableMemory) {
  SystemHostAllocator allocator;
  EXPECT_EQ(allocator.device_type(), DeviceType::kCpu);
  EXPECT_EQ(allocator.DeviceName(), "cpu");
  for (size_t alignment = 1; alignment <= (size_t{1} << 20); alignment *= 2) {
    const size_t bytes = 1000 + alignment / 3;
    Result<void*> p = allocator.Allocate(bytes, alignment);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    const uintptr_t address = reinterpret_cast<uintptr_t>(*p);
    EXPECT_EQ(address % alignment, 0u) << "alignment " << alignment;
    EXPECT_EQ(address % kDefaultAlignment, 0u) << "every host allocation is 64-byte aligned";
    std::memset(*p, 0xab, bytes);
    EXPECT_EQ(static_cast<unsigned char*>(*p)[bytes - 1], 0xab);
    ASSERT_TRUE(allocator.Free(*p).ok());
  }
}

TEST(SystemHostAllocatorTest, StatsCountEveryCall) {
  SystemHostAllocator allocator;
  const std::vector<size_t> sizes = {100, 4096, 0, 70000};
  std::vector<void*> ptrs;
  uint64_t in_use = 0, peak = 0;
  for (size_t bytes : sizes) {
    Result<void*> p = allocator.Allocate(bytes);
    ASSERT_TRUE(p.ok());
    ptrs.push_back(*p);
    in_use += bytes == 0 ? 1 : bytes;
    peak = in_use > peak ? in_use : peak;
  }
  AllocatorStats s = allocator.stats();
  EXPECT_EQ(s.bytes_in_use, in_use);
  EXPECT_EQ(s.bytes_reserved, in_use);
  EXPECT_EQ(s.peak_bytes_in_use, peak);
  EXPECT_EQ(s.num_allocs, sizes.size());
  EXPECT_EQ(s.num_system_allocs, sizes.size());
  EXPECT_EQ(s.num_segments, sizes.size());
  EXPECT_EQ(s.num_cache_hits, 0u);

  ASSERT_TRUE(allocator.Free(ptrs[1]).ok());
  in_use -= 4096;
  allocator.ResetPeak();
  s = allocator.stats();
  EXPECT_EQ(s.bytes_in_use, in_use);
  EXPECT_EQ(s.peak_bytes_in_use, in_use);
  EXPECT_EQ(s.num_frees, 1u);
  EXPECT_EQ(s.num_system_frees, 1u);
  for (size_t i : {0, 2, 3}) ASSERT_TRUE(allocator.Free(ptrs[i]).ok());
  s = allocator.stats();
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.num_segments, 0u);
  EXPECT_EQ(s.num_frees, sizes.size());
}

TEST(SystemHostAllocatorTest, ZeroBytesGiveUniqueNonNullPointers) {
  SystemHostAllocator allocator;
  std::set<void*> seen;
  std::vector<void*> ptrs;
  for (int i = 0; i < 16; ++i) {
    Result<void*> p = allocator.Allocate(0);
    ASSERT_TRUE(p.ok());
    ASSERT_NE(*p, nullptr);
    EXPECT_TRUE(seen.insert(*p).second) << "zero-byte pointers must be unique";
    ptrs.push_back(*p);
  }
  for (void* p : ptrs) EXPECT_TRUE(allocator.Free(p).ok());
}

TEST(SystemHostAllocatorTest, BadAlignmentIsInvalidAndNamed) {
  SystemHostAllocator allocator;
  for (size_t alignment : {size_t{0}, size_t{3}, size_t{48}, size_t{1000}}) {
    Result<void*> p = allocator.Allocate(128, alignment);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(p.status().message(), HasSubstr("SystemHostAllocator::Allocate on cpu"));
    EXPECT_THAT(p.status().message(), HasSubstr("power of two"));
    EXPECT_THAT(p.status().message(), HasSubstr("alignment=" + std::to_string(alignment)));
  }
  Result<void*> huge = allocator.Allocate(128, kMaxAlignment * 2);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(huge.status().message(), HasSubstr("largest supported, 1073741824"));
  EXPECT_EQ(allocator.stats().num_allocs, 0u);
}

TEST(SystemHostAllocatorTest, ForeignPointerAndDoubleFreeAreErrorsNotCrashes) {
  SystemHostAllocator allocator;
  int on_stack = 0;
  Status foreign = allocator.Free(&on_stack);
  EXPECT_EQ(foreign.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(foreign.message(), HasSubstr(PointerString(&on_stack)));
  EXPECT_THAT(foreign.message(), HasSubstr("SystemHostAllocator::Free on cpu"));

  Result<void*> p = allocator.Allocate(256);
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(allocator.Free(*p).ok());
  Status twice = allocator.Free(*p);
  EXPECT_EQ(twice.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(twice.message(), HasSubstr(PointerString(*p)));
  EXPECT_THAT(twice.message(), HasSubstr("already freed"));
  EXPECT_EQ(allocator.stats().num_frees, 1u);

  EXPECT_TRUE(allocator.Free(nullptr).ok());
}

TEST(SystemHostAllocatorTest, OutOfMemoryNamesBytesAndStats) {
  SystemHostAllocator allocator;
  Result<void*> held = allocator.Allocate(1000);
  ASSERT_TRUE(held.ok());
  const size_t petabyte = size_t{1} << 50;
  Result<void*> p = allocator.Allocate(petabyte);
  ASSERT_FALSE(p.ok()) << "1 PiB should not be allocatable";
  EXPECT_EQ(p.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(p.status().message(), HasSubstr(std::to_string(petabyte) + " bytes"));
  EXPECT_THAT(p.status().message(), HasSubstr("in_use=1000"));
  EXPECT_EQ(allocator.stats().num_allocs, 1u);
  ASSERT_TRUE(allocator.Free(*held).ok());
}

}  // namespace
}  // namespace memory
}  // namespace tessera
