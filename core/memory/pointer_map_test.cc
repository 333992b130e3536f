#include "core/memory/pointer_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

namespace tessera {
namespace memory {
namespace {

const void* Key(uintptr_t address) { return reinterpret_cast<const void*>(address); }

TEST(PointerMapTest, InsertFindErase) {
  PointerMap<int> map;
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.Find(Key(0x1000)), nullptr);
  EXPECT_TRUE(map.Insert(Key(0x1000), 7));
  EXPECT_TRUE(map.Insert(Key(0x2000), 8));
  ASSERT_NE(map.Find(Key(0x1000)), nullptr);
  EXPECT_EQ(*map.Find(Key(0x1000)), 7);
  EXPECT_EQ(*map.Find(Key(0x2000)), 8);
  EXPECT_EQ(map.size(), 2u);

  int out = 0;
  EXPECT_TRUE(map.Erase(Key(0x1000), &out));
  EXPECT_EQ(out, 7);
  EXPECT_EQ(map.Find(Key(0x1000)), nullptr);
  EXPECT_EQ(map.size(), 1u);
  EXPECT_TRUE(map.Erase(Key(0x2000)));
  EXPECT_EQ(map.size(), 0u);
}

TEST(PointerMapTest, RejectsNullDuplicateAndMissingKeys) {
  PointerMap<int> map;
  EXPECT_FALSE(map.Insert(nullptr, 1));
  EXPECT_EQ(map.Find(nullptr), nullptr);
  EXPECT_FALSE(map.Erase(nullptr));
  EXPECT_TRUE(map.Insert(Key(0x40), 1));
  EXPECT_FALSE(map.Insert(Key(0x40), 2));
  EXPECT_EQ(*map.Find(Key(0x40)), 1) << "a rejected duplicate must not overwrite";
  EXPECT_FALSE(map.Erase(Key(0x80)));
  EXPECT_EQ(map.size(), 1u);
}

TEST(PointerMapTest, GrowsAndKeepsEveryEntry) {
  PointerMap<uintptr_t> map;
  const size_t initial = map.capacity();
  const uintptr_t n = 10 * initial;
  for (uintptr_t i = 1; i <= n; ++i) ASSERT_TRUE(map.Insert(Key(i * 512), i));
  EXPECT_GT(map.capacity(), initial);
  EXPECT_LE(2 * map.size(), map.capacity()) << "load factor above 1/2";
  for (uintptr_t i = 1; i <= n; ++i) {
    const uintptr_t* v = map.Find(Key(i * 512));
    ASSERT_NE(v, nullptr) << i;
    EXPECT_EQ(*v, i);
  }
  uintptr_t visited = 0, sum = 0;
  map.ForEach([&](const void* key, uintptr_t value) {
    ++visited;
    sum += value;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(key), value * 512);
  });
  EXPECT_EQ(visited, n);
  EXPECT_EQ(sum, n * (n + 1) / 2);
}

// Random churn against std::unordered_map: backward-shift deletion must keep every
// remaining key reachable. Keys are 512-aligned and clustered, like allocator pointers.
TEST(PointerMapTest, RandomChurnMatchesUnorderedMap) {
  PointerMap<uint64_t> map;
  std::unordered_map<const void*, uint64_t> oracle;
  std::mt19937_64 rng(12345);
  for (int step = 0; step < 200000; ++step) {
    const void* key = Key((1 + rng() % 3000) * 512);
    const uint64_t value = rng();
    switch (rng() % 3) {
      case 0: {
        const bool inserted = map.Insert(key, value);
        EXPECT_EQ(inserted, oracle.emplace(key, value).second);
        break;
      }
      case 1: {
        uint64_t out = 0;
        const bool erased = map.Erase(key, &out);
        auto it = oracle.find(key);
        ASSERT_EQ(erased, it != oracle.end()) << "step " << step;
        if (erased) {
          EXPECT_EQ(out, it->second);
          oracle.erase(it);
        }
        break;
      }
      default: {
        const uint64_t* found = map.Find(key);
        auto it = oracle.find(key);
        ASSERT_EQ(found != nullptr, it != oracle.end()) << "step " << step;
        if (found != nullptr) {
          EXPECT_EQ(*found, it->second);
        }
      }
    }
    ASSERT_EQ(map.size(), oracle.size());
  }
  for (const auto& [key, value] : oracle) {
    const uint64_t* found = map.Find(key);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(*found, value);
  }
}

TEST(PointerMapTest, ChurnAtSteadySizeDoesNotGrow) {
  PointerMap<int> map;
  for (uintptr_t i = 1; i <= 20; ++i) ASSERT_TRUE(map.Insert(Key(i * 4096), 0));
  const size_t capacity = map.capacity();
  for (uintptr_t round = 0; round < 10000; ++round) {
    const void* key = Key((21 + round) * 4096);
    ASSERT_TRUE(map.Insert(key, 1));
    ASSERT_TRUE(map.Erase(key));
  }
  EXPECT_EQ(map.capacity(), capacity);
}

}  // namespace
}  // namespace memory
}  // namespace tessera
