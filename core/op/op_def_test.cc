#include "core/op/op_def.h"

#include <gtest/gtest.h>

#include "core/op/op_context.h"

namespace tessera {
namespace op {
namespace {

Status NoShape(OpContext*) { return Status::Ok(); }
void NoSigs(const OpContext&, SignatureList*) {}

OpDef Sample() {
  return OpDef("sample")
      .Input("w")
      .RepeatedInput("in", 1, 3)
      .Output("out")
      .Attr("alpha", AttrValue::Float(1))
      .RequiredAttr("axes", AttrType::kInts)
      .SetShapeFn(NoShape)
      .SetSignatureFn(NoSigs);
}

TEST(OpDefTest, ResolvesRepeatedInputCounts) {
  OpDef def = Sample();
  ASSERT_TRUE(def.Validate().ok());
  EXPECT_EQ(*def.ResolveInputCounts(3), (std::vector<int>{1, 2}));
  EXPECT_EQ(def.ResolveInputCounts(1).status().message(),
            "sample: input \"in\" repeats 1 to 3 times but the call gives it 0 (1 inputs in all)");
  EXPECT_EQ(def.ResolveInputCounts(5).status().message(),
            "sample: input \"in\" repeats 1 to 3 times but the call gives it 4 (5 inputs in all)");
  EXPECT_EQ(def.Signature(),
            "sample(w, in x 1+) -> (out); attrs: alpha: float = 1, axes: ints (required)");
}

TEST(OpDefTest, ValidatesAttrs) {
  OpDef def = Sample();
  EXPECT_TRUE(def.ValidateAttrs({{"axes", AttrValue::Ints({})}}).ok());
  EXPECT_EQ(def.ValidateAttrs({}).message(),
            "sample: required attribute \"axes\" (ints) is missing");
  EXPECT_EQ(def.ValidateAttrs({{"axes", AttrValue::Int(1)}}).message(),
            "sample: attribute \"axes\" must be ints but got int 1");
  EXPECT_EQ(def.ValidateAttrs({{"beta", AttrValue::Int(1)}}).message(),
            "sample: unknown attribute \"beta\"; known attributes: alpha, axes");
}

TEST(OpDefTest, ValidatesOneAttr) {
  OpDef def = Sample();
  EXPECT_TRUE(def.ValidateAttr("alpha", AttrValue::Float(2)).ok());
  // One attribute alone: a missing required one is not its concern.
  EXPECT_TRUE(def.ValidateAttr("axes", AttrValue::Ints({1})).ok());
  EXPECT_EQ(def.ValidateAttr("alpha", AttrValue::Bool(true)).message(),
            "sample: attribute \"alpha\" must be float but got bool true");
  EXPECT_EQ(def.ValidateAttr("gamma", AttrValue::Int(1)).message(),
            "sample: unknown attribute \"gamma\"; known attributes: alpha, axes");
}

TEST(OpDefTest, RejectsMalformedDefinitions) {
  EXPECT_EQ(OpDef("x").Input("a").SetSignatureFn(NoSigs).Validate().message(),
            "x: op definition has no shape function");
  EXPECT_EQ(Sample().RepeatedInput("more", 0).Validate().message(),
            "sample: more than one repeated input");
  EXPECT_EQ(Sample().Output("w").Validate().message(), "sample: argument \"w\" is declared twice");
}

TEST(OpContextTest, DefaultsAndSlotNames) {
  OpDef def = Sample();
  AttrMap attrs{{"axes", AttrValue::Ints({2})}};
  auto ctx =
      OpContext::Make(def, {{{2}, DType::kF32}, {{3}, DType::kF32}, {{4}, DType::kF32}}, attrs);
  ASSERT_TRUE(ctx.ok()) << ctx.status().ToString();
  EXPECT_EQ(ctx->Float("alpha"), 1.0);
  EXPECT_EQ(ctx->Ints("axes"), (std::vector<int64_t>{2}));
  EXPECT_EQ(ctx->input_count("in"), 2);
  EXPECT_EQ(ctx->input("in", 1).shape, Shape({4}));
  EXPECT_EQ(ctx->InputName(0), "w");
  EXPECT_EQ(ctx->InputName(2), "in[1]");
  EXPECT_EQ(ctx->OutputName(0), "out");
}

}  // namespace
}  // namespace op
}  // namespace tessera
