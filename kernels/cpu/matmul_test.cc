// matmul and batch_matmul against triple loops in double over logical indices.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_test_util.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// out[b, i, j] = sum_p A[b, i, p] B[b, p, j] where A reads a as [k, m] when
// transposed, likewise B. `batch` leading dims are shared.
std::vector<double> MatmulRef(const HostTensor& a, const HostTensor& b, bool ta, bool tb,
                              const Shape& out) {
  const int nd = out.ndim();
  const int64_t k = a.shape().dim(ta ? nd - 2 : nd - 1);
  std::vector<double> v(static_cast<size_t>(out.num_elements()));
  for (int64_t e = 0; e < out.num_elements(); ++e) {
    std::vector<int64_t> idx = Unravel(e, out);
    const int64_t i = idx[nd - 2], j = idx[nd - 1];
    double sum = 0;
    for (int64_t p = 0; p < k; ++p) {
      // b may lack a's batch axes (matmul broadcasts a 2-d b): its index is the tail.
      std::vector<int64_t> ai = idx;
      std::vector<int64_t> bi(idx.end() - b.shape().ndim(), idx.end());
      const int bd = b.shape().ndim();
      ai[nd - 2] = ta ? p : i;
      ai[nd - 1] = ta ? i : p;
      bi[bd - 2] = tb ? j : p;
      bi[bd - 1] = tb ? p : j;
      sum += a.Get(Ravel(ai, a.shape())) * b.Get(Ravel(bi, b.shape()));
    }
    v[e] = sum;
  }
  return v;
}

// Shapes of a and b for logical sizes m, n, k and the transposes, after `batch` dims.
Shape Operand(const std::vector<int64_t>& batch, int64_t rows, int64_t cols, bool t) {
  std::vector<int64_t> dims = batch;
  dims.push_back(t ? cols : rows);
  dims.push_back(t ? rows : cols);
  return *Shape::Make(dims);
}

// b has the batch axes too unless `shared_b` (matmul's broadcast of a 2-d b).
void CheckMatmul(const char* op, const std::vector<int64_t>& batch, bool shared_b = false) {
  std::mt19937 rng(17);
  const int64_t sizes[][3] = {{3, 4, 5}, {1, 1, 1}, {17, 9, 33}, {0, 3, 2}, {3, 0, 2}, {3, 2, 0}};
  for (DType dt : AllTypes()) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        for (const auto& s : sizes) {
          const int64_t m = s[0], n = s[1], k = s[2];
          SCOPED_TRACE(std::string(op) + " " + DTypeName(dt) + " m=" + std::to_string(m) +
                       " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                       " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb));
          HostTensor a = Random(Operand(batch, m, k, ta), dt, &rng, -3, 3);
          HostTensor b =
              Random(Operand(shared_b ? std::vector<int64_t>{} : batch, k, n, tb), dt, &rng, -3, 3);
          AttrMap attrs{{"transpose_a", AttrValue::Bool(ta)}, {"transpose_b", AttrValue::Bool(tb)}};
          auto out = RunOp(op, {a, b}, attrs);
          ASSERT_TRUE(out.ok()) << out.status().ToString();
          // The output starts as NaN garbage, so k = 0 must write its zeros.
          ExpectValues((*out)[0], MatmulRef(a, b, ta, tb, (*out)[0].shape()),
                       dt == DType::kF32 ? 1e-4 : -1);
        }
      }
    }
  }
}

TEST(MatmulKernelTest, EveryTranspositionAndDtype) { CheckMatmul("matmul", {}); }

TEST(MatmulKernelTest, BatchMatmulOneAndTwoBatchAxes) {
  CheckMatmul("batch_matmul", {3});
  CheckMatmul("batch_matmul", {2, 2});
  CheckMatmul("batch_matmul", {0});
}

TEST(MatmulKernelTest, MatmulBroadcastsATwoDimensionalB) {
  CheckMatmul("matmul", {3}, /*shared_b=*/true);
  CheckMatmul("matmul", {2, 2}, /*shared_b=*/true);
  CheckMatmul("matmul", {0}, /*shared_b=*/true);
}

TEST(MatmulKernelTest, DefaultsAreNoTranspose) {
  HostTensor a = FromValues(Shape{1, 2}, DType::kF64, {1, 2});
  HostTensor b = FromValues(Shape{2, 1}, DType::kF64, {3, 4});
  ExpectValues((*RunOp("matmul", {a, b}))[0], {11});
}

TEST(MatmulKernelTest, BadCallsAreNamed) {
  HostTensor a(Shape{2, 3}, DType::kF32);
  HostTensor out(Shape{2, 2}, DType::kF32);
  EXPECT_EQ(ErrorOf("matmul", {a, HostTensor(Shape{4, 2}, DType::kF32)}, {}, {out}),
            "matmul: input \"b\" has shape [4,2] with 4 rows but \"a\" [2,3] has 3 columns");
  EXPECT_EQ(ErrorOf("matmul", {a, HostTensor(Shape{2, 4}, DType::kF32)},
                    {{"transpose_b", AttrValue::Bool(true)}}, {out}),
            "matmul: input \"b\" has shape [2,4] (transpose_b) with 4 rows but \"a\" [2,3] has 3 "
            "columns");
  EXPECT_EQ(ErrorOf("matmul", {a, HostTensor(Shape{3, 2}, DType::kF64)}, {}, {out}),
            "matmul: input \"b\" has dtype f64 but \"a\" has f32");
  EXPECT_EQ(ErrorOf("matmul", {a, HostTensor(Shape{2, 3, 1}, DType::kF32)}, {}, {out}),
            "matmul: inputs \"a\" [2,3] and \"b\" [2,3,1] must have rank >= 2 and rank 2");
  EXPECT_EQ(ErrorOf("matmul", {a, HostTensor(Shape{3, 2}, DType::kF32)}, {},
                    {HostTensor(Shape{2, 3}, DType::kF32)}),
            "matmul: output \"out\" is [2,3] f32 but the inputs give [2,2] f32");
  EXPECT_EQ(ErrorOf("matmul", {a, HostTensor(Shape{3, 2}, DType::kF32)},
                    {{"transpose_a", AttrValue::Int(1)}}, {out}),
            "matmul: attribute \"transpose_a\" is int 1; expected bool");
  EXPECT_EQ(
      ErrorOf("batch_matmul",
              {HostTensor(Shape{2, 2, 3}, DType::kF32), HostTensor(Shape{3, 3, 2}, DType::kF32)},
              {}, {HostTensor(Shape{2, 2, 2}, DType::kF32)}),
      "batch_matmul: input \"b\" has shape [3,3,2] but \"a\" has [2,2,3]: batch axis 0 "
      "differs");
  EXPECT_EQ(ErrorOf("batch_matmul", {a, HostTensor(Shape{3, 2}, DType::kF32)}, {}, {out}),
            "batch_matmul: inputs \"a\" [2,3] and \"b\" [3,2] must both have the same rank, at "
            "least 3");
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
