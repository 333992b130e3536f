// A checkpoint saved at 4 ranks and loaded at 3 and at 1 (reshard_test.sh runs this
// program three times on the same $CHECKPOINT_DIR): at 4 ranks SavedAtFourRanks writes
// tensors of several layouts (1-d and 2-d hierarchies, P, a sub-placement in reversed
// rank order); at any other size LoadedAtThisSize reads each into every layout of
// Layouts(size) and compares with the closed-form values.
#include <cstdlib>

#include "core/checkpoint/checkpoint.h"
#include "tests/checkpoint/checkpoint_test_util.h"

namespace tessera::checkpoint {
namespace {

using checkpoint_test::ExpectValue;
using checkpoint_test::Layout;
using checkpoint_test::Layouts;
using checkpoint_test::MakeTensor;
using checkpoint_test::N;
using checkpoint_test::P;
using checkpoint_test::WorldSize;

struct Saved {
  std::string name;
  Shape shape;
  DType dtype;
  Layout layout;  // at 4 ranks
};

const Saved kSaved[] = {
    {"a", Shape{10, 6}, DType::kF32, {"cpu:0-3", "S(0)"}},
    {"b", Shape{7, 5}, DType::kF64, {"cpu:[[0,1],[2,3]]", "(S(0), S(1))"}},
    {"c", Shape{5, 9}, DType::kI64, {"cpu:[[0,1],[2,3]]", "(S(1), B)"}},
    {"d", Shape{6, 4}, DType::kF64, {"cpu:0-3", "P"}},
    {"e", Shape{9, 2}, DType::kI32, {"cpu:[3,1]", "S(0)"}},
    {"f", Shape{4, 4}, DType::kF32, {"cpu:[[0,1],[2,3]]", "(P, S(0))"}},
};

std::string Dir() {
  const char* dir = std::getenv("CHECKPOINT_DIR");
  return dir != nullptr ? dir : "";
}

TEST(Reshard, SavedAtFourRanks) {
  if (WorldSize() != 4) GTEST_SKIP() << "saving runs at 4 ranks";
  ASSERT_FALSE(Dir().empty()) << "set CHECKPOINT_DIR";
  std::vector<NamedTensor> tensors;
  for (size_t i = 0; i < std::size(kSaved); ++i) {
    const Saved& s = kSaved[i];
    tensors.push_back({s.name, MakeTensor(s.shape, s.dtype, static_cast<int>(i), s.layout.placement,
                                          s.layout.nd_sbp)});
  }
  Status saved = Save(Dir(), tensors);
  ASSERT_TRUE(saved.ok()) << saved.ToString();
}

TEST(Reshard, LoadedAtThisSize) {
  if (WorldSize() == 4) GTEST_SKIP() << "loading runs at other sizes";
  ASSERT_FALSE(Dir().empty()) << "set CHECKPOINT_DIR";
  Result<Index> index = List(Dir());
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  EXPECT_EQ(index->world_size, 4);
  for (size_t i = 0; i < std::size(kSaved); ++i) {
    const Saved& s = kSaved[i];
    EXPECT_EQ(index->Find(s.name)->placement, P(s.layout.placement).ToString());
    for (const Layout& to : Layouts(WorldSize())) {
      const std::string what = s.name + ": " + s.layout.Text() + " at 4 ranks -> " + to.Text();
      Result<tensor::Tensor> t =
          Load(Dir(), s.name, P(to.placement), N(to.nd_sbp), s.shape, s.dtype);
      ASSERT_TRUE(t.ok()) << what << ": " << t.status().ToString();
      EXPECT_EQ((*t)->nd_sbp(), N(to.nd_sbp)) << what;
      ExpectValue(*t, s.shape, s.dtype, static_cast<int>(i), what);
    }
  }
}

}  // namespace
}  // namespace tessera::checkpoint
