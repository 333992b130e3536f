#include "core/memory/caching_allocator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "core/memory/memory_test_util.h"

namespace tessera {
namespace memory {
namespace {

using ::testing::HasSubstr;

constexpr size_t kMiB = size_t{1} << 20;

// The rounding rule, written independently of size_bins.h.
size_t Rounded(size_t bytes) {
  const size_t b = bytes == 0 ? 1 : bytes;
  return (b + 511) / 512 * 512;
}

void* MustAllocate(Allocator& allocator, size_t bytes, size_t alignment = kDefaultAlignment) {
  Result<void*> p = allocator.Allocate(bytes, alignment);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? *p : nullptr;
}

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// Checks the snapshot's blocks tile each segment exactly.
void ExpectBlocksTile(const std::vector<SegmentInfo>& segments) {
  for (const SegmentInfo& s : segments) {
    size_t offset = 0;
    for (const SegmentInfo::BlockInfo& b : s.blocks) {
      EXPECT_EQ(b.offset, offset);
      EXPECT_GT(b.bytes, 0u);
      offset += b.bytes;
    }
    EXPECT_EQ(offset, s.bytes);
  }
}

// [ptr, ptr + bytes) lies inside one allocated block.
void ExpectInsideAllocatedBlock(const std::vector<SegmentInfo>& segments, const void* ptr,
                                size_t bytes) {
  const uintptr_t a = Address(ptr);
  for (const SegmentInfo& s : segments) {
    for (const SegmentInfo::BlockInfo& b : s.blocks) {
      const uintptr_t start = s.base + b.offset;
      if (a >= start && a < start + b.bytes) {
        EXPECT_TRUE(b.allocated);
        EXPECT_LE(a + std::max<size_t>(bytes, 1), start + b.bytes)
            << "allocation runs past its block";
        return;
      }
    }
  }
  ADD_FAILURE() << PointerString(ptr) << " is in no segment";
}

// Leaves one fully free segment cached in each pool.
void CacheOneSegmentPerPool(CachingAllocator& cache) {
  void* small = MustAllocate(cache, 1000);
  void* large = MustAllocate(cache, 3 * kMiB);
  ASSERT_TRUE(cache.Free(small).ok());
  ASSERT_TRUE(cache.Free(large).ok());
}

TEST(CachingAllocatorTest, ReuseAfterFreeMakesNoSystemAllocation) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  void* a = MustAllocate(cache, 4096);
  ASSERT_TRUE(cache.Free(a).ok());
  void* b = MustAllocate(cache, 4096);
  EXPECT_EQ(a, b) << "the freed block should be handed out again";
  EXPECT_EQ(system.allocate_calls(), 1);
  AllocatorStats s = cache.stats();
  EXPECT_EQ(s.num_allocs, 2u);
  EXPECT_EQ(s.num_cache_hits, 1u);
  EXPECT_EQ(s.num_system_allocs, 1u);
  EXPECT_EQ(s.bytes_in_use, 4096u);
  EXPECT_EQ(s.bytes_reserved, 2 * kMiB);
  ASSERT_TRUE(cache.Free(b).ok());
  EXPECT_EQ(cache.stats().bytes_in_use, 0u);
  EXPECT_EQ(cache.stats().bytes_reserved, 2 * kMiB) << "freed memory stays cached";
  EXPECT_EQ(system.free_calls(), 0);
}

TEST(CachingAllocatorTest, InUseCountsRoundedBytes) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  const std::vector<size_t> sizes = {0,    1,      511,  512,      513,         1000,
                                     4096, 100000, kMiB, kMiB + 1, 3 * kMiB + 7};
  std::vector<void*> ptrs;
  uint64_t expected = 0;
  for (size_t bytes : sizes) {
    ptrs.push_back(MustAllocate(cache, bytes));
    const size_t need = Rounded(bytes);
    if (need <= kMiB) {
      expected += need;
    } else {
      // Each large request here gets a fresh segment (nothing large is cached), a 2 MiB
      // multiple, and keeps the tail unless the tail exceeds 1 MiB.
      const size_t segment = (need + 2 * kMiB - 1) / (2 * kMiB) * (2 * kMiB);
      expected += segment - need > kMiB ? need : segment;
    }
    EXPECT_EQ(cache.stats().bytes_in_use, expected) << "after " << bytes << " bytes";
  }
  for (void* p : ptrs) ASSERT_TRUE(cache.Free(p).ok());
  EXPECT_EQ(cache.stats().bytes_in_use, 0u);
}

TEST(CachingAllocatorTest, SmallRequestsShareOneSegment) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  std::vector<std::pair<uintptr_t, size_t>> ranges;
  std::vector<void*> ptrs;
  for (int i = 0; i < 100; ++i) {
    const size_t bytes = 1000 + 13 * i;
    void* p = MustAllocate(cache, bytes);
    std::memset(p, i, bytes);
    ranges.push_back({Address(p), bytes});
    ptrs.push_back(p);
  }
  EXPECT_EQ(system.allocate_calls(), 1) << "100 small blocks fit one 2 MiB segment";
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    EXPECT_GE(ranges[i].first, ranges[i - 1].first + ranges[i - 1].second) << "overlap";
  }
  for (int i = 0; i < 100; ++i) {
    const unsigned char* bytes = static_cast<const unsigned char*>(ptrs[i]);
    EXPECT_EQ(bytes[0], static_cast<unsigned char>(i));
    ASSERT_TRUE(cache.Free(ptrs[i]).ok());
  }
  std::vector<SegmentInfo> segments = cache.Snapshot();
  ASSERT_EQ(segments.size(), 1u);
  ASSERT_EQ(segments[0].blocks.size(), 1u) << "all pieces merged back";
  EXPECT_FALSE(segments[0].blocks[0].allocated);
}

