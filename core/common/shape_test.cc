#include "core/common/shape.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(ShapeTest, Basics) {
  Shape s{6, 5};
  EXPECT_EQ(s.ndim(), 2);
  EXPECT_EQ(s.num_elements(), 30);
  EXPECT_EQ(s.ToString(), "[6,5]");
  EXPECT_EQ(Shape().ToString(), "[]");
  EXPECT_EQ(Shape().num_elements(), 1);
  EXPECT_EQ((Shape{0, 3}).num_elements(), 0);
}

TEST(ShapeTest, EqualityAndHash) {
  EXPECT_EQ((Shape{2, 3}), (Shape{2, 3}));
  EXPECT_NE((Shape{2, 3}), (Shape{3, 2}));
  EXPECT_NE((Shape{2}), (Shape{2, 1}));
  EXPECT_EQ((Shape{2, 3}).Hash(), (Shape{2, 3}).Hash());
  EXPECT_NE((Shape{2, 3}).Hash(), (Shape{3, 2}).Hash());
}

TEST(ShapeTest, MakeRejectsBadDims) {
  int64_t neg[] = {3, -1};
  Result<Shape> r = Shape::Make(neg, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "shape dim 1 is -1; dims must be >= 0");
  int64_t many[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  r = Shape::Make(many, 9);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("at most 8"), std::string::npos);
  r = Shape::Make(nullptr, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Shape::Make(nullptr, 0).ok());
}

}  // namespace
}  // namespace tessera
