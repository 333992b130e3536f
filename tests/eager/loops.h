// Plain-loop oracles shared by the eager tests: logical values every rank builds
// itself, and the ops computed on them directly.
#ifndef TESSERA_TESTS_EAGER_LOOPS_H_
#define TESSERA_TESTS_EAGER_LOOPS_H_

#include <cstdint>
#include <vector>

namespace tessera {
namespace eager_test {

// Small multiples of `scale` (a power of two), so f32 sums of products are exact in
// any order.
inline std::vector<float> Iota(int64_t n, float scale = 0.25f) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7) % 23 - 11) * scale;
  return v;
}

// a [n,k] @ b [k,m], row-major, plus bias[j] on every row when `bias` is not empty.
inline std::vector<float> MatmulLoops(const std::vector<float>& a, const std::vector<float>& b,
                                      int64_t n, int64_t k, int64_t m,
                                      const std::vector<float>& bias = {}) {
  std::vector<float> out(n * m, 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      float acc = bias.empty() ? 0.0f : bias[j];
      for (int64_t p = 0; p < k; ++p) acc += a[i * k + p] * b[p * m + j];
      out[i * m + j] = acc;
    }
  }
  return out;
}

// The sums of the rows of x [rows, cols].
inline std::vector<float> RowSumLoops(const std::vector<float>& x, int64_t rows, int64_t cols) {
  std::vector<float> out(rows, 0.0f);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) out[i] += x[i * cols + j];
  }
  return out;
}

inline std::vector<float> ReluLoops(std::vector<float> v) {
  for (float& x : v) x = x > 0 ? x : 0.0f;
  return v;
}

}  // namespace eager_test
}  // namespace tessera

#endif  // TESSERA_TESTS_EAGER_LOOPS_H_
