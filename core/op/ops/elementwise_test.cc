#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/op/op_test_util.h"

namespace tessera {
namespace op {
namespace {

using Strings = std::vector<std::string>;

const Strings kSplits2d = {"x:S(0) -> out:S(0)", "x:S(1) -> out:S(1)"};

Strings Concat(Strings a, const Strings& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(UnaryTest, ShapesAndDTypes) {
  for (const char* op :
       {"relu", "gelu", "exp", "neg", "sqrt", "tanh", "sigmoid", "identity", "log", "sin", "cos"}) {
    auto r = InferShapes(op, Descs({{2, 3}}, DType::kF64));
    ASSERT_TRUE(r.ok()) << op << ": " << r.status().ToString();
    EXPECT_EQ((*r)[0].shape, Shape({2, 3})) << op;
    EXPECT_EQ((*r)[0].dtype, DType::kF64) << op;
  }
  for (const char* op : {"gelu", "exp", "sqrt", "tanh", "sigmoid", "log", "sin", "cos"}) {
    EXPECT_EQ(ShapeError(op, Descs({{2}}, DType::kI32)),
              std::string(op) +
                  ": input \"x\" has dtype i32; expected a floating type (f32, f64, f16, bf16)");
  }
  // relu and neg are defined on integers.
  EXPECT_TRUE(InferShapes("relu", Descs({{2}}, DType::kI64)).ok());
  EXPECT_TRUE(InferShapes("neg", Descs({{2}}, DType::kI32)).ok());
  EXPECT_EQ(ShapeError("relu", Descs({{2}, {2}})), "relu: takes 1 input but got 2");
}

TEST(UnaryTest, MonotoneOpsKeepPartialMaxMinButNotSum) {
  // relu, exp, tanh, sigmoid are non-decreasing: P(max) and P(min) pass through; none
  // is linear, so no P (relu(a) + relu(b) != relu(a + b) for a = 1, b = -1).
  for (const char* op : {"relu", "exp", "tanh", "sigmoid"}) {
    EXPECT_EQ(
        Sigs(op, Descs({{2, 3}})),
        Concat(kSplits2d, {"x:P(max) -> out:P(max)", "x:P(min) -> out:P(min)", "x:B -> out:B"}))
        << op;
  }
}

TEST(UnaryTest, GeluSinCosSplitOnly) {
  // gelu(-0.75) < gelu(-3) would break max; gelu is not linear either. sin and cos are
  // periodic: neither monotone nor linear.
  for (const char* op : {"gelu", "sin", "cos"}) {
    EXPECT_EQ(Sigs(op, Descs({{2, 3}})), Concat(kSplits2d, {"x:B -> out:B"})) << op;
  }
}

TEST(UnaryTest, SqrtAndLogKeepOnlyPartialMin) {
  for (const char* op : {"sqrt", "log"}) {
    EXPECT_EQ(Sigs(op, Descs({{2, 3}})),
              Concat(kSplits2d, {"x:P(min) -> out:P(min)", "x:B -> out:B"}))
        << op;
  }
}

TEST(UnaryTest, NegIsLinearAndSwapsMaxMin) {
  EXPECT_EQ(Sigs("neg", Descs({{2, 3}})),
            Concat(kSplits2d, {"x:P -> out:P", "x:P(max) -> out:P(min)", "x:P(min) -> out:P(max)",
                               "x:B -> out:B"}));
}

TEST(UnaryTest, IdentityPassesEverything) {
  EXPECT_EQ(Sigs("identity", Descs({{2, 3}})),
            Concat(kSplits2d, {"x:P -> out:P", "x:P(max) -> out:P(max)", "x:P(min) -> out:P(min)",
                               "x:B -> out:B"}));
}

TEST(UnaryTest, ScalarOnlyTensor) {
  // A 0-d tensor has no axis to split.
  EXPECT_EQ(Sigs("relu", Descs({{}})),
            (Strings{"x:P(max) -> out:P(max)", "x:P(min) -> out:P(min)", "x:B -> out:B"}));
}

TEST(ScalarOpTest, ScalarAdd) {
  AttrMap v{{"value", AttrValue::Float(2.5)}};
  auto r = InferShapes("scalar_add", Descs({{3}}), v);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].shape, Shape({3}));
  // max_r x_r + c = max_r (x_r + c); sum_r (x_r + c) adds c n times, so no P.
  EXPECT_EQ(
      Sigs("scalar_add", Descs({{2, 3}}), v),
      Concat(kSplits2d, {"x:P(max) -> out:P(max)", "x:P(min) -> out:P(min)", "x:B -> out:B"}));
  EXPECT_EQ(ShapeError("scalar_add", Descs({{3}})),
            "scalar_add: required attribute \"value\" (float) is missing");
  EXPECT_EQ(ShapeError("scalar_add", Descs({{3}}), {{"value", AttrValue::Int(1)}}),
            "scalar_add: attribute \"value\" must be float but got int 1");
}

TEST(ScalarOpTest, ScalarMulSign) {
  EXPECT_EQ(Sigs("scalar_mul", Descs({{2, 3}}), {{"value", AttrValue::Float(3)}}),
            Concat(kSplits2d, {"x:P -> out:P", "x:P(max) -> out:P(max)", "x:P(min) -> out:P(min)",
                               "x:B -> out:B"}));
  // A negative factor reverses order: max becomes min.
  EXPECT_EQ(Sigs("scalar_mul", Descs({{2, 3}}), {{"value", AttrValue::Float(-2)}}),
            Concat(kSplits2d, {"x:P -> out:P", "x:P(max) -> out:P(min)", "x:P(min) -> out:P(max)",
                               "x:B -> out:B"}));
  // 0 * max = max_r (0 * x_r) = 0.
  EXPECT_EQ(Sigs("scalar_mul", Descs({{2, 3}}), {{"value", AttrValue::Float(0)}}),
            Concat(kSplits2d, {"x:P -> out:P", "x:P(max) -> out:P(max)", "x:P(min) -> out:P(min)",
                               "x:B -> out:B"}));
}

TEST(ScalarOpTest, ScalarMulEdgeCases) {
  // Integer tensor, fractional factor: truncation per rank breaks linearity, order
  // survives.
  EXPECT_EQ(Sigs("scalar_mul", Descs({{4}}, DType::kI32), {{"value", AttrValue::Float(0.5)}}),
            (Strings{"x:S(0) -> out:S(0)", "x:P(max) -> out:P(max)", "x:P(min) -> out:P(min)",
                     "x:B -> out:B"}));
  // Integer tensor, integral factor: exact.
  EXPECT_EQ(Sigs("scalar_mul", Descs({{4}}, DType::kI32), {{"value", AttrValue::Float(2)}}),
            (Strings{"x:S(0) -> out:S(0)", "x:P -> out:P", "x:P(max) -> out:P(max)",
                     "x:P(min) -> out:P(min)", "x:B -> out:B"}));
  // inf * 0 = NaN: no partial signature.
  EXPECT_EQ(Sigs("scalar_mul", Descs({{4}}),
                 {{"value", AttrValue::Float(std::numeric_limits<double>::infinity())}}),
            (Strings{"x:S(0) -> out:S(0)", "x:B -> out:B"}));
}

TEST(CastTest, ShapesAndSignatures) {
  AttrMap to64{{"dtype", AttrValue::OfDType(DType::kF64)}};
  auto r = InferShapes("cast", Descs({{2, 3}}), to64);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].dtype, DType::kF64);
  // Conversions are monotone; rounding parts before summing is not exact.
  EXPECT_EQ(
      Sigs("cast", Descs({{2, 3}}), to64),
      Concat(kSplits2d, {"x:P(max) -> out:P(max)", "x:P(min) -> out:P(min)", "x:B -> out:B"}));
  // A same-dtype cast is the identity.
  EXPECT_EQ(Sigs("cast", Descs({{2, 3}}), {{"dtype", AttrValue::OfDType(DType::kF32)}}),
            Concat(kSplits2d, {"x:P(max) -> out:P(max)", "x:P(min) -> out:P(min)", "x:P -> out:P",
                               "x:B -> out:B"}));
  EXPECT_EQ(ShapeError("cast", Descs({{2}})),
            "cast: required attribute \"dtype\" (dtype) is missing");
}

