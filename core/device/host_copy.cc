#include "core/device/host_copy.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

namespace tessera {
namespace device {
namespace {

// Parts per thread: a helper that wakes late or runs on a busy core leaves its parts
// to the others instead of holding up the copy.
constexpr int kPartsPerThread = 4;
// Parts are page multiples of at least this much, so a part's call cost stays small
// against its bytes.
constexpr size_t kMinPartBytes = size_t{64} << 10;
constexpr size_t kPageBytes = 4096;
// How long an idle helper polls for the next copy before it sleeps: the chunks of one
// staged copy follow each other within about a DMA chunk's time (~80 us for 4 MB).
constexpr auto kHelperSpin = std::chrono::microseconds(200);

// The copy in progress. Its fields are written by the copying thread (holding
// Pool::run) before it publishes the copy in `claim`, and read by a thread only after
// it claimed a part of that copy, which cannot happen once every part is done; so
// nobody reads them while they change.
struct Job {
  char* dst = nullptr;
  const char* src = nullptr;
  size_t bytes = 0;
  size_t part_bytes = 0;
};

// claim: the copy's generation (high 32 bits), its part count (bits 16-31) and the
// next unclaimed part (bits 0-15). A thread claims part i by moving the low bits from
// i to i + 1; a generation other than the one it was woken for means that copy ended.
constexpr uint64_t Claim(uint32_t generation, uint32_t parts, uint32_t next) {
  return (uint64_t{generation} << 32) | (uint64_t{parts} << 16) | next;
}
constexpr uint32_t kMaxParts = 0xffff;

struct Pool {
  std::mutex run;  // held by the copy that uses the helpers
  Job job;
  std::atomic<uint64_t> claim{0};
  std::atomic<uint32_t> done{0};    // parts of the current copy finished
  std::atomic<uint32_t> latest{0};  // the generation of the newest copy
  uint32_t generation = 0;          // under `run`
  std::mutex start;                 // helper creation
  std::atomic<int> helpers{0};
  std::mutex sleep_mu;
  std::condition_variable wake;
  int sleeping = 0;  // under sleep_mu
};

Pool& ThePool() {
  static Pool* pool = new Pool;  // outlives static destructors (see the header)
  return *pool;
}

std::atomic<int> g_threads{1};
std::atomic<uint64_t> g_parallel{0}, g_alone{0}, g_busy{0};

// Copies parts of copy `generation` until none is left unclaimed.
void WorkOn(Pool& pool, uint32_t generation) {
  uint64_t v = pool.claim.load(std::memory_order_acquire);
  for (;;) {
    if (static_cast<uint32_t>(v >> 32) != generation) return;
    const uint32_t parts = static_cast<uint32_t>(v >> 16) & kMaxParts;
    const uint32_t index = static_cast<uint32_t>(v) & kMaxParts;
    if (index >= parts) return;
    if (!pool.claim.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel,
                                          std::memory_order_acquire)) {
      continue;  // v now holds the current value
    }
    const Job& job = pool.job;
    const size_t offset = static_cast<size_t>(index) * job.part_bytes;
    const size_t n = std::min(job.part_bytes, job.bytes - offset);
    std::memcpy(job.dst + offset, job.src + offset, n);
    pool.done.fetch_add(1, std::memory_order_acq_rel);
    v = pool.claim.load(std::memory_order_acquire);
  }
}

void HelperLoop(Pool& pool, int index) {
  uint32_t seen = pool.latest.load(std::memory_order_acquire);
  for (;;) {
    // Poll for a while, then sleep until a copy is published.
    const auto give_up = std::chrono::steady_clock::now() + kHelperSpin;
    uint32_t latest = pool.latest.load(std::memory_order_acquire);
    while (latest == seen && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::yield();
      latest = pool.latest.load(std::memory_order_acquire);
    }
    if (latest == seen) {
      std::unique_lock<std::mutex> lock(pool.sleep_mu);
      ++pool.sleeping;
      pool.wake.wait(lock, [&] {
        latest = pool.latest.load(std::memory_order_acquire);
        return latest != seen;
      });
      --pool.sleeping;
    }
    seen = latest;
    // Helpers beyond the current setting sit the copy out.
    if (index + 1 < g_threads.load(std::memory_order_relaxed)) WorkOn(pool, seen);
  }
}

void EnsureHelpers(Pool& pool, int wanted) {
  if (pool.helpers.load(std::memory_order_acquire) >= wanted) return;
  std::lock_guard<std::mutex> lock(pool.start);
  for (int k = pool.helpers.load(std::memory_order_relaxed); k < wanted; ++k) {
    std::thread(HelperLoop, std::ref(pool), k).detach();
    pool.helpers.store(k + 1, std::memory_order_release);
  }
}

void CopyAlone(void* dst, const void* src, size_t bytes) {
  g_alone.fetch_add(1, std::memory_order_relaxed);
  if (bytes > 0) std::memcpy(dst, src, bytes);
}

}  // namespace

Status SetCopyThreads(int threads) {
  if (threads < 1 || threads > kMaxCopyThreads) {
    return InvalidArgument("SetCopyThreads: threads is " + std::to_string(threads) +
                           "; expected 1 to " + std::to_string(kMaxCopyThreads));
  }
  g_threads.store(threads, std::memory_order_relaxed);
  return Status::Ok();
}

int CopyThreads() { return g_threads.load(std::memory_order_relaxed); }

int DefaultCopyThreads(int hardware_threads, int ranks_on_machine) {
  const int share = std::max(1, hardware_threads) / std::max(1, ranks_on_machine);
  return std::clamp(share, 1, kMaxDefaultCopyThreads);
}

void ParallelCopy(void* dst, const void* src, size_t bytes) {
  const int threads = CopyThreads();
  if (threads <= 1 || bytes < kParallelCopyMinBytes) return CopyAlone(dst, src, bytes);
  Pool& pool = ThePool();
  std::unique_lock<std::mutex> run(pool.run, std::try_to_lock);
  if (!run.owns_lock()) {
    g_busy.fetch_add(1, std::memory_order_relaxed);
    return CopyAlone(dst, src, bytes);
  }
  EnsureHelpers(pool, threads - 1);
  g_parallel.fetch_add(1, std::memory_order_relaxed);

  const size_t wanted_parts = static_cast<size_t>(threads) * kPartsPerThread;
  size_t part = (bytes + wanted_parts - 1) / wanted_parts;
  part = std::max(kMinPartBytes, (part + kPageBytes - 1) / kPageBytes * kPageBytes);
  const auto parts = static_cast<uint32_t>(std::min<size_t>((bytes + part - 1) / part, kMaxParts));
  part = (bytes + parts - 1) / parts;  // kMaxParts parts cover everything
  pool.job = Job{static_cast<char*>(dst), static_cast<const char*>(src), bytes, part};
  pool.done.store(0, std::memory_order_relaxed);
  const uint32_t generation = ++pool.generation;
  pool.claim.store(Claim(generation, parts, 0), std::memory_order_release);
  pool.latest.store(generation, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(pool.sleep_mu);
    if (pool.sleeping > 0) pool.wake.notify_all();
  }
  WorkOn(pool, generation);
  // The parts other threads claimed: they are being copied right now, so poll.
  while (pool.done.load(std::memory_order_acquire) < parts) std::this_thread::yield();
}

HostCopyStats GetHostCopyStats() {
  HostCopyStats stats;
  stats.parallel_copies = g_parallel.load(std::memory_order_relaxed);
  stats.alone_copies = g_alone.load(std::memory_order_relaxed);
  stats.busy_fallbacks = g_busy.load(std::memory_order_relaxed);
  stats.helper_threads = ThePool().helpers.load(std::memory_order_relaxed);
  return stats;
}

}  // namespace device
}  // namespace tessera