TEST(CachingAllocatorTest, SmallAndLargePoolsUseSeparateSegments) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  void* large = MustAllocate(cache, 3 * kMiB);
  ASSERT_TRUE(cache.Free(large).ok());
  // The cached 4 MiB large segment must not be carved up for a small tensor.
  void* small = MustAllocate(cache, 4096);
  EXPECT_EQ(system.allocate_calls(), 2);
  std::vector<SegmentInfo> segments = cache.Snapshot();
  ASSERT_EQ(segments.size(), 2u);
  for (const SegmentInfo& s : segments) {
    EXPECT_EQ(s.bytes, s.small_pool ? 2 * kMiB : 4 * kMiB);
  }
  ASSERT_TRUE(cache.Free(small).ok());
}

// Three pieces carved from one large segment, freed in every order: the segment must end up
// whole, proven by a full-size allocation that needs no system allocation.
TEST(CachingAllocatorTest, LargeSplitAndMergeInEveryOrder) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  void* whole = MustAllocate(cache, 12 * kMiB);
  ASSERT_TRUE(cache.Free(whole).ok());
  ASSERT_EQ(system.allocate_calls(), 1);

  const std::vector<size_t> sizes = {3 * kMiB, 4 * kMiB, 5 * kMiB};
  std::vector<int> order = {0, 1, 2};
  int orders = 0;
  do {
    std::vector<void*> pieces;
    for (size_t bytes : sizes) pieces.push_back(MustAllocate(cache, bytes));
    EXPECT_EQ(Address(pieces[0]), Address(whole));
    EXPECT_EQ(Address(pieces[1]), Address(whole) + 3 * kMiB);
    EXPECT_EQ(Address(pieces[2]), Address(whole) + 7 * kMiB);
    std::vector<SegmentInfo> split = cache.Snapshot();
    ASSERT_EQ(split.size(), 1u);
    EXPECT_EQ(split[0].blocks.size(), 3u);
    ExpectBlocksTile(split);

    for (int i : order) ASSERT_TRUE(cache.Free(pieces[i]).ok());
    std::vector<SegmentInfo> merged = cache.Snapshot();
    ASSERT_EQ(merged.size(), 1u);
    ASSERT_EQ(merged[0].blocks.size(), 1u) << "order " << order[0] << order[1] << order[2];
    EXPECT_EQ(merged[0].blocks[0].bytes, 12 * kMiB);

    void* again = MustAllocate(cache, 12 * kMiB);
    EXPECT_EQ(again, whole);
    ASSERT_TRUE(cache.Free(again).ok());
    ++orders;
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_EQ(orders, 6);
  EXPECT_EQ(system.allocate_calls(), 1) << "every piece came from the cached segment";
}