TEST(BinaryTest, BroadcastShapes) {
  struct Case {
    Shape x, y, out;
  } cases[] = {
      {{2, 3}, {2, 3}, {2, 3}},       {{2, 3}, {3}, {2, 3}}, {{3}, {2, 3}, {2, 3}},
      {{4, 1, 3}, {2, 1}, {4, 2, 3}}, {{}, {2, 3}, {2, 3}},  {{4, 1}, {1, 5}, {4, 5}},
      {{0, 3}, {1, 3}, {0, 3}},
  };
  for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum"}) {
    for (const Case& c : cases) {
      auto r = InferShapes(op, Descs({c.x, c.y}));
      ASSERT_TRUE(r.ok()) << op << " " << c.x.ToString() << " " << c.y.ToString() << ": "
                          << r.status().ToString();
      EXPECT_EQ((*r)[0].shape, c.out) << op << " " << c.x.ToString() << " " << c.y.ToString();
    }
  }
}

TEST(BinaryTest, BadShapes) {
  EXPECT_EQ(ShapeError("add", Descs({{2, 3}, {4}})),
            "add: inputs \"x\" [2,3] and \"y\" [4] do not broadcast: output axis 1 has 3 in x and "
            "4 in y");
  EXPECT_EQ(ShapeError("mul", Descs({{5, 2, 3}, {4, 3}})),
            "mul: inputs \"x\" [5,2,3] and \"y\" [4,3] do not broadcast: output axis 1 has 2 in x "
            "and 4 in y");
  EXPECT_EQ(ShapeError("sub", {{{2}, DType::kF32}, {{2}, DType::kI32}}),
            "sub: input \"y\" has dtype i32 but \"x\" has f32");
}

