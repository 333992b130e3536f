#include "core/comm/shm_reduction.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "core/comm/comm_checks.h"
#include "core/comm/mpi_world.h"
#include "core/common/exact_minmax.h"
#include "core/common/half.h"

namespace tessera::comm {
namespace {

// Segments are page multiples, so each rank's pair starts on its own page.
constexpr int64_t kPage = 4096;
// Blocks start on cache lines: no line is written by two ranks' reductions.
constexpr int64_t kLine = 64;
// Each rank's flag sits alone in front of its segments, two lines apart from them
// (adjacent-line prefetchers fetch lines in pairs).
constexpr int64_t kFlagBytes = 2 * kLine;
// Polls of a flag before a waiting rank starts yielding its core: a few
// microseconds, about what a peer that is running needs to get there.
constexpr int kSpinPolls = 128;
// Two ranks: the peer's lines are taken with write intent this far ahead of the
// loop, a chunk at a time (a transfer from the other core takes about as long as
// reducing a few hundred bytes).
constexpr int64_t kAheadBytes = 2048;
constexpr int64_t kChunkBytes = 256;

void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Reduces one slice of this rank's block: out[k] = own[k] op peers[0][k] op ...
// (peers in rank order), written to `out` (the shared segment) and back to `own`
// (the caller's piece), for npeers >= 2 (two ranks take ReducePair). The pointers
// never alias: own is the caller's memory, the rest are distinct segments.
using SliceFn = void (*)(void* own, void* out, const void* const* peers, int npeers, int64_t n);

// Integers add as unsigned: wrapping, as MPI's sum does, without signed overflow.
struct Sum {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
};

// Elements per tile when there are several peers: the partial result stays in L1
// between passes.
constexpr int64_t kTileBytes = 8192;

// The loops, inlined into each instruction-set variant below.
template <typename T, typename Op>
__attribute__((always_inline)) inline void ReduceSliceBody(void* own_v, void* out_v,
                                                           const void* const* peers, int npeers,
                                                           int64_t n) {
  T* __restrict own = static_cast<T*>(own_v);
  T* __restrict out = static_cast<T*>(out_v);
  const Op op;
  constexpr int64_t kTile = kTileBytes / sizeof(T);
  for (int64_t at = 0; at < n; at += kTile) {
    const int64_t m = std::min(kTile, n - at);
    T* __restrict o = out + at;
    T* __restrict w = own + at;
    const T* __restrict p = static_cast<const T*>(peers[0]) + at;
    for (int64_t k = 0; k < m; ++k) o[k] = op(w[k], p[k]);
    for (int j = 1; j + 1 < npeers; ++j) {
      const T* __restrict q = static_cast<const T*>(peers[j]) + at;
      for (int64_t k = 0; k < m; ++k) o[k] = op(o[k], q[k]);
    }
    const T* __restrict last = static_cast<const T*>(peers[npeers - 1]) + at;
    for (int64_t k = 0; k < m; ++k) {
      const T v = op(o[k], last[k]);
      o[k] = v;
      w[k] = v;
    }
  }
}

template <typename T, typename Op>
void ReduceSlice(void* own, void* out, const void* const* peers, int npeers, int64_t n) {
  ReduceSliceBody<T, Op>(own, out, peers, npeers, n);
}

// The build targets baseline x86-64 (SSE2). A two-rank reduction from L2 issues a
// load, an op and two stores per vector, so twice the vector width halves the
// instructions of its hottest loop: chosen at run time where the CPU has AVX2.
#if defined(__x86_64__) && defined(__GNUC__)
#define TESSERA_SHM_AVX2 1
template <typename T, typename Op>
__attribute__((target("avx2"))) void ReduceSliceAvx2(void* own, void* out, const void* const* peers,
                                                     int npeers, int64_t n) {
  ReduceSliceBody<T, Op>(own, out, peers, npeers, n);
}
#endif

// Two ranks: own[k] = peer[k] = own[k] op peer[k], where `peer` is the peer's
// copy of this rank's block in the peer's segment. The result goes back into the
// lines just read, taken with write intent ahead of use (prefetchw where the CPU
// has it): one transfer between the cores per line, where reading the peer's line
// and then writing a line of this rank's segment that the peer last read took two.
using PairFn = void (*)(void* own, void* peer, int64_t n);

template <typename T, typename Op>
__attribute__((always_inline)) inline void ReducePairBody(void* own_v, void* peer_v, int64_t n) {
  T* __restrict own = static_cast<T*>(own_v);
  T* __restrict peer = static_cast<T*>(peer_v);
  const Op op;
  constexpr int64_t kChunk = kChunkBytes / sizeof(T);
  const uintptr_t base = reinterpret_cast<uintptr_t>(peer) + kAheadBytes;
  for (int64_t at = 0; at < n; at += kChunk) {
    // Past the block's end this touches lines nobody uses in this step (or
    // nothing: a prefetch never faults).
    for (int64_t line = 0; line < kChunkBytes; line += kLine) {
      __builtin_prefetch(reinterpret_cast<const void*>(base + at * sizeof(T) + line), 1, 3);
    }
    const int64_t m = std::min(kChunk, n - at);
    T* __restrict w = own + at;
    T* __restrict p = peer + at;
    for (int64_t k = 0; k < m; ++k) {
      const T v = op(w[k], p[k]);
      p[k] = v;
      w[k] = v;
    }
  }
}

template <typename T, typename Op>
void ReducePair(void* own, void* peer, int64_t n) {
  ReducePairBody<T, Op>(own, peer, n);
}

#ifdef TESSERA_SHM_AVX2
template <typename T, typename Op>
__attribute__((target("avx2,prfchw"))) void ReducePairAvx2(void* own, void* peer, int64_t n) {
  ReducePairBody<T, Op>(own, peer, n);
}
#endif

// Two ranks, step 3: copies the peer's result out of this rank's segment, taking
// its lines with write intent ahead of use, so the next call's step 1 writes them
// without another transfer.
using CopyFn = void (*)(void* dst, const void* src, size_t bytes);

__attribute__((always_inline)) inline void CopyOutBody(void* dst, const void* src, size_t bytes) {
  constexpr size_t kCopyChunk = 1024;
  const uintptr_t ahead = reinterpret_cast<uintptr_t>(src) + kAheadBytes;
  for (size_t at = 0; at < bytes; at += kCopyChunk) {
    for (size_t line = 0; line < kCopyChunk; line += kLine) {
      __builtin_prefetch(reinterpret_cast<const void*>(ahead + at + line), 1, 3);
    }
    std::memcpy(static_cast<unsigned char*>(dst) + at, static_cast<const unsigned char*>(src) + at,
                std::min(kCopyChunk, bytes - at));
  }
}

void CopyOut(void* dst, const void* src, size_t bytes) { CopyOutBody(dst, src, bytes); }

#ifdef TESSERA_SHM_AVX2
__attribute__((target("prfchw"))) void CopyOutPrefetchw(void* dst, const void* src, size_t bytes) {
  CopyOutBody(dst, src, bytes);
}

// AVX2 and PREFETCHW (CPUID 0x80000001 ECX bit 8; Haswell has AVX2 without it).
bool HasAvx2AndPrefetchw() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__builtin_cpu_supports("avx2")) return false;
  if (!__get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx)) return false;
  return (ecx & (1u << 8)) != 0;
}
#endif