TEST(CachingAllocatorTest, SmallSplitAndMergeInEveryOrder) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  const std::vector<size_t> sizes = {1000, 70000, 300000};
  std::vector<int> order = {0, 1, 2};
  uintptr_t base = 0;
  do {
    std::vector<void*> pieces;
    for (size_t bytes : sizes) pieces.push_back(MustAllocate(cache, bytes));
    if (base == 0) base = Address(pieces[0]);
    // Carved front to back out of the one segment.
    EXPECT_EQ(Address(pieces[0]), base);
    EXPECT_EQ(Address(pieces[1]), base + Rounded(sizes[0]));
    EXPECT_EQ(Address(pieces[2]), base + Rounded(sizes[0]) + Rounded(sizes[1]));
    for (int i : order) ASSERT_TRUE(cache.Free(pieces[i]).ok());
    std::vector<SegmentInfo> merged = cache.Snapshot();
    ASSERT_EQ(merged.size(), 1u);
    ASSERT_EQ(merged[0].blocks.size(), 1u);
    EXPECT_EQ(merged[0].blocks[0].bytes, 2 * kMiB);
  } while (std::next_permutation(order.begin(), order.end()));
  // The largest small requests: two of them fill the merged segment exactly.
  void* first = MustAllocate(cache, kMiB);
  void* second = MustAllocate(cache, kMiB);
  EXPECT_EQ(Address(first), base);
  EXPECT_EQ(Address(second), base + kMiB);
  EXPECT_EQ(system.allocate_calls(), 1);
  ASSERT_TRUE(cache.Free(first).ok());
  ASSERT_TRUE(cache.Free(second).ok());
}

TEST(CachingAllocatorTest, FreeMergesOnlyWithFreeNeighbours) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  void* a = MustAllocate(cache, 1024);
  void* b = MustAllocate(cache, 2048);
  void* c = MustAllocate(cache, 4096);
  ASSERT_TRUE(cache.Free(b).ok());
  std::vector<SegmentInfo> s = cache.Snapshot();
  ASSERT_EQ(s.size(), 1u);
  ExpectBlocksTile(s);
  ASSERT_EQ(s[0].blocks.size(), 4u);
  EXPECT_TRUE(s[0].blocks[0].allocated);
  EXPECT_FALSE(s[0].blocks[1].allocated);
  EXPECT_EQ(s[0].blocks[1].bytes, 2048u);
  EXPECT_TRUE(s[0].blocks[2].allocated);
  EXPECT_FALSE(s[0].blocks[3].allocated);
  EXPECT_EQ(s[0].blocks[3].bytes, 2 * kMiB - 1024 - 2048 - 4096);

  // The hole is the best fit for a request of its size.
  void* refill = MustAllocate(cache, 2000);
  EXPECT_EQ(refill, b);
  ASSERT_TRUE(cache.Free(refill).ok());

  ASSERT_TRUE(cache.Free(a).ok());  // merges with b's hole
  s = cache.Snapshot();
  ASSERT_EQ(s[0].blocks.size(), 3u);
  EXPECT_EQ(s[0].blocks[0].bytes, 1024u + 2048u);
  ASSERT_TRUE(cache.Free(c).ok());  // merges both sides
  s = cache.Snapshot();
  ASSERT_EQ(s[0].blocks.size(), 1u);
}

TEST(CachingAllocatorTest, AlignmentIsHonouredAndBlocksHoldTheRequest) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  std::vector<std::pair<void*, size_t>> live;
  for (size_t alignment = 1; alignment <= 4 * kMiB; alignment *= 2) {
    for (size_t bytes : {size_t{0}, size_t{100}, size_t{5000}, 2 * kMiB + 3}) {
      void* p = MustAllocate(cache, bytes, alignment);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(Address(p) % alignment, 0u) << "bytes " << bytes << " alignment " << alignment;
      EXPECT_EQ(Address(p) % 512, 0u) << "blocks start 512-aligned over a 512-aligned base";
      std::memset(p, 0x5a, bytes);
      live.push_back({p, bytes});
    }
  }
  EXPECT_EQ(system.last_alignment(), 512u) << "segments are requested 512-aligned";
  std::vector<SegmentInfo> segments = cache.Snapshot();
  ExpectBlocksTile(segments);
  for (const auto& [p, bytes] : live) ExpectInsideAllocatedBlock(segments, p, bytes);
  for (const auto& [p, bytes] : live) ASSERT_TRUE(cache.Free(p).ok());
  EXPECT_EQ(cache.stats().bytes_in_use, 0u);
}