TEST(BinaryTest, BroadcastSplits) {
  // x [2,3], y [3]: output axis 0 exists only in x (y is broadcast along it); axis 1
  // is y's axis 0.
  const Strings splits = {"x:S(0), y:B -> out:S(0)", "x:S(1), y:S(0) -> out:S(1)"};
  EXPECT_EQ(Sigs("mul", Descs({{2, 3}, {3}})),
            Concat(splits, {"x:P, y:B -> out:P", "x:B, y:P -> out:P", "x:B, y:B -> out:B"}));
  // x [4,1], y [1,5]: each output axis is full in one operand only.
  EXPECT_EQ(Sigs("mul", Descs({{4, 1}, {1, 5}})),
            (Strings{"x:S(0), y:B -> out:S(0)", "x:B, y:S(1) -> out:S(1)", "x:P, y:B -> out:P",
                     "x:B, y:P -> out:P", "x:B, y:B -> out:B"}));
  // Size-1 output axes are never split: [1,3] + [1,3] only splits axis 1.
  EXPECT_EQ(Sigs("div", Descs({{1, 3}, {1, 3}})),
            (Strings{"x:S(1), y:S(1) -> out:S(1)", "x:P, y:B -> out:P", "x:B, y:B -> out:B"}));
}

TEST(BinaryTest, PartialRules) {
  const Strings splits = {"x:S(0), y:S(0) -> out:S(0)"};
  EXPECT_EQ(Sigs("add", Descs({{4}, {4}})),
            Concat(splits, {"x:P, y:P -> out:P", "x:P(max), y:B -> out:P(max)",
                            "x:B, y:P(max) -> out:P(max)", "x:P(min), y:B -> out:P(min)",
                            "x:B, y:P(min) -> out:P(min)", "x:B, y:B -> out:B"}));
  // x - y is non-increasing in y: a P(max) subtrahend gives P(min).
  EXPECT_EQ(Sigs("sub", Descs({{4}, {4}})),
            Concat(splits, {"x:P, y:P -> out:P", "x:P(max), y:B -> out:P(max)",
                            "x:P(min), y:B -> out:P(min)", "x:B, y:P(max) -> out:P(min)",
                            "x:B, y:P(min) -> out:P(max)", "x:B, y:B -> out:B"}));
  EXPECT_EQ(Sigs("mul", Descs({{4}, {4}})),
            Concat(splits, {"x:P, y:B -> out:P", "x:B, y:P -> out:P", "x:B, y:B -> out:B"}));
  EXPECT_EQ(Sigs("div", Descs({{4}, {4}})),
            Concat(splits, {"x:P, y:B -> out:P", "x:B, y:B -> out:B"}));
  // Integer division truncates per rank: no P.
  EXPECT_EQ(Sigs("div", Descs({{4}, {4}}, DType::kI64)), Concat(splits, {"x:B, y:B -> out:B"}));
  EXPECT_EQ(Sigs("maximum", Descs({{4}, {4}})),
            Concat(splits, {"x:P(max), y:P(max) -> out:P(max)", "x:P(max), y:B -> out:P(max)",
                            "x:B, y:P(max) -> out:P(max)", "x:P(min), y:B -> out:P(min)",
                            "x:B, y:P(min) -> out:P(min)", "x:B, y:B -> out:B"}));
  EXPECT_EQ(Sigs("minimum", Descs({{4}, {4}})),
            Concat(splits, {"x:P(min), y:P(min) -> out:P(min)", "x:P(min), y:B -> out:P(min)",
                            "x:B, y:P(min) -> out:P(min)", "x:P(max), y:B -> out:P(max)",
                            "x:B, y:P(max) -> out:P(max)", "x:B, y:B -> out:B"}));
}

