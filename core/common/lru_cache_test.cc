#include "core/common/lru_cache.h"

#include <gtest/gtest.h>

#include <list>
#include <map>
#include <random>
#include <string>

namespace tessera {
namespace {

// Keys are strings; a probe is a borrowed std::string, as callers probe with views.
struct Key {
  explicit Key(const std::string& s) : text(s) {}
  bool Matches(const std::string& probe) const { return text == probe; }
  std::string text;
};

using Cache = LruCache<Key, int>;

size_t Hash(const std::string& s) { return std::hash<std::string>()(s); }

TEST(LruCacheTest, FindAfterPutCountsHitsAndMisses) {
  Cache cache(4);
  EXPECT_EQ(cache.Find(Hash("a"), std::string("a")), nullptr);
  cache.Put(Hash("a"), std::string("a"), 1);
  int* a = cache.Find(Hash("a"), std::string("a"));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(*a, 1);
  const CacheStats s = cache.stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.size, 1u);
  EXPECT_EQ(s.capacity, 4u);
}

TEST(LruCacheTest, PutReplacesWithoutCounting) {
  Cache cache(2);
  cache.Put(Hash("a"), std::string("a"), 1);
  cache.Put(Hash("a"), std::string("a"), 2);
  EXPECT_EQ(cache.stats().size, 1u);
  EXPECT_EQ(cache.stats().hits + cache.stats().misses, 0u);
  EXPECT_EQ(*cache.Find(Hash("a"), std::string("a")), 2);
}

TEST(LruCacheTest, EvictsTheLeastRecentlyUsed) {
  Cache cache(2);
  cache.Put(Hash("a"), std::string("a"), 1);
  cache.Put(Hash("b"), std::string("b"), 2);
  ASSERT_NE(cache.Find(Hash("a"), std::string("a")), nullptr);  // b is now the oldest
  cache.Put(Hash("c"), std::string("c"), 3);
  EXPECT_EQ(cache.Find(Hash("b"), std::string("b")), nullptr);
  EXPECT_NE(cache.Find(Hash("a"), std::string("a")), nullptr);
  EXPECT_NE(cache.Find(Hash("c"), std::string("c")), nullptr);
  EXPECT_EQ(cache.stats().evictions, 1u);
  EXPECT_EQ(cache.stats().size, 2u);
}

TEST(LruCacheTest, CollidingHashesStayApart) {
  Cache cache(8);
  for (int i = 0; i < 8; ++i) cache.Put(7, std::to_string(i), i);  // one hash for all
  for (int i = 0; i < 8; ++i) {
    int* v = cache.Find(7, std::to_string(i));
    ASSERT_NE(v, nullptr) << i;
    EXPECT_EQ(*v, i);
  }
}

TEST(LruCacheTest, ClearAndSetCapacity) {
  Cache cache(3);
  for (int i = 0; i < 3; ++i) cache.Put(Hash(std::to_string(i)), std::to_string(i), i);
  cache.Find(Hash("0"), std::string("0"));
  cache.SetCapacity(1);
  EXPECT_EQ(cache.stats().size, 0u);
  EXPECT_EQ(cache.stats().hits, 1u);  // counters kept
  EXPECT_EQ(cache.stats().capacity, 1u);
  cache.Put(Hash("x"), std::string("x"), 9);
  cache.Put(Hash("y"), std::string("y"), 9);
  EXPECT_EQ(cache.stats().size, 1u);
  cache.Clear();
  EXPECT_EQ(cache.stats().size, 0u);
  EXPECT_EQ(cache.stats().hits, 0u);
  EXPECT_EQ(cache.stats().evictions, 0u);
}

TEST(LruCacheTest, CapacityIsClamped) {
  EXPECT_EQ(Cache(0).stats().capacity, 1u);
  // A huge capacity is clamped and reserves nothing up front.
  Cache huge(SIZE_MAX);
  EXPECT_EQ(huge.stats().capacity, Cache::kMaxCapacity);
  huge.Put(Hash("a"), std::string("a"), 1);
  EXPECT_EQ(*huge.Find(Hash("a"), std::string("a")), 1);
}

// Against a plain list-based LRU model under a random mix of finds and puts.
TEST(LruCacheTest, MatchesAReferenceModel) {
  constexpr size_t kCapacity = 37;
  Cache cache(kCapacity);
  std::list<std::pair<std::string, int>> model;  // most recent first
  std::mt19937 rng(5);
  uint64_t hits = 0, misses = 0, evictions = 0;
  for (int step = 0; step < 20000; ++step) {
    const std::string key = std::to_string(rng() % 100);
    auto it = model.begin();
    while (it != model.end() && it->first != key) ++it;
    if (rng() % 2 == 0) {
      int* got = cache.Find(Hash(key), key);
      if (it == model.end()) {
        ++misses;
        ASSERT_EQ(got, nullptr) << key;
      } else {
        ++hits;
        ASSERT_NE(got, nullptr) << key;
        ASSERT_EQ(*got, it->second);
        model.splice(model.begin(), model, it);
      }
    } else {
      const int value = static_cast<int>(rng() % 1000);
      cache.Put(Hash(key), key, value);
      if (it != model.end()) model.erase(it);
      model.emplace_front(key, value);
      if (model.size() > kCapacity) {
        model.pop_back();
        ++evictions;
      }
    }
  }
  const CacheStats s = cache.stats();
  EXPECT_EQ(s.hits, hits);
  EXPECT_EQ(s.misses, misses);
  EXPECT_EQ(s.evictions, evictions);
  EXPECT_EQ(s.size, model.size());
}

}  // namespace
}  // namespace tessera
