// ParallelCopy (core/device/host_copy.h, the host side of the pinned staging's pageable
// copies) against one memcpy of the same bytes on the calling thread, measured in the
// same run (these machines are shared and noisy), for 4 MiB (one staging chunk) and
// 256 MiB, at 2, 4 and 8 threads (the caller included) where the machine has that many
// hardware threads. Source and destination are touched once before timing, so page
// faults stay out of the samples. Samples alternate ABBA; medians are reported, as JSON
// lines: {"bench": ..., "value": GB/s, "unit": "GB/s", "baseline": memcpy GB/s, "ratio":
// value/baseline}.
// Usage: host_copy_bench [SCALE]   (SCALE times the samples)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bench/common/timing.h"
#include "core/device/host_copy.h"

namespace tessera::device {
namespace {

using bench::Median;
using bench::Seconds;

void Run(int scale) {
  const int hardware = static_cast<int>(std::thread::hardware_concurrency());
  struct Size {
    const char* label;
    size_t bytes;
    int samples;
  };
  const Size sizes[] = {{"4MiB", size_t{4} << 20, 201}, {"256MiB", size_t{256} << 20, 15}};
  for (const Size& size : sizes) {
    std::vector<char> src(size.bytes, 1), dst(size.bytes, 0);
    for (int threads : {2, 4, 8}) {
      if (threads > hardware) continue;
      if (!SetCopyThreads(threads).ok()) std::abort();
      auto parallel = [&] { ParallelCopy(dst.data(), src.data(), size.bytes); };
      auto alone = [&] { std::memcpy(dst.data(), src.data(), size.bytes); };
      auto time = [](auto& fn) {
        const double start = Seconds();
        fn();
        return Seconds() - start;
      };
      for (int w = 0; w < 3; ++w) {
        time(parallel);
        time(alone);
      }
      std::vector<double> p, a;
      for (int i = 0; i < size.samples * scale; ++i) {
        if (i % 2 == 0) {
          p.push_back(time(parallel));
          a.push_back(time(alone));
        } else {
          a.push_back(time(alone));
          p.push_back(time(parallel));
        }
      }
      const double gb = static_cast<double>(size.bytes) / 1e9;
      const double value = gb / Median(p), baseline = gb / Median(a);
      std::printf(
          "{\"bench\": \"host_copy/%s/threads%d\", \"value\": %.2f, \"unit\": \"GB/s\", "
          "\"baseline\": %.2f, \"ratio\": %.3f}\n",
          size.label, threads, value, baseline, value / baseline);
      std::fflush(stdout);
    }
  }
  if (!SetCopyThreads(1).ok()) std::abort();
}

}  // namespace
}  // namespace tessera::device

int main(int argc, char** argv) {
  const int scale = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
  tessera::device::Run(scale);
  return 0;
}
