// A warm allocate/free cycle must neither call the system allocator nor touch the heap.
// Its own binary: :heap_counter replaces the global operator new to count allocations.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "core/memory/caching_allocator.h"
#include "core/memory/heap_counter.h"
#include "core/memory/memory_test_util.h"

namespace tessera {
namespace memory {
namespace {

TEST(HeapCounterTest, CountsEveryFormOfNew) {
  const long before = ThreadHeapAllocations();
  auto* v = new std::vector<int>(100);  // the vector and its storage
  delete v;
  EXPECT_EQ(ThreadHeapAllocations() - before, 2);

  struct alignas(256) Wide {
    char bytes[300];
  };
  const long before_aligned = ThreadHeapAllocations();
  auto wide = std::make_unique<Wide[]>(3);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(wide.get()) % 256, 0u);
  wide.reset();
  int* plain = new (std::nothrow) int[5];
  delete[] plain;
  EXPECT_EQ(ThreadHeapAllocations() - before_aligned, 2);
}

TEST(CachingAllocatorAllocTest, WarmCycleAllocatesNothing) {
  FakeSystemAllocator system;
  CachingAllocator cache(&system);
  constexpr int kLive = 8;
  const size_t sizes[kLive] = {4096, 100, 70000, 3 << 20, 0, 1 << 20, (9 << 20) + 5, 512};
  const size_t alignments[kLive] = {64, 8, 4096, 64, 64, 256, 2 << 20, 1024};
  void* ptrs[kLive] = {};
  auto cycle = [&] {
    for (int i = 0; i < kLive; ++i) {
      Result<void*> p = cache.Allocate(sizes[i], alignments[i]);
      ptrs[i] = p.ok() ? *p : nullptr;
    }
    bool ok = true;
    for (int i = kLive - 1; i >= 0; i -= 2) ok = cache.Free(ptrs[i]).ok() && ok;
    for (int i = kLive - 2; i >= 0; i -= 2) ok = cache.Free(ptrs[i]).ok() && ok;
    return ok;
  };
  ASSERT_TRUE(cycle());  // warm-up: segments, block records and the pointer table grow
  ASSERT_TRUE(cycle());
  const int64_t system_calls = system.allocate_calls();

  const long before = ThreadHeapAllocations();
  bool all_ok = true;
  for (int i = 0; i < 1000; ++i) all_ok = cycle() && all_ok;
  const long during = ThreadHeapAllocations() - before;

  EXPECT_TRUE(all_ok);
  for (void* p : ptrs) EXPECT_NE(p, nullptr);
  EXPECT_EQ(during, 0) << "heap allocations in 1000 warm cycles";
  EXPECT_EQ(system.allocate_calls(), system_calls) << "system allocations in warm cycles";
  EXPECT_EQ(system.free_calls(), 0);
}

}  // namespace
}  // namespace memory
}  // namespace tessera

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