// The loops of one dtype and op, for this CPU.
struct Kernels {
  SliceFn slice = nullptr;
  PairFn pair = nullptr;
  CopyFn copy_out = nullptr;
};

template <typename T, typename Op>
Kernels Variant() {
#ifdef TESSERA_SHM_AVX2
  static const bool fast = HasAvx2AndPrefetchw();
  if (fast) return {ReduceSliceAvx2<T, Op>, ReducePairAvx2<T, Op>, CopyOutPrefetchw};
#endif
  return {ReduceSlice<T, Op>, ReducePair<T, Op>, CopyOut};
}

template <typename T>
Kernels ForOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return Variant<T, Sum>();
    case ReduceOp::kMax: return Variant<T, ExactMaxOp>();  // NaN-exact
    case ReduceOp::kMin: return Variant<T, ExactMinOp>();
  }
  return {};
}

// Non-null for the dtypes and ops the callers validated.
Kernels KernelsFor(DType dtype, ReduceOp op) {
  switch (dtype) {
    case DType::kF32: return ForOp<float>(op);
    case DType::kF64: return ForOp<double>(op);
    case DType::kI32: return ForOp<int32_t>(op);
    case DType::kI64: return ForOp<int64_t>(op);
    // Each combine in float, rounded on store (Sum's a + b is float + float).
    case DType::kF16: return ForOp<Float16>(op);
    case DType::kBF16: return ForOp<BFloat16>(op);
    case DType::kBool: break;
  }
  return {};
}

// FAILED_PRECONDITION from `method` when `comm` has a timeout or is poisoned: a
// flag wait is not bounded.
Status CheckUsable(const MpiCommunicator& comm, const char* method) {
  if (comm.timeout_seconds() > 0 || comm.poisoned()) {
    return FailedPrecondition(std::string(method) +
                              ": the communicator has a timeout or is poisoned; the shared-memory "
                              "reduction is unbounded, use the communicator's own AllReduce");
  }
  return Status::Ok();
}

}  // namespace