TEST(AbsTest, ShapesAndSplitsOnly) {
  // Every numeric dtype; the shape and dtype pass through.
  for (DType t : {DType::kF32, DType::kF64, DType::kI32, DType::kI64}) {
    auto r = InferShapes("abs", Descs({{2, 3}}, t));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)[0].shape, Shape({2, 3}));
    EXPECT_EQ((*r)[0].dtype, t);
  }
  EXPECT_EQ(ShapeError("abs", Descs({{2}, {2}})), "abs: takes 1 input but got 2");
  // |.| is neither monotone nor linear: locals {-3, -1} under P(max) hold -1 (|.| = 1)
  // but max(|-3|, |-1|) = 3; under P, |-1 + 1| = 0 but |-1| + |1| = 2. Splits and B only.
  EXPECT_EQ(Sigs("abs", Descs({{2, 3}})), Concat(kSplits2d, {"x:B -> out:B"}));
  EXPECT_EQ(Sigs("abs", Descs({{}})), (Strings{"x:B -> out:B"}));
  // Uneven and 3-d: one split per axis.
  EXPECT_EQ(Sigs("abs", Descs({{5, 1, 7}})), (Strings{"x:S(0) -> out:S(0)", "x:S(1) -> out:S(1)",
                                                      "x:S(2) -> out:S(2)", "x:B -> out:B"}));
}

TEST(PowTest, BroadcastShapesFloatingOnly) {
  struct Case {
    Shape x, y, out;
  } cases[] = {
      {{2, 3}, {2, 3}, {2, 3}},       {{2, 3}, {3}, {2, 3}}, {{3}, {2, 3}, {2, 3}},
      {{4, 1, 3}, {2, 1}, {4, 2, 3}}, {{}, {2, 3}, {2, 3}},  {{0, 3}, {1, 3}, {0, 3}},
  };
  for (DType t : {DType::kF32, DType::kF64}) {
    for (const Case& c : cases) {
      auto r = InferShapes("pow", Descs({c.x, c.y}, t));
      ASSERT_TRUE(r.ok()) << c.x.ToString() << " " << c.y.ToString() << ": "
                          << r.status().ToString();
      EXPECT_EQ((*r)[0].shape, c.out);
      EXPECT_EQ((*r)[0].dtype, t);
    }
  }
  EXPECT_EQ(ShapeError("pow", Descs({{2}, {2}}, DType::kI32)),
            "pow: input \"x\" has dtype i32; expected a floating type (f32, f64, f16, bf16)");
  EXPECT_EQ(ShapeError("pow", {{{2}, DType::kF32}, {{2}, DType::kF64}}),
            "pow: input \"y\" has dtype f64 but \"x\" has f32");
  EXPECT_EQ(ShapeError("pow", Descs({{2, 3}, {4}})),
            "pow: inputs \"x\" [2,3] and \"y\" [4] do not broadcast: output axis 1 has 3 in x and "
            "4 in y");
}

TEST(PowTest, SplitsLikeBinaryOpsNoPartials) {
  // (1 + 1)^2 != 1^2 + 1^2 and x^2 is not monotone: no P, P(max) or P(min), in either
  // operand.
  EXPECT_EQ(Sigs("pow", Descs({{4}, {4}})),
            (Strings{"x:S(0), y:S(0) -> out:S(0)", "x:B, y:B -> out:B"}));
  EXPECT_EQ(
      Sigs("pow", Descs({{2, 3}, {3}})),
      (Strings{"x:S(0), y:B -> out:S(0)", "x:S(1), y:S(0) -> out:S(1)", "x:B, y:B -> out:B"}));
  EXPECT_EQ(Sigs("pow", Descs({{4, 1}, {1, 5}})),
            (Strings{"x:S(0), y:B -> out:S(0)", "x:B, y:S(1) -> out:S(1)", "x:B, y:B -> out:B"}));
}

TEST(AddNTest, ShapesSignaturesAndErrors) {
  auto r = InferShapes("add_n", Descs({{2, 3}, {2, 3}, {2, 3}}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].shape, Shape({2, 3}));
  EXPECT_EQ(Sigs("add_n", Descs({{2, 3}, {2, 3}, {2, 3}})),
            (Strings{"in[0]:S(0), in[1]:S(0), in[2]:S(0) -> out:S(0)",
                     "in[0]:S(1), in[1]:S(1), in[2]:S(1) -> out:S(1)",
                     "in[0]:P, in[1]:P, in[2]:P -> out:P", "in[0]:B, in[1]:B, in[2]:B -> out:B"}));
  EXPECT_EQ(
      ShapeError("add_n", Descs({{2, 3}})),
      "add_n: input \"in\" repeats at least 2 times but the call gives it 1 (1 inputs in all)");
  EXPECT_EQ(
      ShapeError("add_n", Descs({{2, 3}, {3}})),
      "add_n: input \"in[1]\" has shape [3] but \"in[0]\" has [2,3]; add_n does not broadcast");
}

}  // namespace
}  // namespace op
}  // namespace tessera
