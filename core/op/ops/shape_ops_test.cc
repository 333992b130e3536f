#include <gtest/gtest.h>

#include "core/op/op_test_util.h"

namespace tessera {
namespace op {
namespace {

using Strings = std::vector<std::string>;

Strings WithPartials(Strings splits, const char* in = "x") {
  const std::string x = in;
  for (const char* p : {"P", "P(max)", "P(min)", "B"}) {
    splits.push_back(x + ":" + p + " -> out:" + p);
  }
  return splits;
}

AttrMap Ints(const char* name, std::vector<int64_t> v) {
  return {{name, AttrValue::Ints(std::move(v))}};
}

TEST(TransposeTest, ShapesSignaturesErrors) {
  auto r = InferShapes("transpose", Descs({{2, 3, 4}}), Ints("perm", {2, 0, 1}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].shape, Shape({4, 2, 3}));
  // Output axis i carries input axis perm[i].
  EXPECT_EQ(Sigs("transpose", Descs({{2, 3, 4}}), Ints("perm", {2, 0, 1})),
            WithPartials({"x:S(2) -> out:S(0)", "x:S(0) -> out:S(1)", "x:S(1) -> out:S(2)"}));
  EXPECT_EQ(ShapeError("transpose", Descs({{2, 3, 4}}), Ints("perm", {0, 0, 1})),
            "transpose: attribute \"perm\" [0,0,1] is not a permutation of 0..2");
  EXPECT_EQ(
      ShapeError("transpose", Descs({{2, 3}}), Ints("perm", {1, 0, 2})),
      "transpose: attribute \"perm\" [1,0,2] has 3 entries but input \"x\" has shape [2,3] (2 "
      "axes)");
}

TEST(ReshapeTest, Shapes) {
  auto r = InferShapes("reshape", Descs({{6, 4}}), Ints("shape", {-1, 8}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].shape, Shape({3, 8}));
  r = InferShapes("reshape", Descs({{0, 4}}), Ints("shape", {2, 0}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].shape, Shape({2, 0}));
  EXPECT_EQ(ShapeError("reshape", Descs({{6, 4}}), Ints("shape", {5, 5})),
            "reshape: cannot reshape input \"x\" of shape [6,4] (24 elements) into [5,5] (25 "
            "elements)");
  EXPECT_EQ(ShapeError("reshape", Descs({{6, 4}}), Ints("shape", {-1, -1})),
            "reshape: attribute \"shape\" [-1,-1] has more than one -1");
  EXPECT_EQ(ShapeError("reshape", Descs({{6, 4}}), Ints("shape", {-1, 5})),
            "reshape: cannot reshape input \"x\" of shape [6,4] (24 elements) into [-1,5]");
  EXPECT_EQ(ShapeError("reshape", Descs({{6, 4}}), Ints("shape", {-2, -12})),
            "reshape: attribute \"shape\" [-2,-12] has dim -2; dims must be >= 0 or a single -1");
}

TEST(ReshapeTest, SplitsFollowRunsOfEqualProducts) {
  // [6,4] -> [24]: one run; leading dims 6 and 24 are both even on 2 ranks.
  EXPECT_EQ(Sigs("reshape", Descs({{6, 4}}), Ints("shape", {24})),
            WithPartials({"x:S(0) -> out:S(0)"}));
  // On 4 ranks 6 rows split 2,2,1,1 (8,8,4,4 elements) but 24 elements split 6 each:
  // not declared.
  EXPECT_EQ(Sigs("reshape", Descs({{6, 4}}), Ints("shape", {24}), 4), WithPartials({}));
  // Nor on an axis of 2 inside a 4-rank placement: nested splits of 6 go 3,3 then
  // 2,1,2,1 rows while 24 goes 12,12 then 6 each.
  EXPECT_EQ(Sigs("reshape", Descs({{6, 4}}), Ints("shape", {24}), 2, 4), WithPartials({}));
  // [2,3,4] -> [6,4]: runs (2,3)<->(6) and (4)<->(4); the second has equal dims, so it
  // splits whatever the rank count.
  EXPECT_EQ(Sigs("reshape", Descs({{2, 3, 4}}), Ints("shape", {6, 4})),
            WithPartials({"x:S(0) -> out:S(0)", "x:S(2) -> out:S(1)"}));
  EXPECT_EQ(Sigs("reshape", Descs({{2, 3, 4}}), Ints("shape", {6, 4}), 3),
            WithPartials({"x:S(2) -> out:S(1)"}));
  // Size-1 dims are skipped: [6,1,4] -> [6,4] has runs (6)<->(6) and (4)<->(4).
  EXPECT_EQ(Sigs("reshape", Descs({{6, 1, 4}}), Ints("shape", {6, 4}), 4),
            WithPartials({"x:S(0) -> out:S(0)", "x:S(2) -> out:S(1)"}));
  // [6,4] -> [3,8]: one run; 6 and 3 are both divisible by 3 only.
  EXPECT_EQ(Sigs("reshape", Descs({{6, 4}}), Ints("shape", {3, 8})), WithPartials({}));
  EXPECT_EQ(Sigs("reshape", Descs({{6, 4}}), Ints("shape", {3, 8}), 3),
            WithPartials({"x:S(0) -> out:S(0)"}));
  // Empty tensors get no split.
  EXPECT_EQ(Sigs("reshape", Descs({{0, 4}}), Ints("shape", {4, 0})), WithPartials({}));
}

TEST(ConcatTest, ShapesSignaturesErrors) {
  auto r = InferShapes("concat", Descs({{2, 3}, {4, 3}}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].shape, Shape({6, 3}));
  r = InferShapes("concat", Descs({{2, 3}, {2, 1}, {2, 2}}), {{"axis", AttrValue::Int(-1)}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].shape, Shape({2, 6}));
  EXPECT_EQ(Sigs("concat", Descs({{2, 3}, {4, 3}}), {}),
            (Strings{"in[0]:S(1), in[1]:S(1) -> out:S(1)", "in[0]:P, in[1]:P -> out:P",
                     "in[0]:P(max), in[1]:P(max) -> out:P(max)",
                     "in[0]:P(min), in[1]:P(min) -> out:P(min)", "in[0]:B, in[1]:B -> out:B"}));
  EXPECT_EQ(ShapeError("concat", Descs({{2, 3}, {4, 2}})),
            "concat: input \"in[1]\" has shape [4,2] but \"in[0]\" has [2,3]; shapes must match "
            "except on axis 0");
  EXPECT_EQ(ShapeError("concat", {{{2}, DType::kF32}, {{2}, DType::kF64}}),
            "concat: input \"in[1]\" has dtype f64 but \"in[0]\" has f32");
  EXPECT_EQ(
      ShapeError("concat", {}),
      "concat: input \"in\" repeats at least 1 times but the call gives it 0 (0 inputs in all)");
}

TEST(ShapeOpsTest, OverflowingCountsAreErrors) {
  constexpr int64_t kBig = (int64_t{1} << 62) + 1;
  // Unchecked, the attribute's product wraps to 4 and matches x's 4 elements.
  EXPECT_EQ(ShapeError("reshape", Descs({{4}}), Ints("shape", {kBig, 4})),
            "reshape: attribute \"shape\" [4611686018427387905,4]: the element count overflows "
            "int64");
  constexpr int64_t kHalf = int64_t{1} << 62;
  EXPECT_EQ(ShapeError("concat", Descs({{kHalf}, {kHalf}})),
            "concat: the inputs' dims on axis 0 add up to more than int64 holds");
}

AttrMap SliceAttrs(std::vector<int64_t> start, std::vector<int64_t> stop,
                   std::vector<int64_t> step) {
  return {{"start", AttrValue::Ints(std::move(start))},
          {"stop", AttrValue::Ints(std::move(stop))},
          {"step", AttrValue::Ints(std::move(step))}};
}

TEST(SliceTest, Shapes) {
  struct Case {
    AttrMap attrs;
    Shape out;
  } cases[] = {
      {SliceAttrs({0, 1}, {4, 5}, {1, 2}), {4, 2}},     // axis 1: 1,3
      {SliceAttrs({-2, 0}, {100, 6}, {1, 1}), {2, 6}},  // negative start, clamped stop
      {SliceAttrs({3, 0}, {1, 6}, {1, 4}), {0, 2}},     // empty; 0,4
  };
  for (const Case& c : cases) {
    auto r = InferShapes("slice", Descs({{4, 6}}), c.attrs);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)[0].shape, c.out) << c.attrs.ToString();
  }
  EXPECT_EQ(ShapeError("slice", Descs({{4, 6}}), SliceAttrs({0, 0}, {4, 6}, {1, 0})),
            "slice: attribute \"step\" [1,0] has 0 at axis 1; steps must be >= 1");
  EXPECT_EQ(
      ShapeError("slice", Descs({{4, 6}}), SliceAttrs({0}, {4, 6}, {1, 1})),
      "slice: attribute \"start\" [0] has 1 entries but input \"x\" has shape [4,6] (2 axes)");
}

TEST(SliceTest, OnlyWholeAxesSplit) {
  EXPECT_EQ(Sigs("slice", Descs({{4, 6}}), SliceAttrs({0, 1}, {4, 5}, {1, 2})),
            WithPartials({"x:S(0) -> out:S(0)"}));
  // A stop past the end still takes the whole axis.
  EXPECT_EQ(Sigs("slice", Descs({{4, 6}}), SliceAttrs({0, 0}, {9, 6}, {1, 1})),
            WithPartials({"x:S(0) -> out:S(0)", "x:S(1) -> out:S(1)"}));
}

}  // namespace
}  // namespace op
}  // namespace tessera
