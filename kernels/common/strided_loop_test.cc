// StridedLoop: axis merging and the visiting order, against a plain odometer.
#include "kernels/common/strided_loop.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernels/common/kernel_plans.h"

namespace tessera {
namespace kernels {
namespace {

// Every (offset0, offset1) pair in row-major order over `space`, expanded from runs.
std::vector<std::pair<int64_t, int64_t>> Visit(const Shape& space,
                                               const int64_t (&strides)[2][Shape::kMaxDims],
                                               int* runs = nullptr) {
  std::vector<std::pair<int64_t, int64_t>> v;
  int count = 0;
  StridedLoop<2>(space, strides).Run([&](const int64_t* off, int64_t n, const int64_t* st) {
    ++count;
    for (int64_t i = 0; i < n; ++i) v.push_back({off[0] + i * st[0], off[1] + i * st[1]});
  });
  if (runs) *runs = count;
  return v;
}

std::vector<std::pair<int64_t, int64_t>> Naive(const Shape& space,
                                               const int64_t (&strides)[2][Shape::kMaxDims]) {
  std::vector<std::pair<int64_t, int64_t>> v;
  for (int64_t e = 0; e < space.num_elements(); ++e) {
    int64_t rest = e, o0 = 0, o1 = 0;
    for (int a = space.ndim() - 1; a >= 0; --a) {
      const int64_t i = rest % space.dim(a);
      rest /= space.dim(a);
      o0 += i * strides[0][a];
      o1 += i * strides[1][a];
    }
    v.push_back({o0, o1});
  }
  return v;
}

TEST(StridedLoopTest, ContiguousOperandsMergeIntoOneRun) {
  const Shape space{2, 3, 4};
  int64_t strides[2][Shape::kMaxDims];
  ContiguousStrides(space, strides[0]);
  ContiguousStrides(space, strides[1]);
  int runs = 0;
  EXPECT_EQ(Visit(space, strides, &runs), Naive(space, strides));
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(StridedLoop<2>(space, strides).ndim(), 1);
}

TEST(StridedLoopTest, TransposedAndBroadcastStridesStaySeparate) {
  const Shape space{3, 4, 5};
  // Operand 0 is a [5,4,3] tensor read transposed; operand 1 broadcasts axis 1.
  const int64_t strides[2][Shape::kMaxDims] = {{1, 3, 12}, {5, 0, 1}};
  int runs = 0;
  EXPECT_EQ(Visit(space, strides, &runs), Naive(space, strides));
  EXPECT_EQ(runs, 12);
}

TEST(StridedLoopTest, SizeOneAxesVanishAndEmptySpacesRunNothing) {
  const int64_t strides[2][Shape::kMaxDims] = {{6, 99, 1, 0}, {6, 7, 1, 0}};
  EXPECT_EQ(Visit(Shape{2, 1, 6, 1}, strides), Naive(Shape{2, 1, 6, 1}, strides));
  EXPECT_EQ(StridedLoop<2>(Shape{2, 1, 6, 1}, strides).ndim(), 1);
  int runs = -1;
  EXPECT_TRUE(Visit(Shape{2, 0, 6, 1}, strides, &runs).empty());
  EXPECT_EQ(runs, 0);
}

TEST(StridedLoopTest, ScalarSpaceRunsOnce) {
  const int64_t strides[2][Shape::kMaxDims] = {};
  int runs = 0;
  auto v = Visit(Shape{}, strides, &runs);
  EXPECT_EQ(runs, 1);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0], std::make_pair(int64_t{0}, int64_t{0}));
}

}  // namespace
}  // namespace kernels
}  // namespace tessera
