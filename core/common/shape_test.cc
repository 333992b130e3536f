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

TEST(ShapeTest, MakeRejectsOverflowingElementCount) {
  const int64_t big = (int64_t{1} << 62) + 1;
  int64_t dims[] = {big, 4};
  Result<Shape> r = Shape::Make(dims, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "shape [4611686018427387905,4]: the element count overflows int64 (the product of "
            "the nonzero dims must be at most 2^63-1)");
  // A zero dim does not hide an overflowing remainder (a reduction over it would not).
  int64_t with_zero[] = {0, big, 4};
  EXPECT_FALSE(Shape::Make(with_zero, 3).ok());
  int64_t fits[] = {int64_t{1} << 62};
  ASSERT_TRUE(Shape::Make(fits, 1).ok());
  EXPECT_EQ(Shape::Make(fits, 1)->num_elements(), int64_t{1} << 62);
  int64_t max_fits[] = {int64_t{1} << 31, (int64_t{1} << 31) - 1, 2};
  EXPECT_TRUE(Shape::Make(max_fits, 3).ok());
}

TEST(ShapeTest, CheckByteSize) {
  Shape s{int64_t{1} << 62};
  Status st = s.CheckByteSize(4, "f32");
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "shape [4611686018427387904] of f32 has 4611686018427387904 elements of 4 bytes: the "
            "byte size overflows int64 (at most 2^63-1 bytes)");
  EXPECT_TRUE((Shape{int64_t{1} << 60}).CheckByteSize(4, "f32").ok());
  EXPECT_FALSE((Shape{int64_t{1} << 60}).CheckByteSize(8, "f64").ok());
  EXPECT_TRUE((Shape{6, 5}).CheckByteSize(8, "f64").ok());
}

}  // namespace
}  // namespace tessera
