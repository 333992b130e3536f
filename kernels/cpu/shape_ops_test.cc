// transpose, reshape, concat and slice against index-mapping loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_test_util.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// ---- transpose ----

void CheckTranspose(const Shape& shape, std::vector<int64_t> perm, DType dt, std::mt19937* rng) {
  SCOPED_TRACE(std::string(DTypeName(dt)) + " " + shape.ToString() + " perm " + IntsString(perm));
  HostTensor x = Random(shape, dt, rng, -100, 100);
  auto out = RunOp("transpose", {x}, {{"perm", AttrValue::Ints(perm)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Shape& os = (*out)[0].shape();
  std::vector<double> ref;
  for (int64_t e = 0; e < os.num_elements(); ++e) {
    std::vector<int64_t> o = Unravel(e, os);
    std::vector<int64_t> i(o.size());
    for (size_t a = 0; a < perm.size(); ++a) i[perm[a]] = o[a];
    ref.push_back(x.Get(Ravel(i, shape)));
  }
  ExpectValues((*out)[0], ref);
}

TEST(TransposeKernelTest, EveryPermutationOfThreeAxes) {
  std::mt19937 rng(43);
  for (DType dt : AllTypes()) {
    std::vector<int64_t> perm = {0, 1, 2};
    do {
      CheckTranspose(Shape{2, 3, 4}, perm, dt, &rng);
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

TEST(TransposeKernelTest, SizeOneEmptyAndHigherRank) {
  std::mt19937 rng(47);
  for (DType dt : AllTypes()) {
    CheckTranspose(Shape{2, 1, 3, 1}, {3, 1, 0, 2}, dt, &rng);
    CheckTranspose(Shape{0, 3}, {1, 0}, dt, &rng);
    CheckTranspose(Shape{}, {}, dt, &rng);
    CheckTranspose(Shape{5}, {0}, dt, &rng);
    // Keeps the innermost axis: runs of 5 stay contiguous copies.
    CheckTranspose(Shape{2, 3, 4, 5}, {2, 0, 1, 3}, dt, &rng);
    CheckTranspose(Shape{2, 3, 4, 5}, {0, 2, 1, 3}, dt, &rng);
    CheckTranspose(Shape{3, 2, 2, 3, 2}, {4, 2, 0, 3, 1}, dt, &rng);
  }
}

TEST(TransposeKernelTest, BadPermIsNamed) {
  HostTensor x(Shape{2, 3}, DType::kF32);
  HostTensor out(Shape{3, 2}, DType::kF32);
  EXPECT_EQ(ErrorOf("transpose", {x}, {{"perm", AttrValue::Ints({0, 0})}}, {out}),
            "transpose: attribute \"perm\" [0,0] is not a permutation of the 2 axes of input "
            "\"x\" [2,3]");
  EXPECT_EQ(ErrorOf("transpose", {x}, {{"perm", AttrValue::Ints({1, 0, 2})}}, {out}),
            "transpose: attribute \"perm\" [1,0,2] is not a permutation of the 2 axes of input "
            "\"x\" [2,3]");
  EXPECT_EQ(ErrorOf("transpose", {x}, {}, {out}),
            "transpose: required attribute \"perm\" is missing");
  EXPECT_EQ(ErrorOf("transpose", {x}, {{"perm", AttrValue::Ints({0, 1})}}, {out}),
            "transpose: output \"out\" is [3,2] f32 but the inputs give [2,3] f32");
}

// ---- reshape ----

TEST(ReshapeKernelTest, CopiesInRowMajorOrder) {
  std::mt19937 rng(53);
  for (DType dt : AllTypes()) {
    for (const auto& target :
         std::vector<std::vector<int64_t>>{{4, 6}, {-1}, {2, -1, 3}, {24, 1}}) {
      HostTensor x = Random(Shape{2, 3, 4}, dt, &rng, -9, 9);
      auto out = RunOp("reshape", {x}, {{"shape", AttrValue::Ints(target)}});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      ExpectValues((*out)[0], x.Values());
    }
    HostTensor empty(Shape{0, 3}, dt);
    auto out = RunOp("reshape", {empty}, {{"shape", AttrValue::Ints({3, 0})}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].shape(), (Shape{3, 0}));
  }
}

TEST(ReshapeKernelTest, UsesTheCallersLocalOutputShape) {
  // A shard [12] of a logical [24] reshaped to [6,4] is a local [3,4]: the kernel takes
  // the output shape it is given, not the attribute.
  HostTensor x = FromValues(Shape{12}, DType::kF32, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  std::vector<HostTensor> out{HostTensor(Shape{3, 4}, DType::kF32)};
  ASSERT_TRUE(RunOpInto("reshape", {x}, {{"shape", AttrValue::Ints({6, 4})}}, &out).ok());
  ExpectValues(out[0], x.Values());
}

TEST(ReshapeKernelTest, SizeOrDtypeMismatchIsNamed) {
  HostTensor x(Shape{2, 3}, DType::kF32);
  AttrMap attrs{{"shape", AttrValue::Ints({5})}};
  EXPECT_EQ(ErrorOf("reshape", {x}, attrs, {HostTensor(Shape{5}, DType::kF32)}),
            "reshape: output \"out\" is [5] f32 (5 elements) but input \"x\" is [2,3] f32 (6 "
            "elements)");
  EXPECT_EQ(ErrorOf("reshape", {x}, attrs, {HostTensor(Shape{6}, DType::kI32)}),
            "reshape: output \"out\" is [6] i32 (6 elements) but input \"x\" is [2,3] f32 (6 "
            "elements)");
}

// ---- concat ----

void CheckConcat(const std::vector<Shape>& shapes, int axis, DType dt, std::mt19937* rng) {
  SCOPED_TRACE(std::string(DTypeName(dt)) + " " + shapes[0].ToString() + " x" +
               std::to_string(shapes.size()) + " axis " + std::to_string(axis));
  std::vector<HostTensor> ins;
  for (const Shape& s : shapes) ins.push_back(Random(s, dt, rng, -50, 50));
  auto out = RunOp("concat", ins, {{"axis", AttrValue::Int(axis)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Shape& os = (*out)[0].shape();
  const int ax = axis < 0 ? axis + os.ndim() : axis;
  std::vector<double> ref;
  for (int64_t e = 0; e < os.num_elements(); ++e) {
    std::vector<int64_t> idx = Unravel(e, os);
    size_t k = 0;
    while (idx[ax] >= shapes[k].dim(ax)) idx[ax] -= shapes[k++].dim(ax);
    ref.push_back(ins[k].Get(Ravel(idx, shapes[k])));
  }
  ExpectValues((*out)[0], ref);
}

TEST(ConcatKernelTest, AlongEveryAxis) {
  std::mt19937 rng(59);
  for (DType dt : AllTypes()) {
    CheckConcat({Shape{2, 3}, Shape{4, 3}, Shape{1, 3}}, 0, dt, &rng);
    CheckConcat({Shape{2, 3}, Shape{2, 1}, Shape{2, 5}}, 1, dt, &rng);
    CheckConcat({Shape{2, 3, 2}, Shape{2, 3, 1}}, -1, dt, &rng);
    CheckConcat({Shape{2, 3, 2}, Shape{2, 0, 2}, Shape{2, 4, 2}}, 1, dt, &rng);
    CheckConcat({Shape{3, 2}}, 0, dt, &rng);
    CheckConcat({Shape{0, 2}, Shape{0, 3}}, 1, dt, &rng);
  }
}

TEST(ConcatKernelTest, MismatchesAreNamed) {
  HostTensor a(Shape{2, 3}, DType::kF32);
  HostTensor out(Shape{4, 3}, DType::kF32);
  EXPECT_EQ(ErrorOf("concat", {a, HostTensor(Shape{2, 4}, DType::kF32)}, {}, {out}),
            "concat: input \"in[1]\" has shape [2,4] but \"in[0]\" has [2,3]; shapes must match "
            "except on axis 0");
  EXPECT_EQ(ErrorOf("concat", {a, HostTensor(Shape{2, 3}, DType::kI64)}, {}, {out}),
            "concat: input \"in[1]\" has dtype i64 but \"in[0]\" has f32");
  EXPECT_EQ(ErrorOf("concat", {a, a}, {{"axis", AttrValue::Int(2)}}, {out}),
            "concat: attribute \"axis\" is 2 but input \"in[0]\" has shape [2,3] (2 axes; valid "
            "axes are -2..1)");
  EXPECT_EQ(ErrorOf("concat", {}, {}, {out}),
            "concat: takes at least 1 inputs but the call gives 0");
}

// ---- slice ----

// Python's slice(start, stop, step).indices(d) for step >= 1, spelled out.
std::vector<int64_t> PythonRange(int64_t start, int64_t stop, int64_t step, int64_t d) {
  if (start < 0) start = std::max<int64_t>(start + d, 0);
  if (stop < 0) stop = std::max<int64_t>(stop + d, 0);
  start = std::min(start, d);
  stop = std::min(stop, d);
  std::vector<int64_t> r;
  for (int64_t i = start; i < stop; i += step) r.push_back(i);
  return r;
}

void CheckSlice(const Shape& shape, const std::vector<int64_t>& start,
                const std::vector<int64_t>& stop, const std::vector<int64_t>& step, DType dt,
                std::mt19937* rng) {
  SCOPED_TRACE(std::string(DTypeName(dt)) + " " + shape.ToString() + " start " + IntsString(start) +
               " stop " + IntsString(stop) + " step " + IntsString(step));
  HostTensor x = Random(shape, dt, rng, -50, 50);
  auto out = RunOp("slice", {x},
                   {{"start", AttrValue::Ints(start)},
                    {"stop", AttrValue::Ints(stop)},
                    {"step", AttrValue::Ints(step)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<std::vector<int64_t>> ranges;
  for (int i = 0; i < shape.ndim(); ++i) {
    ranges.push_back(PythonRange(start[i], stop[i], step[i], shape.dim(i)));
    ASSERT_EQ((*out)[0].shape().dim(i), static_cast<int64_t>(ranges.back().size()));
  }
  std::vector<double> ref;
  for (int64_t e = 0; e < (*out)[0].size(); ++e) {
    std::vector<int64_t> o = Unravel(e, (*out)[0].shape());
    for (int i = 0; i < shape.ndim(); ++i) o[i] = ranges[i][o[i]];
    ref.push_back(x.Get(Ravel(o, shape)));
  }
  ExpectValues((*out)[0], ref);
}

TEST(SliceKernelTest, StepsNegativePositionsAndClamping) {
  std::mt19937 rng(61);
  for (DType dt : AllTypes()) {
    CheckSlice(Shape{5, 6}, {1, 0}, {4, 6}, {1, 1}, dt, &rng);
    CheckSlice(Shape{5, 6}, {0, 1}, {5, 6}, {2, 3}, dt, &rng);
    CheckSlice(Shape{5, 6}, {-3, -100}, {-1, 100}, {1, 2}, dt, &rng);
    CheckSlice(Shape{5, 6}, {4, 0}, {2, 6}, {1, 1}, dt, &rng);  // empty: stop < start
    CheckSlice(Shape{5, 6}, {7, 0}, {9, 6}, {1, 1}, dt, &rng);  // empty: past the end
    CheckSlice(Shape{2, 3, 4}, {0, 1, 1}, {2, 3, 4}, {1, 1, 2}, dt, &rng);
    CheckSlice(Shape{2, 3, 4}, {1, 0, 0}, {2, 3, 4}, {1, 1, 1}, dt, &rng);
    CheckSlice(Shape{0, 3}, {0, 0}, {0, 3}, {1, 1}, dt, &rng);
    CheckSlice(Shape{}, {}, {}, {}, dt, &rng);
    CheckSlice(Shape{7}, {-7}, {7}, {7}, dt, &rng);
  }
}

TEST(SliceKernelTest, BadAttributesAreNamed) {
  HostTensor x(Shape{4, 4}, DType::kF32);
  HostTensor out(Shape{4, 4}, DType::kF32);
  EXPECT_EQ(ErrorOf("slice", {x},
                    {{"start", AttrValue::Ints({0, 0})},
                     {"stop", AttrValue::Ints({4, 4})},
                     {"step", AttrValue::Ints({1, 0})}},
                    {out}),
            "slice: attribute \"step\" has 0 at axis 1; steps must be >= 1");
  EXPECT_EQ(ErrorOf("slice", {x},
                    {{"start", AttrValue::Ints({0})},
                     {"stop", AttrValue::Ints({4, 4})},
                     {"step", AttrValue::Ints({1, 1})}},
                    {out}),
            "slice: attribute \"start\" has 1 entries but input \"x\" has shape [4,4] (2 axes)");
  EXPECT_EQ(ErrorOf("slice", {x},
                    {{"start", AttrValue::Ints({0, 0})},
                     {"stop", AttrValue::Ints({4, 2})},
                     {"step", AttrValue::Ints({1, 1})}},
                    {out}),
            "slice: output \"out\" is [4,4] f32 but the inputs give [4,2] f32");
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
