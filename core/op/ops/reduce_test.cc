#include <gtest/gtest.h>

#include "core/op/op_test_util.h"

namespace tessera {
namespace op {
namespace {

using Strings = std::vector<std::string>;

AttrMap Axes(std::vector<int64_t> axes, bool keepdims = false) {
  return {{"axes", AttrValue::Ints(std::move(axes))}, {"keepdims", AttrValue::Bool(keepdims)}};
}

TEST(ReduceTest, Shapes) {
  struct Case {
    std::vector<int64_t> axes;
    bool keepdims;
    Shape out;
  } cases[] = {
      {{1}, false, {2, 4}}, {{1}, true, {2, 1, 4}}, {{-1}, false, {2, 3}},
      {{0, 2}, false, {3}}, {{}, false, {}},        {{}, true, {1, 1, 1}},
  };
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"}) {
    for (const Case& c : cases) {
      auto r = InferShapes(op, Descs({{2, 3, 4}}), Axes(c.axes, c.keepdims));
      ASSERT_TRUE(r.ok()) << op << ": " << r.status().ToString();
      EXPECT_EQ((*r)[0].shape, c.out) << op;
    }
  }
}

TEST(ReduceTest, BadAxes) {
  EXPECT_EQ(ShapeError("reduce_sum", Descs({{2, 3}}), Axes({2})),
            "reduce_sum: attribute \"axes\" is 2 but input \"x\" has shape [2,3] (2 axes; valid "
            "axes are -2..1)");
  EXPECT_EQ(ShapeError("reduce_max", Descs({{2, 3}}), Axes({1, -1})),
            "reduce_max: attribute \"axes\" [1,-1] names axis 1 twice");
  EXPECT_EQ(
      ShapeError("reduce_mean", Descs({{2}}, DType::kI32)),
      "reduce_mean: input \"x\" has dtype i32; expected a floating type (f32, f64, f16, bf16)");
}

TEST(ReduceTest, SumSignatures) {
  // Kept axis 0 stays split; the reduced axis 1 split gives partial sums; P passes.
  EXPECT_EQ(Sigs("reduce_sum", Descs({{4, 6}}), Axes({1})),
            (Strings{"x:S(0) -> out:S(0)", "x:S(1) -> out:P", "x:P -> out:P", "x:B -> out:B"}));
  // Kept axis 2 lands on output axis 1 without keepdims, on 2 with it.
  EXPECT_EQ(Sigs("reduce_sum", Descs({{2, 3, 4}}), Axes({1})),
            (Strings{"x:S(0) -> out:S(0)", "x:S(2) -> out:S(1)", "x:S(1) -> out:P", "x:P -> out:P",
                     "x:B -> out:B"}));
  EXPECT_EQ(Sigs("reduce_sum", Descs({{2, 3, 4}}), Axes({1}, true)),
            (Strings{"x:S(0) -> out:S(0)", "x:S(2) -> out:S(2)", "x:S(1) -> out:P", "x:P -> out:P",
                     "x:B -> out:B"}));
}

TEST(ReduceTest, MeanHasNoSplitReducedAxis) {
  // Per-rank means of uneven parts do not add up to the mean.
  EXPECT_EQ(Sigs("reduce_mean", Descs({{4, 6}}), Axes({1})),
            (Strings{"x:S(0) -> out:S(0)", "x:P -> out:P", "x:B -> out:B"}));
}

TEST(ReduceTest, MaxMinGivePartialMaxMin) {
  EXPECT_EQ(Sigs("reduce_max", Descs({{4, 6}}), Axes({1})),
            (Strings{"x:S(0) -> out:S(0)", "x:S(1) -> out:P(max)", "x:P(max) -> out:P(max)",
                     "x:B -> out:B"}));
  EXPECT_EQ(Sigs("reduce_min", Descs({{4, 6}}), Axes({})),
            (Strings{"x:S(0) -> out:P(min)", "x:S(1) -> out:P(min)", "x:P(min) -> out:P(min)",
                     "x:B -> out:B"}));
}

TEST(SoftmaxTest, ShapesAndSignatures) {
  for (const char* op : {"softmax", "log_softmax"}) {
    auto r = InferShapes(op, Descs({{4, 6}}));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ((*r)[0].shape, Shape({4, 6}));
    // Only axes other than the softmax axis split.
    EXPECT_EQ(Sigs(op, Descs({{4, 6}})), (Strings{"x:S(0) -> out:S(0)", "x:B -> out:B"}));
    EXPECT_EQ(Sigs(op, Descs({{4, 6}}), {{"axis", AttrValue::Int(0)}}),
              (Strings{"x:S(1) -> out:S(1)", "x:B -> out:B"}));
    EXPECT_EQ(ShapeError(op, Descs({{4, 6}}), {{"axis", AttrValue::Int(2)}}),
              std::string(op) +
                  ": attribute \"axis\" is 2 but input \"x\" has shape [4,6] (2 axes; valid axes "
                  "are -2..1)");
    EXPECT_EQ(ShapeError(op, Descs({{}})),
              std::string(op) + ": input \"x\" has shape [] (0 dims); expected at least 1 dims");
  }
}

}  // namespace
}  // namespace op
}  // namespace tessera
