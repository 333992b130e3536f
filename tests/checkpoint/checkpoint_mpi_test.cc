// Checkpoints under mpirun at 1 and 3 ranks (core/checkpoint/checkpoint.h): round trips
// over layouts (S on each axis, B, P, uneven splits, a 2-d hierarchy, every dtype, a
// scalar and an empty tensor), loads into layouts other than the saved one, and every
// damage a loader must report on every rank: a corrupt, truncated or missing shard, a
// missing or malformed index, an unknown name, a dtype or shape other than asked for.
// Atomicity: a save that fails while writing (a file-size limit on one rank) leaves the
// previous checkpoint loadable and no temporary directory behind.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>

#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/file_io.h"
#include "tests/checkpoint/checkpoint_test_util.h"

namespace tessera::checkpoint {
namespace {

using checkpoint_test::Barrier;
using checkpoint_test::ExpectValue;
using checkpoint_test::FirstRanks;
using checkpoint_test::Layout;
using checkpoint_test::Layouts;
using checkpoint_test::MakeTensor;
using checkpoint_test::N;
using checkpoint_test::P;
using checkpoint_test::Rank;
using checkpoint_test::SharedDir;
using checkpoint_test::WorldSize;

// Every saved layout loads into every layout: 7x5 splits unevenly over 3 ranks.
TEST(Checkpoint, RoundTripsBetweenEveryPairOfLayouts) {
  const std::string dir = SharedDir("pairs") + "/ck";
  const Shape shape{7, 5};
  const std::vector<Layout> layouts = Layouts(WorldSize());
  std::vector<NamedTensor> tensors;
  for (size_t i = 0; i < layouts.size(); ++i) {
    tensors.push_back(
        {"t" + std::to_string(i), MakeTensor(shape, DType::kF64, static_cast<int>(i),
                                             layouts[i].placement, layouts[i].nd_sbp)});
  }
  ASSERT_TRUE(Save(dir, tensors).ok());
  for (size_t i = 0; i < layouts.size(); ++i) {
    for (const Layout& to : layouts) {
      const std::string what = layouts[i].Text() + " -> " + to.Text();
      Result<tensor::Tensor> t = Load(dir, "t" + std::to_string(i), P(to.placement), N(to.nd_sbp));
      ASSERT_TRUE(t.ok()) << what << ": " << t.status().ToString();
      EXPECT_EQ((*t)->placement(), P(to.placement)) << what;
      EXPECT_EQ((*t)->nd_sbp(), N(to.nd_sbp)) << what;
      ExpectValue(*t, shape, DType::kF64, static_cast<int>(i), what);
    }
  }
}

TEST(Checkpoint, EveryDTypeScalarsAndEmptyTensors) {
  const std::string dir = SharedDir("dtypes") + "/ck";
  const std::string all = FirstRanks(WorldSize());
  struct Case {
    std::string name;
    Shape shape;
    DType dtype;
    std::string nd_sbp;
  };
  const Case cases[] = {
      {"f32", Shape{4, 3, 2}, DType::kF32, "S(2)"}, {"i32", Shape{5}, DType::kI32, "S(0)"},
      {"i64", Shape{2, 6}, DType::kI64, "P"},       {"scalar", Shape{}, DType::kF64, "B"},
      {"empty", Shape{0, 3}, DType::kF32, "S(0)"},  {"tiny", Shape{2}, DType::kI64, "S(0)"},
  };
  std::vector<NamedTensor> tensors;
  for (size_t i = 0; i < std::size(cases); ++i) {
    tensors.push_back({cases[i].name, MakeTensor(cases[i].shape, cases[i].dtype,
                                                 static_cast<int>(i), all, cases[i].nd_sbp)});
  }
  ASSERT_TRUE(Save(dir, tensors).ok());
  for (size_t i = 0; i < std::size(cases); ++i) {
    for (const char* to : {"B", "S(0)"}) {
      if (cases[i].shape.ndim() == 0 && std::string(to) != "B") continue;
      Result<tensor::Tensor> t =
          Load(dir, cases[i].name, P(all), N(to), cases[i].shape, cases[i].dtype);
      ASSERT_TRUE(t.ok()) << cases[i].name << ": " << t.status().ToString();
      ExpectValue(*t, cases[i].shape, cases[i].dtype, static_cast<int>(i), cases[i].name);
    }
  }
}

// The index records what was saved, and each distinct slice is one shard.
TEST(Checkpoint, ListShowsTheIndex) {
  const int w = WorldSize();
  const std::string dir = SharedDir("list") + "/ck";
  const std::string all = FirstRanks(w);
  ASSERT_TRUE(Save(dir, {{"b", MakeTensor(Shape{4}, DType::kF32, 1, all, "B")},
                         {"s", MakeTensor(Shape{2, 3}, DType::kI32, 2, all, "S(0)")},
                         {"p", MakeTensor(Shape{3}, DType::kF64, 3, all, "P")}})
                  .ok());
  Result<Index> index = List(dir);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  ASSERT_EQ(index->tensors.size(), 3u);
  EXPECT_EQ(index->world_size, w);
  const TensorRecord& b = index->tensors[0];
  EXPECT_EQ(b.name, "b");
  EXPECT_EQ(b.placement, all);
  EXPECT_EQ(b.nd_sbp, "B");
  ASSERT_EQ(b.shards.size(), 1u);  // written once, by rank 0
  EXPECT_EQ(b.shards[0].file, "rank-00000.safetensors");
  const TensorRecord& s = index->tensors[1];
  EXPECT_EQ(s.dtype, DType::kI32);
  EXPECT_EQ(s.shape, (Shape{2, 3}));
  EXPECT_EQ(s.shards.size(), static_cast<size_t>(std::min(w, 2)));  // 2 rows over w ranks
  EXPECT_EQ(index->tensors[2].nd_sbp, "P");                         // as saved
  EXPECT_EQ(index->tensors[2].shards.size(), 1u);                   // its value, boxed to B
  // The shards are safetensors files: rank r wrote one exactly when it owns a shard.
  Barrier();
  for (int r = 0; r < w; ++r) {
    EXPECT_EQ(PathExists(dir + "/" + ShardFileName(r)), r < 2) << r;
  }
}

// On rank 0, then all wait: flips one byte of the first tensor's data in the
// safetensors file `path` (right after its header), or cuts `cut` bytes off its end.
void DamageFile(const std::string& path, long cut) {
  if (Rank() == 0) {
    if (cut > 0) {
      std::ifstream in(path, std::ios::binary | std::ios::ate);
      const long size = static_cast<long>(in.tellg());
      ASSERT_EQ(::truncate(path.c_str(), size - cut), 0);
    } else {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      ASSERT_TRUE(f.good()) << path;
      unsigned char length[8];
      f.read(reinterpret_cast<char*>(length), 8);
      uint64_t n = 0;
      for (int i = 7; i >= 0; --i) n = (n << 8) | length[i];
      f.seekg(static_cast<std::streamoff>(8 + n + 1));
      char c;
      f.get(c);
      f.seekp(static_cast<std::streamoff>(8 + n + 1));
      f.put(static_cast<char>(c ^ 0x5A));
    }
  }
  Barrier();
}

// Every rank returns `code` with a message containing each of `parts`.
void ExpectLoadError(const std::string& dir, const std::string& name, StatusCode code,
                     const std::vector<std::string>& parts) {
  const std::string all = FirstRanks(WorldSize());
  Result<tensor::Tensor> t = Load(dir, name, P(all), N("S(0)"));
  ASSERT_FALSE(t.ok()) << name;
  EXPECT_EQ(t.status().code(), code) << t.status().ToString();
  for (const std::string& part : parts) {
    EXPECT_NE(t.status().message().find(part), std::string::npos)
        << "wanted \"" << part << "\" in: " << t.status().message();
  }
}

// The last rank's file holds the last rows of "w"; only that rank (and at 1 rank, rank
// 0) reads it when loading as S(0), so the others learn of the damage by agreement.
TEST(Checkpoint, DamagedShardsAreReportedOnEveryRankNamingTheFile) {
  const int w = WorldSize();
  const std::string all = FirstRanks(w);
  const std::string base = SharedDir("damage");
  const std::string last = ShardFileName(w - 1);
  auto save = [&](const std::string& dir) {
    ASSERT_TRUE(Save(dir, {{"w", MakeTensor(Shape{6, 4}, DType::kF32, 5, all, "S(0)")},
                           {"v", MakeTensor(Shape{3}, DType::kF32, 6, all, "B")}})
                    .ok());
  };
  save(base + "/corrupt");
  DamageFile(base + "/corrupt/" + last, 0);
  ExpectLoadError(base + "/corrupt", "w", StatusCode::kDataLoss,
                  {"corrupt shard of tensor \"w\" in " + base + "/corrupt/" + last, "CRC32C"});

  save(base + "/truncated");
  DamageFile(base + "/truncated/" + last, 3);
  ExpectLoadError(base + "/truncated", "w", StatusCode::kDataLoss,
                  {"truncated safetensors file " + base + "/truncated/" + last});

  save(base + "/missing");
  if (Rank() == 0) {
    ASSERT_EQ(::unlink((base + "/missing/" + last).c_str()), 0);
  }
  Barrier();
  ExpectLoadError(base + "/missing", "w", StatusCode::kNotFound,
                  {"shard of tensor \"w\": missing file " + base + "/missing/" + last});
  if (w > 1) {  // "v" lives in rank 0's file only: still loadable.
    Result<tensor::Tensor> v = Load(base + "/missing", "v", P(all), N("B"));
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    ExpectValue(*v, Shape{3}, DType::kF32, 6, "v");
  }

  save(base + "/header");
  if (Rank() == 0) {  // the header JSON's first byte '{' becomes '!'
    std::fstream f(base + "/header/" + ShardFileName(0), std::ios::in | std::ios::out);
    f.seekp(8);
    f.put('!');
  }
  Barrier();
  ExpectLoadError(base + "/header", "w", StatusCode::kDataLoss,
                  {"malformed safetensors header in " + base + "/header/" + ShardFileName(0)});
}

TEST(Checkpoint, IndexAndRequestErrors) {
  const std::string all = FirstRanks(WorldSize());
  const std::string base = SharedDir("index");
  ExpectLoadError(base + "/none", "w", StatusCode::kNotFound,
                  {"missing checkpoint index " + base + "/none/index.json"});
  const std::string dir = base + "/ck";
  ASSERT_TRUE(Save(dir, {{"w", MakeTensor(Shape{6, 4}, DType::kF32, 5, all, "S(0)")}}).ok());
  ExpectLoadError(dir, "nope", StatusCode::kNotFound,
                  {"checkpoint " + dir + " has no tensor \"nope\" (it has \"w\")"});
  Result<tensor::Tensor> t = Load(dir, "w", P(all), N("S(0)"), Shape{6, 5});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("is f32[6,4], not the shape [6,5] asked for"),
            std::string::npos)
      << t.status().message();
  t = Load(dir, "w", P(all), N("S(0)"), std::nullopt, DType::kF64);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("not the dtype f64 asked for"), std::string::npos);
  t = Load(dir, "w", P(all), N("S(2)"));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  // A damaged index: '{' at its start becomes '['.
  if (Rank() == 0) {
    std::fstream f(dir + "/index.json", std::ios::in | std::ios::out);
    f.put('[');
  }
  Barrier();
  ExpectLoadError(dir, "w", StatusCode::kDataLoss,
                  {"checkpoint index " + dir + "/index.json: malformed JSON at byte"});
  Result<Index> listed = List(dir);
  EXPECT_EQ(listed.status().code(), StatusCode::kDataLoss);
}

