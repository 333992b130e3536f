#include "core/checkpoint/index.h"

#include <gtest/gtest.h>

#include <string>

namespace tessera::checkpoint {
namespace {

Index TwoTensors() {
  Index index;
  index.world_size = 2;
  TensorRecord w;
  w.name = "layer.w";
  w.shape = Shape{3, 2};
  w.dtype = DType::kF32;
  w.placement = "cpu:[0,1]";
  w.nd_sbp = "S(0)";
  w.shards.push_back(ShardRecord{"rank-00000.safetensors", {{0, 2}, {0, 2}}, 16, 7});
  w.shards.push_back(ShardRecord{"rank-00001.safetensors", {{2, 3}, {0, 2}}, 8, 4294967295u});
  index.tensors.push_back(w);
  TensorRecord step;
  step.name = "step \"quoted\"";
  step.shape = Shape{};
  step.dtype = DType::kI64;
  step.placement = "cpu:[0,1]";
  step.nd_sbp = "B";
  step.shards.push_back(ShardRecord{"rank-00000.safetensors", {}, 8, 0});
  index.tensors.push_back(step);
  return index;
}

TEST(Index, RoundTripsThroughJson) {
  const Index index = TwoTensors();
  Result<Index> back = ParseIndex(IndexToJson(index), "x/index.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << IndexToJson(index);
  ASSERT_EQ(back->tensors.size(), 2u);
  EXPECT_EQ(back->world_size, 2);
  const TensorRecord* w = back->Find("layer.w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->shape, (Shape{3, 2}));
  EXPECT_EQ(w->placement, "cpu:[0,1]");
  EXPECT_EQ(w->nd_sbp, "S(0)");
  ASSERT_EQ(w->shards.size(), 2u);
  EXPECT_EQ(w->shards[1].file, "rank-00001.safetensors");
  EXPECT_EQ(w->shards[1].slice[0].begin, 2);
  EXPECT_EQ(w->shards[1].crc32c, 4294967295u);
  EXPECT_EQ(w->shards[1].SliceShape(), (Shape{1, 2}));
  EXPECT_EQ(back->Find("step \"quoted\"")->dtype, DType::kI64);
  EXPECT_EQ(back->Find("nope"), nullptr);
  EXPECT_EQ(IndexToJson(*back), IndexToJson(index));
  EXPECT_TRUE(ParseIndex(IndexToJson(Index{}), "i").ok());
}

// Each damage is one DATA_LOSS naming the file and what is wrong.
TEST(Index, DamagedIndexIsDataLossNamingTheFile) {
  const std::string good = IndexToJson(TwoTensors());
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  struct Case {
    std::string text;
    const char* message;
  };
  const Case cases[] = {
      {good.substr(0, good.size() / 2), "malformed JSON at byte"},
      {replaced("\"version\": 1", "\"version\": 2"), "version 2 is newer"},
      {replaced("tessera-checkpoint", "other"), "format is \"other\""},
      {replaced("\"dtype\": \"F32\"", "\"dtype\": \"U8\""), "unsupported safetensors dtype"},
      {replaced("[[2, 3], [0, 2]], \"bytes\": 8", "[[1, 3], [0, 2]], \"bytes\": 16"),
       "shards 0 and 1 overlap"},
      {replaced("[[2, 3], [0, 2]], \"bytes\": 8", "[[2, 2], [0, 2]], \"bytes\": 0"),
       "shard 1 is empty"},
      {replaced("[[0, 2], [0, 2]], \"bytes\": 16", "[[0, 1], [0, 2]], \"bytes\": 8"),
       "shards hold 4 of its 6 elements"},
      {replaced("[[2, 3], [0, 2]]", "[[2, 4], [0, 2]]"), "stop is 4, outside [2, 3]"},
      {replaced("\"bytes\": 16", "\"bytes\": 15"), "has 15 bytes, its slice 16"},
      {replaced("\"crc32c\": 7", "\"crc32c\": 4294967296"), "crc32c is 4294967296"},
      {replaced("\"rank-00001.safetensors\"", "\"../evil\""), "not a plain file name"},
      {replaced("step \\\"quoted\\\"", "layer.w"), "tensor \"layer.w\" appears twice"},
      {replaced("\"world_size\": 2", "\"world_size\": \"2\""), "must be a number"},
      {replaced("\"name\": \"layer.w\", ", ""), "tensor 0 lacks \"name\""},
  };
  for (const Case& c : cases) {
    Result<Index> index = ParseIndex(c.text, "ck/index.json");
    ASSERT_FALSE(index.ok()) << c.message;
    EXPECT_EQ(index.status().code(), StatusCode::kDataLoss);
    EXPECT_EQ(index.status().message().rfind("checkpoint index ck/index.json: ", 0), 0u)
        << index.status().message();
    EXPECT_NE(index.status().message().find(c.message), std::string::npos)
        << index.status().message();
  }
}

// Tiling is checked pair by pair, so the shard count is bounded first: before any shard
// is even looked at (these are zeros, not shard objects).
TEST(Index, TooManyShardsAreRefusedBeforeTheTilingCheck) {
  std::string shards = "0";
  for (int64_t i = 1; i <= kMaxShardsPerTensor; ++i) shards += ",0";
  const std::string text =
      "{\"format\": \"tessera-checkpoint\", \"version\": 1, \"world_size\": 1, \"tensors\": "
      "[{\"name\": \"w\", \"dtype\": \"F32\", \"shape\": [4], \"placement\": \"cpu:[0]\", "
      "\"nd_sbp\": \"S(0)\", \"shards\": [" +
      shards + "]}]}";
  Result<Index> index = ParseIndex(text, "i");
  ASSERT_FALSE(index.ok());
  EXPECT_EQ(index.status().message(),
            "checkpoint index i: tensor \"w\" has 16385 shards, more "
            "than the 16384 a checkpoint may hold");
  EXPECT_TRUE(CheckShardCount("w", kMaxShardsPerTensor).ok());
}

TEST(Index, MissingIndexIsNotFound) {
  Result<Index> index = ReadIndex("/nonexistent-checkpoint-dir");
  ASSERT_FALSE(index.ok());
  EXPECT_EQ(index.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(index.status().message(),
            "missing checkpoint index /nonexistent-checkpoint-dir/index.json");
}

TEST(Index, TensorNamesAndFileNames) {
  EXPECT_TRUE(CheckTensorName("model.layers.0.weight").ok());
  EXPECT_FALSE(CheckTensorName("").ok());
  EXPECT_FALSE(CheckTensorName("__metadata__").ok());
  EXPECT_FALSE(CheckTensorName("a\nb").ok());
  EXPECT_FALSE(CheckTensorName(std::string(1025, 'a')).ok());
  EXPECT_EQ(ShardFileName(3), "rank-00003.safetensors");
}

}  // namespace
}  // namespace tessera::checkpoint