// Over a cudaMalloc-like backing (256-byte guarantee, addresses 256 mod 512) alignments
// above 256 are met by padding inside the block.
TEST(CachingAllocatorTest, PadsForAlignmentsAboveTheBackingGuarantee) {
  FakeSystemAllocator system;
  system.set_cuda_like(true);
  CachingAllocator cache(&system);
  std::vector<std::pair<void*, size_t>> live;
  bool saw_unaligned_block = false;
  for (size_t alignment : {size_t{64}, size_t{256}, size_t{512}, size_t{4096}, 2 * kMiB}) {
    for (size_t bytes : {size_t{1}, size_t{512}, size_t{3000}, 3 * kMiB}) {
      void* p = MustAllocate(cache, bytes, alignment);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(Address(p) % alignment, 0u) << "bytes " << bytes << " alignment " << alignment;
      live.push_back({p, bytes});
    }
  }
  EXPECT_EQ(system.last_alignment(), 256u);
  std::vector<SegmentInfo> segments = cache.Snapshot();
  for (const SegmentInfo& s : segments) {
    EXPECT_EQ(s.base % 512, 256u) << "the fake returns 256-mod-512 bases";
    for (const SegmentInfo::BlockInfo& b : s.blocks) {
      saw_unaligned_block |= b.allocated && (s.base + b.offset) % 512 != 0;
    }
  }
  EXPECT_TRUE(saw_unaligned_block) << "the padding path was not exercised";
  ExpectBlocksTile(segments);
  for (const auto& [p, bytes] : live) ExpectInsideAllocatedBlock(segments, p, bytes);
  for (const auto& [p, bytes] : live) ASSERT_TRUE(cache.Free(p).ok());
}

TEST(CachingAllocatorTest, PeakTracksTheMaximumAndResets) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  // +n allocates n bytes, -i frees the i-th allocation.
  struct Step {
    bool allocate;
    size_t value;
  };
  const std::vector<Step> steps = {{true, 5000},   {true, 70000}, {false, 0},
                                   {true, 300},    {false, 1},    {true, 9000},
                                   {true, 100000}, {false, 3},    {true, 200000}};
  std::vector<void*> ptrs;
  std::vector<size_t> rounded;
  uint64_t in_use = 0, peak = 0;
  for (const Step& step : steps) {
    if (step.allocate) {
      ptrs.push_back(MustAllocate(cache, step.value));
      rounded.push_back(Rounded(step.value));
      in_use += rounded.back();
    } else {
      ASSERT_TRUE(cache.Free(ptrs[step.value]).ok());
      in_use -= rounded[step.value];
      ptrs[step.value] = nullptr;
    }
    peak = std::max(peak, in_use);
    ASSERT_EQ(cache.stats().bytes_in_use, in_use);
    ASSERT_EQ(cache.stats().peak_bytes_in_use, peak);
  }
  cache.ResetPeak();
  EXPECT_EQ(cache.stats().peak_bytes_in_use, in_use);
  void* extra = MustAllocate(cache, 512);
  ASSERT_TRUE(cache.Free(extra).ok());
  EXPECT_EQ(cache.stats().peak_bytes_in_use, in_use + 512);
  for (void* p : ptrs) ASSERT_TRUE(cache.Free(p).ok());
}

TEST(CachingAllocatorTest, EmptyCacheReturnsOnlyFullyFreeSegments) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  void* small_a = MustAllocate(cache, 1000);
  void* small_b = MustAllocate(cache, 2000);
  void* large = MustAllocate(cache, 5 * kMiB);
  ASSERT_EQ(system.live_count(), 2u);
  ASSERT_TRUE(cache.Free(large).ok());
  ASSERT_TRUE(cache.Free(small_a).ok());
  ASSERT_TRUE(cache.EmptyCache().ok());
  // The small segment still holds small_b.
  EXPECT_EQ(system.live_count(), 1u);
  EXPECT_EQ(system.live_bytes(), 2 * kMiB);
  AllocatorStats s = cache.stats();
  EXPECT_EQ(s.bytes_reserved, 2 * kMiB);
  EXPECT_EQ(s.num_segments, 1u);
  EXPECT_EQ(s.num_system_frees, 1u);

  ASSERT_TRUE(cache.Free(small_b).ok());
  ASSERT_TRUE(cache.EmptyCache().ok());
  EXPECT_EQ(system.live_count(), 0u);
  s = cache.stats();
  EXPECT_EQ(s.bytes_reserved, 0u);
  EXPECT_EQ(s.num_segments, 0u);
  EXPECT_EQ(s.num_system_frees, s.num_system_allocs);
  EXPECT_TRUE(cache.Snapshot().empty());
  EXPECT_TRUE(cache.EmptyCache().ok()) << "emptying an empty cache is fine";

  // Still usable afterwards.
  void* again = MustAllocate(cache, 1000);
  EXPECT_EQ(system.allocate_calls(), 3);
  ASSERT_TRUE(cache.Free(again).ok());
}