TEST(Checkpoint, SaveArgumentErrors) {
  const std::string all = FirstRanks(WorldSize());
  const std::string base = SharedDir("args");
  tensor::Tensor x = MakeTensor(Shape{2}, DType::kF32, 1, all, "B");
  EXPECT_EQ(Save("", {{"x", x}}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Save(base + "/a", {{"x", x}, {"x", x}}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Save(base + "/a", {{"", x}}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Save(base + "/a", {{"__metadata__", x}}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Save(base + "/no/such/parent/ck", {{"x", x}}).code(), StatusCode::kNotFound);
  // A directory that is not a checkpoint is never replaced.
  if (Rank() == 0) {
    ASSERT_TRUE(MakeDirectory(base + "/mine").ok());
    std::ofstream(base + "/mine/precious.txt") << "keep me";
  }
  Barrier();
  Status s = Save(base + "/mine", {{"x", x}});
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_TRUE(PathExists(base + "/mine/precious.txt"));
  // Nothing is left behind by the failures.
  Barrier();
  Result<std::vector<std::string>> left = ListDirectory(base);
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(left->size(), 1u);  // "mine"
}

// Check mode: ranks that ask for different tensors (or save under different names) all
// get FAILED_PRECONDITION; with one rank, or the same calls everywhere, nothing changes.
TEST(Checkpoint, CheckModeCatchesDivergentCalls) {
  const int w = WorldSize();
  const std::string all = FirstRanks(w);
  const std::string dir = SharedDir("check_mode") + "/ck";
  comm::SetCheckMode(true);
  tensor::Tensor x = MakeTensor(Shape{4, 2}, DType::kF32, 1, all, "S(0)");
  EXPECT_TRUE(Save(dir, {{"a", x}, {"b", x}}).ok());
  Result<tensor::Tensor> same = Load(dir, "a", P(all), N("B"));
  EXPECT_TRUE(same.ok()) << same.status().ToString();
  const bool odd = Rank() == w - 1 && w > 1;
  Result<tensor::Tensor> diverged = Load(dir, odd ? "b" : "a", P(all), N("B"));
  Status saved = Save(dir, {{odd ? "c" : "a", x}});
  comm::SetCheckMode(false);
  if (w == 1) {
    EXPECT_TRUE(diverged.ok()) << diverged.status().ToString();
    EXPECT_TRUE(saved.ok()) << saved.ToString();
    return;
  }
  EXPECT_EQ(diverged.status().code(), StatusCode::kFailedPrecondition)
      << diverged.status().ToString();
  EXPECT_NE(diverged.status().message().find("checkpoint_load"), std::string::npos)
      << diverged.status().message();
  EXPECT_EQ(saved.code(), StatusCode::kFailedPrecondition) << saved.ToString();
  // The divergent save wrote nothing: the checkpoint still holds "a" and "b".
  Result<Index> index = List(dir);
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(index->tensors.size(), 2u);
}

// Saving over a checkpoint replaces it; a save that fails midway (one rank's file
// exceeds RLIMIT_FSIZE: write() fails with EFBIG) leaves the previous one intact.
TEST(Checkpoint, SaveIsAtomic) {
  const int w = WorldSize();
  const std::string all = FirstRanks(w);
  const std::string base = SharedDir("atomic");
  const std::string dir = base + "/ck";
  const Shape shape{64, 8};
  ASSERT_TRUE(Save(dir, {{"w", MakeTensor(shape, DType::kF64, 1, all, "S(0)")}}).ok());
  ASSERT_TRUE(Save(dir, {{"w", MakeTensor(shape, DType::kF64, 2, all, "S(0)")}}).ok());
  ExpectValue(*Load(dir, "w", P(all), N("B")), shape, DType::kF64, 2, "replaced");

  struct rlimit saved;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  if (Rank() == w - 1) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = saved;
    small.rlim_cur = 256;  // less than its shard of w
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  }
  Status failed = Save(dir, {{"w", MakeTensor(shape, DType::kF64, 3, all, "S(0)")}});
  if (Rank() == w - 1) {
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &saved), 0);
  }
  EXPECT_EQ(failed.code(), StatusCode::kDataLoss) << failed.ToString();
  EXPECT_NE(failed.message().find("cannot write " + base + "/ck.tmp-"), std::string::npos)
      << failed.message();
  EXPECT_NE(failed.message().find(ShardFileName(w - 1)), std::string::npos) << failed.message();
  ExpectValue(*Load(dir, "w", P(all), N("S(1)")), shape, DType::kF64, 2, "after a failed save");
  Barrier();
  Result<std::vector<std::string>> left = ListDirectory(base);
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(*left, std::vector<std::string>{"ck"});  // no .tmp- or .old- directory
}

}  // namespace
}  // namespace tessera::checkpoint
