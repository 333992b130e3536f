#include "core/infer/infer_cache.h"

#include <gtest/gtest.h>

#include <thread>

#include "core/infer/infer_test_util.h"

namespace tessera {
namespace infer {
namespace {

std::vector<TensorMeta> Pair(const char* x, const char* y) {
  return {Meta({4, 6}, "cpu:[0,1]", x), Meta({4, 6}, "cpu:[0,1]", y)};
}

TEST(InferCacheTest, HitReturnsTheSameResult) {
  InferCache cache(8);
  auto in = Pair("S(0)", "S(1)");
  auto a = cache.GetOrInfer(Op("add"), in, {});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = cache.GetOrInfer(Op("add"), in, {});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->get(), b->get());
  EXPECT_EQ((*b)->outputs[0].nd_sbp, Nd("S(0)"));
  InferCache::Stats s = cache.stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.size, 1u);
}

TEST(InferCacheTest, EveryKeyPartMatters) {
  InferCache cache(64);
  auto in = Pair("S(0)", "S(1)");
  ASSERT_TRUE(cache.GetOrInfer(Op("add"), in, {}).ok());
  // A different op, nd-sbp, shape, dtype, placement, attribute or constraint each miss.
  ASSERT_TRUE(cache.GetOrInfer(Op("sub"), in, {}).ok());
  ASSERT_TRUE(cache.GetOrInfer(Op("add"), Pair("S(0)", "B"), {}).ok());
  ASSERT_TRUE(
      cache
          .GetOrInfer(Op("add"),
                      {Meta({4, 7}, "cpu:[0,1]", "S(0)"), Meta({4, 7}, "cpu:[0,1]", "S(1)")}, {})
          .ok());
  ASSERT_TRUE(cache
                  .GetOrInfer(Op("add"),
                              {Meta({4, 6}, "cpu:[0,1]", "S(0)", DType::kF64),
                               Meta({4, 6}, "cpu:[0,1]", "S(1)", DType::kF64)},
                              {})
                  .ok());
  ASSERT_TRUE(
      cache
          .GetOrInfer(Op("add"),
                      {Meta({4, 6}, "cpu:[1,0]", "S(0)"), Meta({4, 6}, "cpu:[1,0]", "S(1)")}, {})
          .ok());
  ASSERT_TRUE(cache.GetOrInfer(Op("add"), in, {}, {{true, 0, Nd("S(1)")}}).ok());
  auto x = std::vector<TensorMeta>{Meta({4, 6}, "cpu:[0,1]", "S(0)")};
  ASSERT_TRUE(cache.GetOrInfer(Op("reduce_sum"), x, {{"axes", op::AttrValue::Ints({0})}}).ok());
  ASSERT_TRUE(cache.GetOrInfer(Op("reduce_sum"), x, {{"axes", op::AttrValue::Ints({1})}}).ok());
  EXPECT_EQ(cache.stats().misses, 9u);
  EXPECT_EQ(cache.stats().hits, 0u);
  // Equal values in fresh objects hit: attribute order and placement identity do not
  // matter.
  op::AttrMap attrs;
  attrs.Set("keepdims", op::AttrValue::Bool(false)).Set("axes", op::AttrValue::Ints({1}));
  ASSERT_TRUE(cache
                  .GetOrInfer(Op("reduce_sum"), {Meta({4, 6}, "cpu:[0,1]", "S(0)")},
                              {{"axes", op::AttrValue::Ints({1})}})
                  .ok());
  ASSERT_TRUE(cache.GetOrInfer(Op("sub"), Pair("S(0)", "S(1)"), {}).ok());
  EXPECT_EQ(cache.stats().hits, 2u);
  // ...but a defaulted attribute spelled out is a different key (a separate entry
  // with the same result, never a wrong one).
  ASSERT_TRUE(cache.GetOrInfer(Op("reduce_sum"), x, attrs).ok());
  EXPECT_EQ(cache.stats().misses, 10u);
}

TEST(InferCacheTest, EvictsLeastRecentlyUsed) {
  InferCache cache(2);
  auto a = Pair("S(0)", "S(0)");
  auto b = Pair("S(1)", "S(1)");
  auto c = Pair("B", "B");
  auto get = [&](const std::vector<TensorMeta>& in) {
    ASSERT_TRUE(cache.GetOrInfer(Op("add"), in, {}).ok());
  };
  get(a);  // miss            [a]
  get(b);  // miss            [b a]
  get(a);  // hit             [a b]
  get(c);  // miss, evicts b  [c a]
  get(b);  // miss, evicts a  [b c]
  get(c);  // hit             [c b]
  InferCache::Stats s = cache.stats();
  EXPECT_EQ(s.hits, 2u);
  EXPECT_EQ(s.misses, 4u);
  EXPECT_EQ(s.evictions, 2u);
  EXPECT_EQ(s.size, 2u);
  EXPECT_EQ(s.capacity, 2u);
  get(a);  // miss: a was evicted
  EXPECT_EQ(cache.stats().misses, 5u);
  cache.Clear();
  EXPECT_EQ(cache.stats().size, 0u);
  EXPECT_EQ(cache.stats().hits, 0u);
}

TEST(InferCacheTest, ErrorsAreNotCached) {
  InferCache cache(4);
  auto bad = std::vector<TensorMeta>{Meta({4}, "cpu:[0,1]", "B"), Meta({4}, "cpu:[2,3]", "B")};
  EXPECT_FALSE(cache.GetOrInfer(Op("add"), bad, {}).ok());
  EXPECT_FALSE(cache.GetOrInfer(Op("add"), bad, {}).ok());
  EXPECT_EQ(cache.stats().misses, 2u);
  EXPECT_EQ(cache.stats().size, 0u);
}

TEST(InferCacheTest, ManyEntriesStayConsistent) {
  // Fill well past capacity with distinct shapes and check every answer.
  InferCache cache(16);
  for (int round = 0; round < 3; ++round) {
    for (int64_t d = 1; d <= 40; ++d) {
      auto in = std::vector<TensorMeta>{Meta({d, 3}, "cpu:[0,1]", "B")};
      auto r = cache.GetOrInfer(Op("relu"), in, {});
      ASSERT_TRUE(r.ok());
      EXPECT_EQ((*r)->outputs[0].shape, Shape({d, 3}));
    }
  }
  EXPECT_EQ(cache.stats().size, 16u);
  EXPECT_EQ(cache.stats().misses + cache.stats().hits, 120u);
  EXPECT_EQ(cache.stats().evictions, cache.stats().misses - 16);
}

TEST(InferCacheTest, EachThreadHasItsOwnCache) {
  auto in = Pair("S(0)", "B");
  ASSERT_TRUE(ThreadLocalInferCache().GetOrInfer(Op("add"), in, {}).ok());
  const InferCache::Stats before = ThreadLocalInferCache().stats();
  InferCache::Stats other;
  std::thread t([&] {
    ASSERT_TRUE(ThreadLocalInferCache().GetOrInfer(Op("add"), in, {}).ok());
    other = ThreadLocalInferCache().stats();
  });
  t.join();
  EXPECT_EQ(other.misses, 1u);  // the other thread started empty
  EXPECT_EQ(ThreadLocalInferCache().stats().misses, before.misses);
  EXPECT_NE(&ThreadLocalInferCache(), nullptr);
}

}  // namespace
}  // namespace infer
}  // namespace tessera
