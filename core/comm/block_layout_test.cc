#include "core/comm/block_layout.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "core/comm/communicator.h"
#include "core/common/shape.h"
#include "tests/comm/comm_test_util.h"

namespace tessera::comm {
namespace {

// The same sequence as the layout describes it.
std::vector<int64_t> LayoutIndices(const BlockLayout& layout) {
  std::vector<int64_t> out;
  if (layout.empty()) return out;
  int64_t at[Shape::kMaxDims] = {};
  for (;;) {
    int64_t start = layout.offset;
    for (int l = 0; l < layout.levels; ++l) start += at[l] * layout.stride[l];
    for (int64_t k = 0; k < layout.run; ++k) out.push_back(start + k);
    int l = 0;
    while (l < layout.levels && ++at[l] == layout.count[l]) at[l++] = 0;
    if (l >= layout.levels) return out;
  }
}

BlockView Box(const Shape& tensor, std::vector<int64_t> begin, const Shape& box) {
  return BlockView::Box(tensor, begin.data(), box);
}

void ExpectMatches(const BlockView& block) {
  const BlockLayout layout = BlockLayout::Of(block);
  const std::vector<int64_t> want = BoxIndices(block);
  EXPECT_EQ(LayoutIndices(layout), want)
      << block.box.ToString() << " in " << block.tensor.ToString();
  EXPECT_EQ(layout.num_elements(), block.num_elements());
  // Contiguous exactly when the elements are consecutive in memory.
  bool consecutive = true;
  for (size_t k = 1; k < want.size(); ++k) consecutive = consecutive && want[k] == want[k - 1] + 1;
  EXPECT_EQ(layout.contiguous(), consecutive) << block.box.ToString();
  // The promises strided copies rely on.
  for (int l = 0; l < layout.levels; ++l) {
    EXPECT_GT(layout.count[l], 1);
    const int64_t inner_extent = l == 0 ? layout.run : layout.count[l - 1] * layout.stride[l - 1];
    EXPECT_GE(layout.stride[l], inner_extent) << "level " << l;
    if (l > 0) {
      EXPECT_EQ(layout.stride[l] % layout.stride[l - 1], 0) << "level " << l;
    }
  }
}

TEST(BlockLayoutTest, ContiguousBoxesHaveNoLevels) {
  // Rows 1..2 of a [5,3,4] tensor: 24 elements from 12 on.
  BlockLayout rows = BlockLayout::Of(Box(Shape{5, 3, 4}, {1, 0, 0}, Shape{2, 3, 4}));
  EXPECT_EQ(rows.offset, 12);
  EXPECT_EQ(rows.run, 24);
  EXPECT_EQ(rows.levels, 0);
  // Dims of extent 1 around a partial last dim: still one run.
  BlockLayout row = BlockLayout::Of(Box(Shape{5, 3, 4}, {2, 1, 1}, Shape{1, 1, 3}));
  EXPECT_EQ(row.offset, 2 * 12 + 1 * 4 + 1);
  EXPECT_EQ(row.run, 3);
  EXPECT_EQ(row.levels, 0);
  BlockLayout run = BlockLayout::Of(BlockView::Run(7, 5));
  EXPECT_EQ(run.offset, 7);
  EXPECT_EQ(run.run, 5);
  EXPECT_TRUE(run.contiguous());
  BlockLayout scalar = BlockLayout::Of(BlockView::Box(Shape(), nullptr, Shape()));
  EXPECT_EQ(scalar.run, 1);
  EXPECT_EQ(scalar.offset, 0);
}

TEST(BlockLayoutTest, StridedBoxesAndMergedLevels) {
  // Columns 1..2 of every row of a [4,6,5] tensor: runs of 10, 30 apart.
  BlockLayout cols = BlockLayout::Of(Box(Shape{4, 6, 5}, {0, 1, 0}, Shape{4, 2, 5}));
  EXPECT_EQ(cols.offset, 5);
  EXPECT_EQ(cols.run, 10);
  ASSERT_EQ(cols.levels, 1);
  EXPECT_EQ(cols.count[0], 4);
  EXPECT_EQ(cols.stride[0], 30);
  // Depth 1..3 of columns 0..1: runs of 3, 5 apart, then 30 apart.
  BlockLayout deep = BlockLayout::Of(Box(Shape{4, 6, 5}, {0, 0, 1}, Shape{4, 2, 3}));
  EXPECT_EQ(deep.offset, 1);
  EXPECT_EQ(deep.run, 3);
  ASSERT_EQ(deep.levels, 2);
  EXPECT_EQ(deep.count[0], 2);
  EXPECT_EQ(deep.stride[0], 5);
  EXPECT_EQ(deep.count[1], 4);
  EXPECT_EQ(deep.stride[1], 30);
  // Depth 1..3 of every column: the column level continues into the row level.
  BlockLayout merged = BlockLayout::Of(Box(Shape{4, 6, 5}, {0, 0, 1}, Shape{4, 6, 3}));
  EXPECT_EQ(merged.run, 3);
  ASSERT_EQ(merged.levels, 1);
  EXPECT_EQ(merged.count[0], 24);
  EXPECT_EQ(merged.stride[0], 5);
}

TEST(BlockLayoutTest, EmptyBoxes) {
  for (const BlockView& empty : {Box(Shape{4, 6, 5}, {0, 2, 0}, Shape{4, 0, 5}),
                                 Box(Shape{0, 3}, {0, 0}, Shape{0, 3}), BlockView::Run(3, 0)}) {
    const BlockLayout layout = BlockLayout::Of(empty);
    EXPECT_TRUE(layout.empty());
    EXPECT_EQ(layout.levels, 0);
    EXPECT_EQ(layout.num_elements(), 0);
  }
}

TEST(BlockLayoutTest, RandomBoxesMatchRowMajorOrder) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 500; ++trial) ExpectMatches(RandomBlock(rng, 4));
}

TEST(BlockLayoutTest, SameShapeAs) {
  const BlockLayout a = BlockLayout::Of(Box(Shape{4, 6, 5}, {0, 0, 1}, Shape{4, 2, 3}));
  // Same run and counts at other strides: pairs up level by level.
  const BlockLayout b = BlockLayout::Of(Box(Shape{4, 3, 7}, {0, 1, 2}, Shape{4, 2, 3}));
  EXPECT_TRUE(a.SameShapeAs(b));
  // Same element count, other shape.
  const BlockLayout c = BlockLayout::Of(Box(Shape{4, 6, 5}, {0, 0, 1}, Shape{2, 4, 3}));
  EXPECT_FALSE(a.SameShapeAs(c));
  EXPECT_FALSE(a.SameShapeAs(BlockLayout::Of(BlockView::Run(0, 24))));
}

}  // namespace
}  // namespace tessera::comm
