#include <gtest/gtest.h>

#include "core/op/op_test_util.h"

namespace tessera {
namespace op {
namespace {

using Strings = std::vector<std::string>;

TEST(ArgmaxTest, ShapesSignaturesErrors) {
  auto r = InferShapes("argmax", Descs({{2, 3, 4}}), {{"axis", AttrValue::Int(1)}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape, Shape({2, 4}));
  EXPECT_EQ((*r)[0].dtype, DType::kI64);
  r = InferShapes("argmax", Descs({{2, 3}}, DType::kI32), {{"keepdims", AttrValue::Bool(true)}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape, Shape({2, 1}));
  // Rows along the axis stay whole; no partial.
  EXPECT_EQ(Sigs("argmax", Descs({{2, 3, 4}}), {{"axis", AttrValue::Int(1)}}),
            (Strings{"x:S(0) -> out:S(0)", "x:S(2) -> out:S(1)", "x:B -> out:B"}));
  EXPECT_EQ(Sigs("argmax", Descs({{2, 3}}),
                 {{"axis", AttrValue::Int(0)}, {"keepdims", AttrValue::Bool(true)}}),
            (Strings{"x:S(1) -> out:S(1)", "x:B -> out:B"}));
  EXPECT_EQ(ShapeError("argmax", Descs({{2, 0}})),
            "argmax: input \"x\" [2,0] has no elements on axis 1; an empty axis has no argmax");
  EXPECT_EQ(ShapeError("argmax", Descs({{2, 3}}), {{"axis", AttrValue::Int(2)}}),
            "argmax: attribute \"axis\" is 2 but input \"x\" has shape [2,3] (2 axes; valid axes "
            "are -2..1)");
  EXPECT_EQ(ShapeError("argmax", {{{2}, DType::kBool}}),
            "argmax: input \"x\" has dtype bool; expected a number type (f32, f64, i32, i64)");
}

TEST(CumsumTest, ShapesSignaturesErrors) {
  auto r = InferShapes("cumsum", Descs({{2, 3}}, DType::kI64), {{"axis", AttrValue::Int(0)}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape, Shape({2, 3}));
  EXPECT_EQ((*r)[0].dtype, DType::kI64);
  EXPECT_EQ(Sigs("cumsum", Descs({{2, 3}})),
            (Strings{"x:S(0) -> out:S(0)", "x:P -> out:P", "x:B -> out:B"}));
  EXPECT_EQ(ShapeError("cumsum", Descs({{}})),
            "cumsum: input \"x\" has shape [] (0 dims); expected at least 1 dims");
}

TEST(VarTest, ShapesSignaturesErrors) {
  for (const char* op : {"var", "std"}) {
    auto r = InferShapes(op, Descs({{2, 3, 4}}, DType::kF64), {{"axes", AttrValue::Ints({1})}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)[0].shape, Shape({2, 4})) << op;
    EXPECT_EQ((*r)[0].dtype, DType::kF64) << op;
    // Kept axes split; nothing else (not linear, needs the global mean).
    EXPECT_EQ(Sigs(op, Descs({{2, 3, 4}}), {{"axes", AttrValue::Ints({1})}}),
              (Strings{"x:S(0) -> out:S(0)", "x:S(2) -> out:S(1)", "x:B -> out:B"}))
        << op;
    EXPECT_EQ(ShapeError(op, Descs({{2}}, DType::kI32)),
              std::string(op) +
                  ": input \"x\" has dtype i32; expected a floating type (f32, f64, f16, bf16)");
    EXPECT_EQ(ShapeError(op, Descs({{2}}), {{"correction", AttrValue::Int(-1)}}),
              std::string(op) +
                  ": attribute \"correction\" is -1; it must be >= 0 (1: unbiased, 0: the "
                  "population variance)");
  }
}

}  // namespace
}  // namespace op
}  // namespace tessera
