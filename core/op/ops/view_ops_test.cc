#include <gtest/gtest.h>

#include "core/op/op_test_util.h"

namespace tessera {
namespace op {
namespace {

using Strings = std::vector<std::string>;

Strings WithPartials(Strings splits) {
  for (const char* p : {"P", "P(max)", "P(min)", "B"}) {
    splits.push_back(std::string("x:") + p + " -> out:" + p);
  }
  return splits;
}

AttrMap Ints(const char* name, std::vector<int64_t> v) {
  return {{name, AttrValue::Ints(std::move(v))}};
}

Shape OutShape(std::string_view op, Shape x, const AttrMap& attrs) {
  auto r = InferShapes(op, Descs({x}), attrs);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? (*r)[0].shape : Shape{};
}

TEST(ExpandTest, Shapes) {
  EXPECT_EQ(OutShape("expand", {3, 1}, Ints("shape", {2, 3, 4})), Shape({2, 3, 4}));
  EXPECT_EQ(OutShape("expand", {3, 1}, Ints("shape", {-1, 5})), Shape({3, 5}));
  EXPECT_EQ(OutShape("expand", {1}, Ints("shape", {0})), Shape({0}));
  EXPECT_EQ(OutShape("expand", {}, Ints("shape", {2, 2})), Shape({2, 2}));
  EXPECT_EQ(ShapeError("expand", Descs({{3, 2}}), Ints("shape", {3, 4})),
            "expand: attribute \"shape\" [3,4] has 4 at axis 1 but input \"x\" [3,2] has 2 "
            "there; only size-1 axes expand");
  EXPECT_EQ(ShapeError("expand", Descs({{3, 2}}), Ints("shape", {2})),
            "expand: attribute \"shape\" [2] has 1 dims but input \"x\" has shape [3,2] (2 "
            "dims); expand cannot drop axes");
  EXPECT_EQ(ShapeError("expand", Descs({{3}}), Ints("shape", {-1, 3})),
            "expand: attribute \"shape\" [-1,3] has -1 at axis 0; a new leading axis needs a "
            "size >= 0");
  EXPECT_EQ(ShapeError("expand", Descs({{3}}), Ints("shape", {-2})),
            "expand: attribute \"shape\" [-2] has -2 at axis 0; sizes must be >= 0, or -1 to "
            "keep x's");
}

TEST(ExpandTest, KeptAxesSplitExpandedAxesTakeB) {
  // x [3,1] -> [2,3,4]: axis 0 is new, x axis 0 is kept (out axis 1), x axis 1 expands.
  EXPECT_EQ(Sigs("expand", Descs({{3, 1}}), Ints("shape", {2, 3, 4})),
            WithPartials({"x:B -> out:S(0)", "x:S(0) -> out:S(1)", "x:B -> out:S(2)"}));
  // A size-1 output axis is never split by B (it cannot be cut over 2 ranks) but a
  // size-1 axis kept as is splits like any other.
  EXPECT_EQ(Sigs("expand", Descs({{1, 2}}), Ints("shape", {1, 1, 2})),
            WithPartials({"x:S(0) -> out:S(1)", "x:S(1) -> out:S(2)"}));
}

TEST(SqueezeTest, ShapesSignaturesErrors) {
  EXPECT_EQ(OutShape("squeeze", {3, 1, 4, 1}, {}), Shape({3, 4}));
  EXPECT_EQ(OutShape("squeeze", {3, 1, 4, 1}, Ints("axes", {-1})), Shape({3, 1, 4}));
  EXPECT_EQ(OutShape("squeeze", {1}, {}), Shape({}));
  EXPECT_EQ(Sigs("squeeze", Descs({{3, 1, 4}}), Ints("axes", {1})),
            WithPartials({"x:S(0) -> out:S(0)", "x:S(2) -> out:S(1)"}));
  EXPECT_EQ(ShapeError("squeeze", Descs({{3, 1, 4}}), Ints("axes", {0})),
            "squeeze: attribute \"axes\" [0] names axis 0 but input \"x\" [3,1,4] has 3 there; "
            "only size-1 axes squeeze");
  EXPECT_EQ(ShapeError("squeeze", Descs({{3, 1, 4}}), Ints("axes", {1, -2})),
            "squeeze: attribute \"axes\" [1,-2] names axis 1 twice");
  EXPECT_EQ(ShapeError("squeeze", Descs({{3, 1, 4}}), Ints("axes", {3})),
            "squeeze: attribute \"axes\" is 3 but input \"x\" has shape [3,1,4] (3 axes; valid "
            "axes are -3..2)");
}

TEST(UnsqueezeTest, ShapesSignaturesErrors) {
  AttrMap at0{{"axis", AttrValue::Int(0)}};
  AttrMap at_end{{"axis", AttrValue::Int(-1)}};
  EXPECT_EQ(OutShape("unsqueeze", {3, 4}, at0), Shape({1, 3, 4}));
  EXPECT_EQ(OutShape("unsqueeze", {3, 4}, at_end), Shape({3, 4, 1}));
  EXPECT_EQ(OutShape("unsqueeze", {}, at0), Shape({1}));
  EXPECT_EQ(Sigs("unsqueeze", Descs({{3, 4}}), {{"axis", AttrValue::Int(1)}}),
            WithPartials({"x:S(0) -> out:S(0)", "x:S(1) -> out:S(2)"}));
  EXPECT_EQ(ShapeError("unsqueeze", Descs({{3, 4}}), {{"axis", AttrValue::Int(3)}}),
            "unsqueeze: attribute \"axis\" is 3 but the output of input \"x\" [3,4] has 3 axes; "
            "valid axes are -3..2");
  EXPECT_EQ(ShapeError("unsqueeze", Descs({{3, 4}}), {}),
            "unsqueeze: required attribute \"axis\" (int) is missing");
}

TEST(FlattenTest, ShapesSignaturesErrors) {
  auto range = [](int64_t s, int64_t e) {
    return AttrMap{{"start_axis", AttrValue::Int(s)}, {"end_axis", AttrValue::Int(e)}};
  };
  EXPECT_EQ(OutShape("flatten", {2, 3, 4}, {}), Shape({24}));
  EXPECT_EQ(OutShape("flatten", {2, 3, 4}, range(1, 2)), Shape({2, 12}));
  EXPECT_EQ(OutShape("flatten", {2, 3, 4}, range(1, 1)), Shape({2, 3, 4}));
  EXPECT_EQ(OutShape("flatten", {2, 0, 4}, range(0, 1)), Shape({0, 4}));
  // [2,3,4] -> [2,12]: axis 0 is untouched; the run (3,4) <-> (12) splits only where
  // 3 and 12 both divide by the rank count.
  EXPECT_EQ(Sigs("flatten", Descs({{2, 3, 4}}), range(1, 2)), WithPartials({"x:S(0) -> out:S(0)"}));
  EXPECT_EQ(Sigs("flatten", Descs({{2, 3, 4}}), range(1, 2), 3),
            WithPartials({"x:S(0) -> out:S(0)", "x:S(1) -> out:S(1)"}));
  EXPECT_EQ(ShapeError("flatten", Descs({{2, 3, 4}}), range(2, 1)),
            "flatten: attribute \"start_axis\" (2, axis 2) comes after \"end_axis\" (1, axis 1) "
            "for input \"x\" [2,3,4]");
  EXPECT_EQ(ShapeError("flatten", Descs({{}}), {}),
            "flatten: input \"x\" has shape [] (0 dims); expected at least 1 dims");
}

}  // namespace
}  // namespace op
}  // namespace tessera
