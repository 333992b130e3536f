#include "kernels/cpu/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// A row-major matrix stored with `ld` >= cols elements per row; the padding holds a sentinel
// so a test can see that nothing wrote past a row.
template <typename T>
struct Matrix {
  int64_t rows, cols, ld;
  std::vector<T> data;
  T& at(int64_t i, int64_t j) { return data[i * ld + j]; }
  T at(int64_t i, int64_t j) const { return data[i * ld + j]; }
};

constexpr double kSentinel = 1e30;

template <typename T>
Matrix<T> Random(int64_t rows, int64_t cols, int64_t padding, std::mt19937* rng) {
  Matrix<T> m{rows, cols, cols + padding, std::vector<T>(rows * (cols + padding), kSentinel)};
  std::uniform_real_distribution<T> dist(-1, 1);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) m.at(i, j) = dist(*rng);
  }
  return m;
}

// Element (i, j) of op(X): independent of BLAS, straight from the definition.
template <typename T>
T Op(const Matrix<T>& x, Transpose transpose, int64_t i, int64_t j) {
  return transpose == Transpose::kYes ? x.at(j, i) : x.at(i, j);
}

template <typename T>
void CheckAgainstNaiveLoops(int64_t m, int64_t n, int64_t k, Transpose ta, Transpose tb,
                            T tolerance) {
  SCOPED_TRACE("m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
               " ta=" + std::to_string(ta == Transpose::kYes) +
               " tb=" + std::to_string(tb == Transpose::kYes));
  std::mt19937 rng(static_cast<uint32_t>(m * 10007 + n * 101 + k));
  // Odd paddings: strides differ from column counts, as for a sub-matrix view.
  Matrix<T> a = ta == Transpose::kYes ? Random<T>(k, m, 3, &rng) : Random<T>(m, k, 3, &rng);
  Matrix<T> b = tb == Transpose::kYes ? Random<T>(n, k, 1, &rng) : Random<T>(k, n, 1, &rng);
  Matrix<T> c = Random<T>(m, n, 2, &rng);
  const T alpha = 1.5, beta = -0.5;

  Matrix<T> expected = c;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += Op(a, ta, i, p) * Op(b, tb, p, j);
      expected.at(i, j) = alpha * sum + beta * c.at(i, j);
    }
  }

  Status status = Gemm(ta, tb, m, n, k, alpha, a.data.data(), a.ld, b.data.data(), b.ld, beta,
                       c.data.data(), c.ld);
  ASSERT_TRUE(status.ok()) << status.ToString();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < c.ld; ++j) {
      // Padding (j >= n) must still hold the sentinel, which `expected` copied.
      EXPECT_NEAR(c.at(i, j), expected.at(i, j), tolerance) << "at (" << i << ", " << j << ")";
    }
  }
}

TEST(GemmTest, F32MatchesNaiveLoopsForEveryTransposition) {
  for (Transpose ta : {Transpose::kNo, Transpose::kYes}) {
    for (Transpose tb : {Transpose::kNo, Transpose::kYes}) {
      CheckAgainstNaiveLoops<float>(3, 7, 5, ta, tb, 1e-5f);
      CheckAgainstNaiveLoops<float>(1, 1, 1, ta, tb, 1e-6f);
      CheckAgainstNaiveLoops<float>(17, 13, 33, ta, tb, 1e-4f);
    }
  }
}

TEST(GemmTest, F64MatchesNaiveLoopsForEveryTransposition) {
  for (Transpose ta : {Transpose::kNo, Transpose::kYes}) {
    for (Transpose tb : {Transpose::kNo, Transpose::kYes}) {
      CheckAgainstNaiveLoops<double>(3, 7, 5, ta, tb, 1e-13);
      CheckAgainstNaiveLoops<double>(1, 1, 1, ta, tb, 1e-14);
      CheckAgainstNaiveLoops<double>(17, 13, 33, ta, tb, 1e-12);
    }
  }
}

