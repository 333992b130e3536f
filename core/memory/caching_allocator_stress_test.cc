// Threads sharing one caching allocator: every block a thread holds must stay intact while
// the others allocate, split, free and merge around it.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "core/memory/caching_allocator.h"
#include "core/memory/host_allocator.h"

namespace tessera {
namespace memory {
namespace {

constexpr int kThreads = 4;

struct Held {
  unsigned char* data;
  size_t bytes;
  unsigned char tag;
};

// Sizes from a few hundred bytes to a few MiB, so both pools, splitting and merging run.
size_t RandomSize(std::mt19937& rng) {
  switch (rng() % 4) {
    case 0: return rng() % 600;
    case 1: return 512 + rng() % 8192;
    case 2: return 8192 + rng() % 300000;
    default: return (size_t{1} << 20) + rng() % (size_t{3} << 20);
  }
}

// Writing and checking whole multi-MiB blocks would make the test slow, so a block's tag
// covers its first 4 KiB, its last byte and a sample of bytes in between.
constexpr size_t kPrefix = 4096;

void Stamp(const Held& h) {
  if (h.bytes == 0) return;
  std::memset(h.data, h.tag, h.bytes < kPrefix ? h.bytes : kPrefix);
  for (size_t i = 0; i < h.bytes; i += h.bytes / 7 + 1) h.data[i] = h.tag;
  h.data[h.bytes - 1] = h.tag;
}

bool Intact(const Held& h) {
  if (h.bytes == 0) return true;
  for (size_t i = 0; i < h.bytes && i < kPrefix; ++i) {
    if (h.data[i] != h.tag) return false;
  }
  for (size_t i = 0; i < h.bytes; i += h.bytes / 7 + 1) {
    if (h.data[i] != h.tag) return false;
  }
  return h.data[h.bytes - 1] == h.tag;
}

void Churn(Allocator* allocator, int thread, int steps, std::atomic<int>* failures) {
  std::mt19937 rng(1000 + thread);
  std::vector<Held> held;
  for (int step = 0; step < steps; ++step) {
    if (held.size() < 24 && (held.empty() || rng() % 5 < 3)) {
      const size_t bytes = RandomSize(rng);
      const size_t alignment = size_t{1} << (rng() % 13);
      Result<void*> p = allocator->Allocate(bytes, alignment);
      if (!p.ok() || reinterpret_cast<uintptr_t>(*p) % alignment != 0) {
        failures->fetch_add(1);
        continue;
      }
      Held h{static_cast<unsigned char*>(*p), bytes, static_cast<unsigned char>(rng())};
      Stamp(h);
      held.push_back(h);
    } else {
      const size_t i = rng() % held.size();
      if (!Intact(held[i]) || !allocator->Free(held[i].data).ok()) failures->fetch_add(1);
      held[i] = held.back();
      held.pop_back();
    }
  }
  for (const Held& h : held) {
    if (!Intact(h) || !allocator->Free(h.data).ok()) failures->fetch_add(1);
  }
}

TEST(CachingAllocatorStressTest, ThreadsShareOneAllocator) {
  SystemHostAllocator system;
  CachingAllocator cache(&system);
  std::atomic<int> failures{0};
  constexpr int kSteps = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(Churn, &cache, t, kSteps, &failures);
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  const AllocatorStats s = cache.stats();
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.num_allocs, s.num_frees);
  EXPECT_GT(s.num_cache_hits, s.num_system_allocs) << "the cache should serve most requests";
  for (const SegmentInfo& segment : cache.Snapshot()) {
    EXPECT_EQ(segment.blocks.size(), 1u) << "every segment merges back to one free block";
  }
  ASSERT_TRUE(cache.EmptyCache().ok());
  EXPECT_EQ(system.stats().bytes_in_use, 0u);
}

// Pointers allocated on one thread and freed on another, as when a tensor outlives the
// thread that made it.
TEST(CachingAllocatorStressTest, CrossThreadFrees) {
  CachingAllocator& cache = HostCachingAllocator();
  const uint64_t in_use_before = cache.stats().bytes_in_use;
  std::mutex mu;
  std::deque<Held> queue;
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  constexpr int kPerProducer = 5000;

  auto produce = [&](int thread) {
    std::mt19937 rng(77 + thread);
    for (int i = 0; i < kPerProducer; ++i) {
      const size_t bytes = RandomSize(rng);
      Result<void*> p = cache.Allocate(bytes);
      if (!p.ok()) {
        failures.fetch_add(1);
        continue;
      }
      Held h{static_cast<unsigned char*>(*p), bytes, static_cast<unsigned char>(i)};
      Stamp(h);
      std::lock_guard<std::mutex> lock(mu);
      queue.push_back(h);
    }
  };
  auto consume = [&] {
    while (true) {
      Held h{};
      bool got = false;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!queue.empty()) {
          h = queue.front();
          queue.pop_front();
          got = true;
        }
      }
      if (got) {
        if (!Intact(h) || !cache.Free(h.data).ok()) failures.fetch_add(1);
      } else if (done.load()) {
        std::lock_guard<std::mutex> lock(mu);
        if (queue.empty()) return;
      } else {
        std::this_thread::yield();
      }
    }
  };
  std::thread p0(produce, 0), p1(produce, 1), c0(consume), c1(consume);
  p0.join();
  p1.join();
  done.store(true);
  c0.join();
  c1.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(cache.stats().bytes_in_use, in_use_before);
}

}  // namespace
}  // namespace memory
}  // namespace tessera
