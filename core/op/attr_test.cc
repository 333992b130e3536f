#include "core/op/attr.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tessera {
namespace op {
namespace {

TEST(AttrTest, ValuesPrintAndCompare) {
  EXPECT_EQ(AttrValue::Int(-3).ToString(), "-3");
  EXPECT_EQ(AttrValue::Float(0.5).ToString(), "0.5");
  EXPECT_EQ(AttrValue::Bool(true).ToString(), "true");
  EXPECT_EQ(AttrValue::Ints({0, 2}).ToString(), "[0,2]");
  EXPECT_EQ(AttrValue::OfDType(DType::kF64).ToString(), "f64");
  EXPECT_EQ(AttrValue::Int(1), AttrValue::Int(1));
  EXPECT_NE(AttrValue::Int(1), AttrValue::Float(1));  // types differ
  EXPECT_EQ(AttrValue::Float(std::nan("")), AttrValue::Float(std::nan("")));
  EXPECT_EQ(AttrValue::Float(std::nan("")).Hash(), AttrValue::Float(std::nan("")).Hash());
  EXPECT_EQ(AttrValue::Ints({1, 2}).type(), AttrType::kInts);
}

TEST(AttrTest, MapIsOrderIndependent) {
  AttrMap a;
  a.Set("keepdims", AttrValue::Bool(true)).Set("axes", AttrValue::Ints({1}));
  AttrMap b{{"axes", AttrValue::Ints({1})}, {"keepdims", AttrValue::Bool(true)}};
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.Hash(), b.Hash());
  EXPECT_EQ(a.ToString(), "{axes=[1], keepdims=true}");
  b.Set("keepdims", AttrValue::Bool(false));  // replaces
  EXPECT_EQ(b.size(), 2u);
  EXPECT_NE(a, b);
  EXPECT_EQ(b.Find("keepdims")->bool_value(), false);
  EXPECT_EQ(b.Find("nope"), nullptr);
  EXPECT_EQ(AttrMap().ToString(), "{}");
}

}  // namespace
}  // namespace op
}  // namespace tessera
