// Caching allocator latency, printed as JSON lines. Each figure is the median over kReps
// timed repetitions of the nanoseconds one allocate+free pair takes; the baseline is
// malloc+free of the same size, measured in the same run because these machines are shared
// and noisy. ratio = value / baseline (below 1: the cache is faster).
//   cached_alloc_free_4k / _1m        HostCachingAllocator(), warm
//   system_alloc_free_4k / _1m        SystemHostAllocator (posix_memalign + live table)
//   cached_mixed_64                   a tensor-like working set: 64 live buffers of 512 B to
//                                     4 MiB, each page written once, then all freed; value
//                                     and baseline are ns per buffer
// The single-size pairs are glibc's best case (its thread cache hands the same chunk back);
// the mixed set adds what real use pays: pages that the system has to map again.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/memory/caching_allocator.h"
#include "core/memory/host_allocator.h"

namespace tessera {
namespace memory {
namespace {

constexpr int kReps = 7;

// Keeps the compiler from pairing a malloc with its free and deleting both.
void* volatile g_sink = nullptr;

// Median nanoseconds per call of fn over `iters` calls.
template <typename F>
double MedianNs(int iters, F&& fn) {
  std::vector<double> samples;
  for (int r = 0; r < kReps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) fn();
    const auto t1 = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / iters);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

void Print(const char* bench, double value, double baseline) {
  std::printf(
      "{\"bench\": \"%s\", \"value\": %.1f, \"unit\": \"ns\", \"baseline\": %.1f, "
      "\"ratio\": %.3f}\n",
      bench, value, baseline, value / baseline);
}

void Fail(const Status& s) {
  std::fprintf(stderr, "memory bench: %s\n", s.ToString().c_str());
  std::exit(1);
}

void Measure(Allocator& cached, Allocator& system, size_t bytes, const char* cached_name,
             const char* system_name) {
  auto cycle = [&](Allocator& allocator) {
    Result<void*> p = allocator.Allocate(bytes);
    if (!p.ok()) Fail(p.status());
    g_sink = *p;
    Status freed = allocator.Free(*p);
    if (!freed.ok()) Fail(freed);
  };
  constexpr int kIters = 200000;
  cycle(cached);  // warm: the first call makes the segment
  const double malloc_ns = MedianNs(kIters, [&] {
    void* p = std::malloc(bytes);
    g_sink = p;
    std::free(p);
  });
  const double cached_ns = MedianNs(kIters, [&] { cycle(cached); });
  const double system_ns = MedianNs(kIters, [&] { cycle(system); });
  Print(cached_name, cached_ns, malloc_ns);
  Print(system_name, system_ns, malloc_ns);
}

void MeasureMixed(Allocator& cached) {
  constexpr int kBuffers = 64;
  constexpr size_t kPage = 4096;
  const size_t pattern[8] = {4096, 65536, 1 << 20, 4 << 20, 16384, 256 << 10, (2 << 20) + 37, 512};
  void* ptrs[kBuffers];
  auto touch = [&](void* p, size_t bytes) {
    char* c = static_cast<char*>(p);
    for (size_t i = 0; i < bytes; i += kPage) c[i] = 1;
  };
  auto with_malloc = [&] {
    for (int i = 0; i < kBuffers; ++i) {
      ptrs[i] = std::malloc(pattern[i % 8]);
      touch(ptrs[i], pattern[i % 8]);
    }
    for (int i = 0; i < kBuffers; ++i) std::free(ptrs[i]);
  };
  auto with_cache = [&] {
    for (int i = 0; i < kBuffers; ++i) {
      Result<void*> p = cached.Allocate(pattern[i % 8]);
      if (!p.ok()) Fail(p.status());
      ptrs[i] = *p;
      touch(ptrs[i], pattern[i % 8]);
    }
    for (int i = 0; i < kBuffers; ++i) {
      Status freed = cached.Free(ptrs[i]);
      if (!freed.ok()) Fail(freed);
    }
  };
  with_cache();  // warm
  with_malloc();
  constexpr int kIters = 200;
  const double malloc_ns = MedianNs(kIters, with_malloc) / kBuffers;
  const double cached_ns = MedianNs(kIters, with_cache) / kBuffers;
  Print("cached_mixed_64", cached_ns, malloc_ns);
}

void Run() {
  SystemHostAllocator system;
  Measure(HostCachingAllocator(), system, 4096, "cached_alloc_free_4k", "system_alloc_free_4k");
  Measure(HostCachingAllocator(), system, 1 << 20, "cached_alloc_free_1m", "system_alloc_free_1m");
  MeasureMixed(HostCachingAllocator());
}

}  // namespace
}  // namespace memory
}  // namespace tessera

int main() {
  tessera::memory::Run();
  return 0;
}
