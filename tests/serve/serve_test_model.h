// The model every serving test and example serves (docs/serving.md, "The example
// model"): y = relu(x W1) W2 with x [rows, kIn], W1 [kIn, kHidden], W2 [kHidden, kOut],
// weights drawn from splitmix64(seed), laid out 2-d across the ranks: hierarchy
// [dp, mp] (dp = 2 when the world has 4 or more ranks and is even, else 1), x (S(0), B),
// W1 (B, S(1)), W2 (B, S(0)); the output leaves the plan as (S(0), P).
// Also the plain-loop reference the tests check answers against.
#ifndef TESSERA_TESTS_SERVE_SERVE_TEST_MODEL_H_
#define TESSERA_TESTS_SERVE_SERVE_TEST_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/tessera.h"

namespace tessera::serve_test {

inline constexpr int64_t kIn = 16, kHidden = 64, kOut = 8;

// splitmix64: each weight is (next >> 40) / 2^24 - 0.5, exact in f32.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  float NextWeight() { return static_cast<float>(Next() >> 40) / 16777216.0f - 0.5f; }

 private:
  uint64_t state_;
};

struct ModelWeights {
  std::vector<float> w1, w2;  // row-major
  explicit ModelWeights(uint64_t seed) {
    SplitMix64 g(seed);
    for (int64_t i = 0; i < kIn * kHidden; ++i) w1.push_back(g.NextWeight());
    for (int64_t i = 0; i < kHidden * kOut; ++i) w2.push_back(g.NextWeight());
  }
};

// The answer for `rows` rows of x, in double, rounded to f32.
inline std::vector<float> Reference(const ModelWeights& w, const std::vector<float>& x) {
  const int64_t rows = static_cast<int64_t>(x.size()) / kIn;
  std::vector<float> y(static_cast<size_t>(rows * kOut));
  std::vector<double> h(kHidden);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < kHidden; ++j) {
      double s = 0;
      for (int64_t k = 0; k < kIn; ++k) s += double(x[r * kIn + k]) * w.w1[k * kHidden + j];
      h[j] = s > 0 ? s : 0;
    }
    for (int64_t j = 0; j < kOut; ++j) {
      double s = 0;
      for (int64_t k = 0; k < kHidden; ++k) s += h[k] * w.w2[k * kOut + j];
      y[r * kOut + j] = static_cast<float>(s);
    }
  }
  return y;
}

// "cpu:[[0,1],[2,3]]" for the world's grid.
inline std::string GridPlacement(int world) {
  const int dp = (world >= 4 && world % 2 == 0) ? 2 : 1;
  const int mp = world / dp;
  std::string text = "cpu:[";
  for (int i = 0; i < dp; ++i) {
    text += i ? ",[" : "[";
    for (int j = 0; j < mp; ++j) text += (j ? "," : "") + std::to_string(i * mp + j);
    text += "]";
  }
  return text + "]";
}

}  // namespace tessera::serve_test

#endif  // TESSERA_TESTS_SERVE_SERVE_TEST_MODEL_H_