Result<ShmReduction*> ShmReduction::For(MpiCommunicator& comm) {
  std::lock_guard<std::recursive_mutex> lock(comm.call_mutex());  // shm_ is comm's
  TESS_RETURN_IF_ERROR(CheckUsable(comm, "ShmReduction::For"));
  if (comm.shm_checked_) return comm.shm_.get();
  bool shared = false;
  if (comm.size() > 1) {
    MPI_Comm node = MPI_COMM_NULL;
    int rc =
        MPI_Comm_split_type(comm.comm(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_split_type", rc);
    int node_size = 0;
    rc = MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_size", rc);
    shared = node_size == comm.size();
  }
  if (shared) comm.shm_ = {new ShmReduction(comm), &ShmReduction::Delete};
  comm.shm_checked_ = true;
  return comm.shm_.get();
}

ShmReduction::~ShmReduction() { FreeWindow(); }

void ShmReduction::FreeWindow() {
  if (window_ == MPI_WIN_NULL) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Win_free(&window_);
  window_ = MPI_WIN_NULL;
  capacity_ = 0;
}

Status ShmReduction::Reserve(int64_t bytes) {
  TESS_RETURN_IF_ERROR(CheckUsable(comm_, "ShmReduction::Reserve"));
  if (bytes < 0) {
    return InvalidArgument("ShmReduction::Reserve: bytes is " + Str(bytes) + "; it must be >= 0");
  }
  if (bytes <= capacity_) return Status::Ok();
  // Another rank may still be copying out of the old segments (the flags would
  // tell, but a rare collective call can afford the plain barrier).
  if (window_ != MPI_WIN_NULL) TESS_RETURN_IF_ERROR(comm_.Barrier());
  FreeWindow();
  const int64_t capacity = RoundUp(bytes, kPage);
  MPI_Info info = MPI_INFO_NULL;
  int rc = MPI_Info_create(&info);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Info_create", rc);
  // Each rank's segment in its own mapping, placed where that rank touches it first.
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  // Open MPI does not align other ranks' memory to cache lines: each rank's flag
  // starts at the first line boundary of its memory, its segment kFlagBytes later.
  void* mine = nullptr;
  rc = MPI_Win_allocate_shared(static_cast<MPI_Aint>(kLine + kFlagBytes + capacity), 1, info,
                               comm_.comm(), &mine, &window_);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) {
    window_ = MPI_WIN_NULL;
    return MpiError("MPI_Win_allocate_shared", rc);
  }
  segments_.assign(size_, nullptr);
  flags_.assign(size_, nullptr);
  for (int32_t r = 0; r < size_; ++r) {
    MPI_Aint size = 0;
    int disp = 0;
    unsigned char* base = nullptr;
    rc = MPI_Win_shared_query(window_, r, &size, &disp, &base);
    if (rc != MPI_SUCCESS) {
      MPI_Win_free(&window_);
      return MpiError("MPI_Win_shared_query", rc);
    }
    const int64_t at = static_cast<int64_t>(reinterpret_cast<uintptr_t>(base));
    unsigned char* line = base + (RoundUp(at, kLine) - at);
    flags_[r] = reinterpret_cast<uint64_t*>(line);
    segments_[r] = line + kFlagBytes;
  }
  // Touched first by its owner, so its pages are placed near it; the flag starts
  // at 0 on every rank, as step_ does.
  std::memset(flags_[rank_], 0, static_cast<size_t>(kFlagBytes + capacity));
  capacity_ = capacity;
  step_ = 0;
  // Nobody raises a flag before every rank has zeroed its own.
  return comm_.Barrier();
}

void ShmReduction::Raise() {
  // A full fence, not just the release store: memcpy may have used non-temporal
  // stores, which a plain store does not order on x86.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  __atomic_store_n(flags_[rank_], ++step_, __ATOMIC_RELEASE);
}

void ShmReduction::WaitFor(int32_t rank, uint64_t step) const {
  const uint64_t* flag = flags_[rank];
  for (int polls = 0; __atomic_load_n(flag, __ATOMIC_ACQUIRE) < step; ++polls) {
    if (polls < kSpinPolls) {
      CpuRelax();
    } else {
      sched_yield();
    }
  }
}

Status ShmReduction::AllReduce(const std::vector<ShmPiece>& pieces, int64_t count, DType dtype,
                               ReduceOp op) {
  constexpr const char* kAllReduce = "ShmReduction::AllReduce";
  TESS_RETURN_IF_ERROR(CheckUsable(comm_, kAllReduce));
  TESS_RETURN_IF_ERROR(CheckCommDType(kAllReduce, dtype));
  TESS_RETURN_IF_ERROR(CheckReduceOp(kAllReduce, op));
  TESS_RETURN_IF_ERROR(CheckReducibleDType(kAllReduce, dtype));
  const int64_t element = static_cast<int64_t>(DTypeSize(dtype));
  if (count < 0 || count * element > capacity_) {
    return InvalidArgument(std::string(kAllReduce) + ": count is " + Str(count) + " elements of " +
                           DTypeName(dtype) + "; the segments hold " + Str(capacity_) + " bytes");
  }
  int64_t end = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const ShmPiece& piece = pieces[i];
    if (piece.count < 0 || piece.offset < end || piece.offset + piece.count > count ||
        (piece.data == nullptr && piece.count > 0)) {
      return InvalidArgument(std::string(kAllReduce) + ": pieces[" + Str(static_cast<int64_t>(i)) +
                             "] holds " + Str(piece.count) + " elements at offset " +
                             Str(piece.offset) + (piece.data == nullptr ? " from NULL" : "") +
                             "; pieces must be in offset order, not overlap, lie in [0, " +
                             Str(count) + ") and have data");
    }
    end = piece.offset + piece.count;
  }
  if (count == 0) return Status::Ok();  // on every rank (SPMD); maybe nothing reserved
  const Kernels kernels = KernelsFor(dtype, op);
  const int64_t line = std::max<int64_t>(1, kLine / element);
  for (int32_t b = 0; b < size_; ++b) starts_[b] = count * b / size_ / line * line;
  starts_[size_] = count;
  const int64_t mine_begin = starts_[rank_], mine_end = starts_[rank_ + 1];
  unsigned char* mine = segments_[rank_];
  auto bytes = [element](int64_t elements) { return static_cast<size_t>(elements * element); };
  // The first piece that ends after element `at`.
  auto first_after = [&pieces](int64_t at) {
    return std::partition_point(pieces.begin(), pieces.end(),
                                [at](const ShmPiece& p) { return p.offset + p.count <= at; });
  };

  // 0. Nobody reads this rank's segment any more: every rank finished the last call.
  for (int32_t q = 0; q < size_; ++q) {
    if (q != rank_) WaitFor(q, step_);
  }
  // 1. What the other ranks reduce: every piece outside this rank's block.
  for (const ShmPiece& piece : pieces) {
    const int64_t lo = piece.offset, hi = piece.offset + piece.count;
    const unsigned char* src = static_cast<const unsigned char*>(piece.data);
    if (lo < mine_begin) {
      const int64_t to = std::min(hi, mine_begin);
      std::memcpy(mine + lo * element, src, bytes(to - lo));
    }
    if (hi > mine_end) {
      const int64_t from = std::max(lo, mine_end);
      std::memcpy(mine + from * element, src + (from - lo) * element, bytes(hi - from));
    }
  }
  Raise();
  const uint64_t copied = step_;

  // 2. This rank's block, straight from and back into its pieces; the result also
  // into the peer's segment with two ranks (see ReducePairBody), else into S_r.
  for (int32_t q = 0; q < size_; ++q) {
    if (q != rank_) WaitFor(q, copied);
  }
  for (auto it = first_after(mine_begin); it != pieces.end() && it->offset < mine_end; ++it) {
    const int64_t from = std::max(it->offset, mine_begin);
    const int64_t to = std::min(it->offset + it->count, mine_end);
    if (from >= to) continue;
    unsigned char* own = static_cast<unsigned char*>(it->data) + (from - it->offset) * element;
    if (size_ == 2) {
      kernels.pair(own, segments_[1 - rank_] + from * element, to - from);
      continue;
    }
    int npeers = 0;
    for (int32_t q = 0; q < size_; ++q) {
      if (q != rank_) peers_[npeers++] = segments_[q] + from * element;
    }
    kernels.slice(own, mine + from * element, peers_.data(), npeers, to - from);
  }
  Raise();
  const uint64_t reduced = step_;

  // 3. The other blocks, each from its owner's segment once the owner is done;
  // starting after this rank's own, so the ranks read different owners at a time.
  for (int32_t k = 1; k < size_; ++k) {
    const int32_t b = (rank_ + k) % size_;
    const int64_t begin = starts_[b], end = starts_[b + 1];
    if (begin == end) continue;
    WaitFor(b, reduced);
    const unsigned char* segment = segments_[size_ == 2 ? rank_ : b];  // where step 2 put it
    for (auto it = first_after(begin); it != pieces.end() && it->offset < end; ++it) {
      const int64_t from = std::max(it->offset, begin);
      const int64_t to = std::min(it->offset + it->count, end);
      if (from >= to) continue;
      unsigned char* dst = static_cast<unsigned char*>(it->data) + (from - it->offset) * element;
      if (size_ == 2) {
        kernels.copy_out(dst, segment + from * element, bytes(to - from));
      } else {
        std::memcpy(dst, segment + from * element, bytes(to - from));
      }
    }
  }
  Raise();  // done reading the other segments
  return Status::Ok();
}

}  // namespace tessera::comm
