#include <gtest/gtest.h>

#include "core/op/op_test_util.h"

namespace tessera {
namespace op {
namespace {

using Strings = std::vector<std::string>;

const char* const kCompares[] = {"equal",      "not_equal", "less",
                                 "less_equal", "greater",   "greater_equal"};

TEST(CompareTest, ShapesAreBroadcastAndBool) {
  for (const char* op : kCompares) {
    auto r = InferShapes(op, Descs({{2, 1, 3}, {4, 1}}, DType::kI64));
    ASSERT_TRUE(r.ok()) << op << ": " << r.status().ToString();
    EXPECT_EQ((*r)[0].shape, Shape({2, 4, 3})) << op;
    EXPECT_EQ((*r)[0].dtype, DType::kBool) << op;
    EXPECT_TRUE(InferShapes(op, Descs({{2}, {2}}, DType::kBool)).ok()) << op;
  }
  EXPECT_EQ(ShapeError("less", {{{2}, DType::kF32}, {{2}, DType::kF64}}),
            "less: input \"y\" has dtype f64 but \"x\" has f32");
  EXPECT_EQ(ShapeError("equal", Descs({{2, 3}, {3, 2}})),
            "equal: inputs \"x\" [2,3] and \"y\" [3,2] do not broadcast: output axis 0 has 2 in "
            "x and 3 in y");
}

TEST(CompareTest, SplitsOnlyNoPartialOfBool) {
  // y lacks axis 0 and has size 1 on axis 2: B along both.
  EXPECT_EQ(Sigs("greater", Descs({{2, 5, 7}, {5, 1}})),
            (Strings{"x:S(0), y:B -> out:S(0)", "x:S(1), y:S(0) -> out:S(1)",
                     "x:S(2), y:B -> out:S(2)", "x:B, y:B -> out:B"}));
}

TEST(WhereTest, ShapesAndErrors) {
  std::vector<TensorDesc> in = {{{3, 1}, DType::kBool}, {{1, 4}, DType::kF32}, {{4}, DType::kF32}};
  auto r = InferShapes("where", in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape, Shape({3, 4}));
  EXPECT_EQ((*r)[0].dtype, DType::kF32);
  EXPECT_EQ(ShapeError("where", {{{3}, DType::kF32}, {{3}, DType::kF32}, {{3}, DType::kF32}}),
            "where: input \"cond\" has dtype f32; expected bool (a comparison's output, or cast "
            "to bool)");
  EXPECT_EQ(ShapeError("where", {{{3}, DType::kBool}, {{3}, DType::kF32}, {{3}, DType::kI32}}),
            "where: input \"y\" has dtype i32 but \"x\" has f32");
  EXPECT_EQ(ShapeError("where", {{{3}, DType::kBool}, {{2}, DType::kF32}, {{3}, DType::kF32}}),
            "where: inputs \"cond\" [3] and \"x\" [2] do not broadcast: output axis 0 has 3 in "
            "cond and 2 in x");
  EXPECT_EQ(ShapeError("where", {{{3}, DType::kBool}, {{1}, DType::kF32}, {{2}, DType::kF32}}),
            "where: inputs \"cond\" [3] and \"y\" [2] do not broadcast: output axis 0 has 3 in "
            "cond and 2 in y");
}

TEST(WhereTest, SplitsAndPartialsOfXAndYTogether) {
  std::vector<TensorDesc> in = {{{2, 3}, DType::kBool}, {{2, 3}, DType::kF32}, {{3}, DType::kF32}};
  EXPECT_EQ(Sigs("where", in),
            (Strings{"cond:S(0), x:S(0), y:B -> out:S(0)", "cond:S(1), x:S(1), y:S(0) -> out:S(1)",
                     "cond:B, x:P, y:P -> out:P", "cond:B, x:P(max), y:P(max) -> out:P(max)",
                     "cond:B, x:P(min), y:P(min) -> out:P(min)", "cond:B, x:B, y:B -> out:B"}));
  // bool values have no partial: the framework drops those signatures.
  std::vector<TensorDesc> masks = {{{2}, DType::kBool}, {{2}, DType::kBool}, {{2}, DType::kBool}};
  EXPECT_EQ(Sigs("where", masks),
            (Strings{"cond:S(0), x:S(0), y:S(0) -> out:S(0)", "cond:B, x:B, y:B -> out:B"}));
}

TEST(BoolTest, PartialSignaturesOfBoolAreDropped) {
  // identity passes P, P(max), P(min) for numbers; bool keeps splits and B only.
  EXPECT_EQ(Sigs("identity", {{{2, 3}, DType::kBool}}),
            (Strings{"x:S(0) -> out:S(0)", "x:S(1) -> out:S(1)", "x:B -> out:B"}));
  // cast to bool: P(max)/P(min) of the input would give a partial bool output.
  EXPECT_EQ(Sigs("cast", Descs({{2}}), {{"dtype", AttrValue::OfDType(DType::kBool)}}),
            (Strings{"x:S(0) -> out:S(0)", "x:B -> out:B"}));
}

}  // namespace
}  // namespace op
}  // namespace tessera
