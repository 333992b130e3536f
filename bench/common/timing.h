// What single-process benchmarks share: a monotonic clock in seconds and the median of
// samples (the middle one, or the mean of the two middle ones for an even count).
#ifndef TESSERA_BENCH_COMMON_TIMING_H_
#define TESSERA_BENCH_COMMON_TIMING_H_

#include <algorithm>
#include <chrono>
#include <vector>

namespace tessera::bench {

inline double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_COMMON_TIMING_H_
