// The closed forms both sides of the training benchmarks use (torch_bench.py repeats
// them in numpy: keep the two in step), and small helpers of train_bench.cc.
#ifndef TESSERA_BENCH_TRAIN_COMMON_H_
#define TESSERA_BENCH_TRAIN_COMMON_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/common/status.h"

namespace tessera::train_bench {

constexpr double kLr = 1e-3, kWeightDecay = 0.01;   // AdamW; betas 0.9 / 0.999, eps 1e-8
constexpr int kBatches = 4;                         // distinct batches, cycled
constexpr int64_t kBucketBytes = int64_t{1} << 20;  // dp's fused buckets
constexpr int kAdamWTensors = 100;

// Parameter `k` of `n` elements (row-major, [fan_in, fan_out] for a weight):
// cos(0.9 i + 2.1 k) / sqrt(fan_in), or 0.1 cos(0.9 i + 2.1 k) for a bias (fan_in 0).
inline std::vector<float> Init(int64_t k, int64_t n, int64_t fan_in) {
  const double scale = fan_in > 0 ? 1 / std::sqrt(static_cast<double>(fan_in)) : 0.1;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(scale * std::cos(0.9 * i + 2.1 * k));
  return v;
}
// Batch `b`'s inputs (n elements, row-major [batch, in]) and labels.
inline std::vector<float> BatchInputs(int b, int64_t n) {
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(std::sin(0.37 * i + 1.3 * (b + 1)));
  return x;
}
inline std::vector<int32_t> BatchLabels(int b, int64_t batch, int64_t classes) {
  std::vector<int32_t> y(batch);
  for (int64_t i = 0; i < batch; ++i) y[i] = static_cast<int32_t>((i * 7 + (b + 1) * 3) % classes);
  return y;
}
// The AdamW benchmark's tensor `k`: every fourth a vector, the others matrices.
inline std::vector<int64_t> AdamWShape(int k) {
  if (k % 4 == 3) return {256 + 8 * k};
  return {32 + (k * 37) % 224, 32 + (k * 53) % 224};
}
inline std::vector<float> PresetGrad(int k, int64_t n) {
  std::vector<float> g(n);
  for (int64_t i = 0; i < n; ++i) g[i] = static_cast<float>(0.01 * std::sin(0.37 * i + 0.1 * k));
  return g;
}

inline double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
// This process's CPU seconds (every thread): a side that spins while it waits burns
// cores the other ranks need on an oversubscribed machine.
inline double CpuNow() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }
inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// run.sh alternates the two sides round by round while both programs stay started (a
// torch start costs a minute on this machine): every rank waits for the file
// SYNC/go.<side>.<round> (sleeping, so the waiting side leaves the cores to the running
// one), and rank 0 writes SYNC/done.<side>.<round> when the round is over. No SYNC
// (empty): no waiting. Before the first round rank 0 writes SYNC/done.<side>.ready, so
// that no round runs while the other side still starts.
inline void WaitTurn(const std::string& sync, const char* side, int round) {
  if (sync.empty()) return;
  const std::string go = sync + "/go." + side + "." + std::to_string(round);
  while (!std::ifstream(go).good()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}
inline void EndTurn(const std::string& sync, const char* side, const std::string& round, int rank) {
  if (sync.empty() || rank != 0) return;
  std::ofstream(sync + "/done." + side + "." + round) << "\n";
}

inline void Check(const Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  std::exit(1);
}
template <typename T>
T Must(Result<T> r, const char* what) {
  Check(r.status(), what);
  return std::move(r).value();
}

}  // namespace tessera::train_bench

#endif  // TESSERA_BENCH_TRAIN_COMMON_H_
