#include <gtest/gtest.h>

#include "core/op/op_test_util.h"

namespace tessera {
namespace op {
namespace {

using Strings = std::vector<std::string>;

TEST(MatmulTest, Shapes) {
  auto r = InferShapes("matmul", Descs({{4, 5}, {5, 3}}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape, Shape({4, 3}));
  EXPECT_EQ((*r)[0].dtype, DType::kF32);
  // transpose_a reads a [5,4] as [4,5]; transpose_b reads b [3,5] as [5,3].
  r = InferShapes("matmul", Descs({{5, 4}, {3, 5}}),
                  {{"transpose_a", AttrValue::Bool(true)}, {"transpose_b", AttrValue::Bool(true)}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape, Shape({4, 3}));
}

TEST(MatmulTest, BadShapes) {
  EXPECT_EQ(ShapeError("matmul", Descs({{2, 4}, {5, 3}})),
            "matmul: input \"b\" has shape [5,3] with 5 rows but \"a\" has 4 columns");
  EXPECT_EQ(ShapeError("matmul", Descs({{4, 2}, {5, 3}}), {{"transpose_a", AttrValue::Bool(true)}}),
            "matmul: input \"b\" has shape [5,3] with 5 rows but \"a\" has 4 columns (shape "
            "[4,2], transpose_a)");
  EXPECT_EQ(ShapeError("matmul", Descs({{4}, {4, 3}})),
            "matmul: input \"a\" has shape [4] (1 dims); expected at least 2 dims");
  EXPECT_EQ(ShapeError("matmul", Descs({{2, 4, 4}, {2, 4, 3}})),
            "matmul: input \"b\" has shape [2,4,3] (3 dims); expected 2 dims");
  EXPECT_EQ(ShapeError("matmul", Descs({{2, 4, 4}, {5, 3}})),
            "matmul: input \"b\" has shape [5,3] with 5 rows but \"a\" has 4 columns");
  EXPECT_EQ(ShapeError("matmul", {{{2, 4}, DType::kF32}, {{4, 3}, DType::kF64}}),
            "matmul: input \"b\" has dtype f64 but \"a\" has f32");
  EXPECT_EQ(ShapeError("matmul", Descs({{2, 4}, {4, 3}}), {{"transpose", AttrValue::Bool(true)}}),
            "matmul: unknown attribute \"transpose\"; known attributes: transpose_a, transpose_b");
  EXPECT_EQ(ShapeError("matmul", Descs({{2, 4}})), "matmul: takes 2 inputs but got 1");
}

// The five rules of 001_*.txt plus the automatic all-B, in declared order.
TEST(MatmulTest, SignatureTable) {
  auto s = Signatures("matmul", Descs({{4, 5}, {5, 3}}));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(
      *s, (Strings{"a:S(0), b:B -> out:S(0)", "a:B, b:S(1) -> out:S(1)", "a:S(1), b:S(0) -> out:P",
                   "a:P, b:B -> out:P", "a:B, b:P -> out:P", "a:B, b:B -> out:B"}));
}

TEST(MatmulTest, ThreeDimensionalABroadcastsB) {
  auto r = InferShapes("matmul", Descs({{2, 4, 5}, {5, 3}}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape, Shape({2, 4, 3}));
  // a's batch axis splits with out's, b whole; then the matrix rules on the last axes.
  EXPECT_EQ(Sigs("matmul", Descs({{2, 4, 5}, {5, 3}})),
            (Strings{"a:S(0), b:B -> out:S(0)", "a:S(1), b:B -> out:S(1)",
                     "a:B, b:S(1) -> out:S(2)", "a:S(2), b:S(0) -> out:P", "a:P, b:B -> out:P",
                     "a:B, b:P -> out:P", "a:B, b:B -> out:B"}));
  // transpose_a reads a [2,5,4] as [2,4,5].
  EXPECT_EQ(Sigs("matmul", Descs({{2, 5, 4}, {5, 3}}), {{"transpose_a", AttrValue::Bool(true)}}),
            (Strings{"a:S(0), b:B -> out:S(0)", "a:S(2), b:B -> out:S(1)",
                     "a:B, b:S(1) -> out:S(2)", "a:S(1), b:S(0) -> out:P", "a:P, b:B -> out:P",
                     "a:B, b:P -> out:P", "a:B, b:B -> out:B"}));
}

TEST(MatmulTest, SignaturesFollowTransposes) {
  // a is [k,m], b is [n,k]: m is a's axis 1, k is a's axis 0 and b's axis 1, n is
  // b's axis 0.
  auto s =
      Signatures("matmul", Descs({{5, 4}, {3, 5}}),
                 {{"transpose_a", AttrValue::Bool(true)}, {"transpose_b", AttrValue::Bool(true)}});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(
      *s, (Strings{"a:S(1), b:B -> out:S(0)", "a:B, b:S(0) -> out:S(1)", "a:S(0), b:S(1) -> out:P",
                   "a:P, b:B -> out:P", "a:B, b:P -> out:P", "a:B, b:B -> out:B"}));
}

TEST(BatchMatmulTest, ShapesAndErrors) {
  auto r = InferShapes("batch_matmul", Descs({{2, 4, 5}, {2, 5, 3}}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape, Shape({2, 4, 3}));
  r = InferShapes("batch_matmul", Descs({{2, 5, 4}, {2, 5, 3}}),
                  {{"transpose_a", AttrValue::Bool(true)}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape, Shape({2, 4, 3}));
  EXPECT_EQ(ShapeError("batch_matmul", Descs({{2, 4, 5}, {3, 5, 3}})),
            "batch_matmul: input \"b\" has shape [3,5,3] but \"a\" has [2,4,5]: batch axis 0 "
            "differs (3 vs 2)");
  EXPECT_EQ(ShapeError("batch_matmul", Descs({{2, 4, 5}, {5, 3}})),
            "batch_matmul: input \"b\" has shape [5,3] (2 dims) but \"a\" has shape [2,4,5] (3 "
            "dims); batch_matmul needs equal ranks");
  EXPECT_EQ(ShapeError("batch_matmul", Descs({{4, 5}, {5, 3}})),
            "batch_matmul: input \"a\" has shape [4,5] (2 dims); expected at least 3 dims");
  EXPECT_EQ(ShapeError("batch_matmul", Descs({{2, 4, 5}, {2, 4, 3}})),
            "batch_matmul: input \"b\" has shape [2,4,3] with 4 rows but \"a\" has 5 columns");
}

TEST(BatchMatmulTest, Signatures) {
  // Batch axis 0 split everywhere, then the matmul rules on axes 1 and 2.
  auto s = Signatures("batch_matmul", Descs({{2, 4, 5}, {2, 5, 3}}));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s, (Strings{"a:S(0), b:S(0) -> out:S(0)", "a:S(1), b:B -> out:S(1)",
                         "a:B, b:S(2) -> out:S(2)", "a:S(2), b:S(1) -> out:P", "a:P, b:B -> out:P",
                         "a:B, b:P -> out:P", "a:B, b:B -> out:B"}));
}

}  // namespace
}  // namespace op
}  // namespace tessera