TEST(CachingAllocatorTest, EmptyCacheReportsABackingFailureAndStillReleases) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  CacheOneSegmentPerPool(cache);
  system.set_fail_frees(true);
  Status s = cache.EmptyCache();
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("injected failure"));
  EXPECT_EQ(system.free_calls(), 2) << "a failure must not stop the other segments";
  EXPECT_EQ(cache.stats().bytes_reserved, 0u);
  EXPECT_EQ(system.live_count(), 0u);
}

TEST(CachingAllocatorTest, ZeroBytesGiveUniqueFreeablePointers) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  std::set<void*> seen;
  std::vector<void*> ptrs;
  for (int i = 0; i < 10; ++i) {
    void* p = MustAllocate(cache, 0);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(seen.insert(p).second);
    ptrs.push_back(p);
  }
  EXPECT_EQ(cache.stats().bytes_in_use, 10u * 512u);
  for (void* p : ptrs) EXPECT_TRUE(cache.Free(p).ok());
  EXPECT_EQ(cache.stats().bytes_in_use, 0u);
}

TEST(CachingAllocatorTest, BadAlignmentIsInvalidAndNamed) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  for (size_t alignment : {size_t{0}, size_t{3}, size_t{48}, size_t{768}}) {
    Result<void*> p = cache.Allocate(100, alignment);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(p.status().message(), HasSubstr("CachingAllocator::Allocate on cpu"));
    EXPECT_THAT(p.status().message(),
                HasSubstr("(bytes=100, alignment=" + std::to_string(alignment) + ")"));
  }
  Result<void*> huge = cache.Allocate(100, kMaxAlignment * 2);
  EXPECT_EQ(huge.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(huge.status().message(), HasSubstr("largest supported"));
  EXPECT_EQ(system.allocate_calls(), 0);
  EXPECT_EQ(cache.stats().num_allocs, 0u);
}

TEST(CachingAllocatorTest, ForeignDoubleAndInteriorFreesAreErrorsNotCrashes) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  CachingAllocator other(&system);
  void* a = MustAllocate(cache, 4096);
  void* b = MustAllocate(cache, 4096);
  void* theirs = MustAllocate(other, 4096);
  int on_stack = 0;

  Status foreign = cache.Free(&on_stack);
  EXPECT_EQ(foreign.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(foreign.message(), HasSubstr("CachingAllocator::Free on cpu"));
  EXPECT_THAT(foreign.message(), HasSubstr(PointerString(&on_stack)));
  EXPECT_THAT(foreign.message(), HasSubstr("was not allocated by this allocator"));

  Status wrong_allocator = cache.Free(theirs);
  EXPECT_EQ(wrong_allocator.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong_allocator.message(), HasSubstr("was not allocated by this allocator"));

  Status interior = cache.Free(static_cast<char*>(a) + 8);
  EXPECT_EQ(interior.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(interior.message(), HasSubstr(PointerString(static_cast<char*>(a) + 8)));
  EXPECT_THAT(interior.message(), HasSubstr("double free"));

  ASSERT_TRUE(cache.Free(a).ok());
  Status twice = cache.Free(a);
  EXPECT_EQ(twice.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(twice.message(), HasSubstr(PointerString(a)));
  EXPECT_THAT(twice.message(), HasSubstr("not a live allocation: a double free"));

  EXPECT_TRUE(cache.Free(nullptr).ok());

  // Nothing was corrupted: counts are exact and the allocator still works.
  AllocatorStats s = cache.stats();
  EXPECT_EQ(s.num_frees, 1u);
  EXPECT_EQ(s.bytes_in_use, 4096u);
  void* c = MustAllocate(cache, 4096);
  EXPECT_EQ(c, a);
  ASSERT_TRUE(cache.Free(b).ok());
  ASSERT_TRUE(cache.Free(c).ok());
  ASSERT_TRUE(other.Free(theirs).ok());
  EXPECT_EQ(cache.stats().bytes_in_use, 0u);
}

TEST(CachingAllocatorTest, OutOfMemoryReleasesTheCacheAndRetries) {
  FakeSystemAllocator system(6 * kMiB);
  CachingAllocator cache(&system);
  void* big = MustAllocate(cache, 5 * kMiB);  // a 6 MiB segment: the whole budget

  Result<void*> refused = cache.Allocate(1);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted);
  const std::string& message = refused.status().message();
  EXPECT_THAT(message, HasSubstr("CachingAllocator::Allocate on cpu"));
  EXPECT_THAT(message, HasSubstr("out of memory allocating 1 bytes"));
  EXPECT_THAT(message, HasSubstr("2097152-byte segment"));
  EXPECT_THAT(message, HasSubstr("in_use=6291456"));
  EXPECT_THAT(message, HasSubstr("reserved=6291456"));

  // Once `big` is free its cached segment is released to make room.
  ASSERT_TRUE(cache.Free(big).ok());
  void* small = MustAllocate(cache, 1);
  AllocatorStats s = cache.stats();
  EXPECT_EQ(s.num_system_frees, 1u);
  EXPECT_EQ(s.bytes_reserved, 2 * kMiB);
  EXPECT_EQ(system.live_bytes(), 2 * kMiB);
  ASSERT_TRUE(cache.Free(small).ok());
}

TEST(CachingAllocatorTest, ImpossibleSizesAreOutOfMemoryWithoutOverflow) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  for (size_t bytes : {kMaxRequestBytes + 1, SIZE_MAX, SIZE_MAX - 511}) {
    Result<void*> p = cache.Allocate(bytes, kMaxAlignment);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().code(), StatusCode::kResourceExhausted);
    EXPECT_THAT(p.status().message(), HasSubstr(std::to_string(bytes) + " bytes"));
  }
  EXPECT_EQ(system.allocate_calls(), 0);
}