TEST(GemmTest, BetaZeroIgnoresUninitializedC) {
  const float a[] = {1, 2, 3, 4, 5, 6};  // 2x3
  const float b[] = {1, 0, 0, 1, 1, 1};  // 3x2
  float c[4];
  std::fill(c, c + 4, std::numeric_limits<float>::quiet_NaN());
  ASSERT_TRUE(Gemm(Transpose::kNo, Transpose::kNo, 2, 2, 3, 1.0f, a, 3, b, 2, 0.0f, c, 2).ok());
  // Row i of A times the columns of B: (a0 + a2, a1 + a2).
  EXPECT_EQ(c[0], 4.0f);
  EXPECT_EQ(c[1], 5.0f);
  EXPECT_EQ(c[2], 10.0f);
  EXPECT_EQ(c[3], 11.0f);
}

TEST(GemmTest, EmptyInnerDimensionOnlyScalesC) {
  double c[] = {2, 4, 6};
  ASSERT_TRUE(
      Gemm(Transpose::kNo, Transpose::kNo, 1, 3, 0, 1.0, nullptr, 1, nullptr, 3, 0.5, c, 3).ok());
  EXPECT_EQ(c[0], 1.0);
  EXPECT_EQ(c[1], 2.0);
  EXPECT_EQ(c[2], 3.0);
}

TEST(GemmTest, EmptyOutputIsANoOp) {
  // m = 0: A and C are empty and may be null; B (3x4) is not empty and must be given.
  const float b[12] = {};
  EXPECT_TRUE(
      Gemm(Transpose::kNo, Transpose::kNo, 0, 4, 3, 1.0f, nullptr, 3, b, 4, 0.0f, nullptr, 4).ok());
}

TEST(GemmTest, NegativeSizeIsInvalidAndNamed) {
  float x = 0;
  Status s = Gemm(Transpose::kNo, Transpose::kNo, 2, -3, 1, 1.0f, &x, 1, &x, 1, 0.0f, &x, 1);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("n=-3 is outside"), std::string::npos) << s.message();
}

TEST(GemmTest, SizeBeyondBlasIntIsInvalid) {
  double x = 0;
  const int64_t huge = int64_t{1} << 40;
  Status s = Gemm(Transpose::kNo, Transpose::kNo, huge, 1, 1, 1.0, &x, 1, &x, 1, 0.0, &x, 1);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("m=" + std::to_string(huge)), std::string::npos) << s.message();
}

TEST(GemmTest, ShortStridesAreInvalidAndNamed) {
  std::vector<float> x(64);
  // A is 3x5 untransposed: lda must be >= 5.
  Status a = Gemm(Transpose::kNo, Transpose::kNo, 3, 7, 5, 1.0f, x.data(), 4, x.data(), 7, 0.0f,
                  x.data(), 7);
  EXPECT_EQ(a.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(a.message().find("lda=4 is less than max(1, 5)"), std::string::npos) << a.message();

  // Transposed, A is stored 5x3: lda=4 is enough, but B stored 7x5 needs ldb >= 5.
  Status b = Gemm(Transpose::kYes, Transpose::kYes, 3, 7, 5, 1.0f, x.data(), 4, x.data(), 3, 0.0f,
                  x.data(), 7);
  EXPECT_EQ(b.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(b.message().find("ldb=3 is less than max(1, 5)"), std::string::npos) << b.message();

  Status c = Gemm(Transpose::kNo, Transpose::kNo, 3, 7, 5, 1.0f, x.data(), 5, x.data(), 7, 0.0f,
                  x.data(), 6);
  EXPECT_EQ(c.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.message().find("ldc=6 is less than max(1, 7)"), std::string::npos) << c.message();
}

TEST(GemmTest, NullOperandIsInvalidAndNamed) {
  double x[4] = {};
  Status s = Gemm(Transpose::kNo, Transpose::kNo, 2, 2, 2, 1.0, x, 2, nullptr, 2, 0.0, x, 2);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("b is null"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("m=2, n=2, k=2"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