TEST(CachingAllocatorTest, WarmCycleMakesNoSystemAllocation) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  const std::vector<size_t> pattern = {4096, 100, 70000, 3 * kMiB, 512, 1 * kMiB, 9 * kMiB + 5};
  auto cycle = [&] {
    std::vector<void*> ptrs;
    for (size_t bytes : pattern) ptrs.push_back(MustAllocate(cache, bytes));
    // Free in an order different from allocation to exercise merging both ways.
    for (size_t i = 0; i < ptrs.size(); i += 2) ASSERT_TRUE(cache.Free(ptrs[i]).ok());
    for (size_t i = 1; i < ptrs.size(); i += 2) ASSERT_TRUE(cache.Free(ptrs[i]).ok());
  };
  cycle();
  const int64_t system_allocs = system.allocate_calls();
  const uint64_t hits_before = cache.stats().num_cache_hits;
  for (int i = 0; i < 100; ++i) cycle();
  EXPECT_EQ(system.allocate_calls(), system_allocs);
  EXPECT_EQ(system.free_calls(), 0);
  EXPECT_EQ(cache.stats().num_cache_hits - hits_before, 100 * pattern.size())
      << "every warm Allocate is a cache hit";
  EXPECT_EQ(cache.stats().num_system_allocs, static_cast<uint64_t>(system_allocs));
}

TEST(CachingAllocatorTest, DestructionReturnsEverySegment) {
  FakeSystemAllocator system;
  {
    CachingAllocator cache(&system);
    CacheOneSegmentPerPool(cache);
    EXPECT_EQ(system.live_count(), 2u);
  }
  EXPECT_EQ(system.live_count(), 0u);
}

TEST(HostCachingAllocatorTest, IsOneProcessWideHostInstance) {
  CachingAllocator& host = HostCachingAllocator();
  EXPECT_EQ(&host, &HostCachingAllocator());
  EXPECT_EQ(host.device_type(), DeviceType::kCpu);
  EXPECT_EQ(host.backing()->device_type(), DeviceType::kCpu);
  const uint64_t in_use = host.stats().bytes_in_use;
  void* p = MustAllocate(host, 10000, 4096);
  EXPECT_EQ(Address(p) % 4096, 0u);
  std::memset(p, 1, 10000);
  EXPECT_EQ(host.stats().bytes_in_use, in_use + Rounded(10000 + 4096 - 512));
  ASSERT_TRUE(host.Free(p).ok());
  EXPECT_EQ(host.stats().bytes_in_use, in_use);
}

TEST(HostCachingAllocatorTest, SystemOutOfMemoryIsResourceExhausted) {
  CachingAllocator& host = HostCachingAllocator();
  const size_t petabyte = size_t{1} << 50;
  Result<void*> p = host.Allocate(petabyte);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(p.status().message(), HasSubstr(std::to_string(petabyte) + " bytes"));
  EXPECT_THAT(p.status().message(), HasSubstr("posix_memalign failed"));
}

}  // namespace
}  // namespace memory
}  // namespace tessera
