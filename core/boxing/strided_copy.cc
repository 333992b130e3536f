#include "core/boxing/strided_copy.h"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TESSERA_STRIDED_COPY_AVX2 1
#endif

namespace tessera::boxing {
namespace {

// Source runs of at least this many bytes with gaps between them get their next run
// prefetched (see CopyRowsMemcpy), up to this many bytes of it.
constexpr size_t kPrefetchRunBytes = 8 * 1024;
constexpr size_t kCacheLineBytes = 64;

// One innermost block of CopyBox: `rows` runs of `run` bytes, `src_step` and
// `dst_step` bytes apart.
struct Rows {
  char* dst;
  const char* src;
  int64_t rows;
  size_t run;
  size_t src_step;
  size_t dst_step;
};

void CopyRowsMemcpy(const Rows& r) {
  // Long source runs with gaps between them (a column slice of wide rows): the
  // hardware prefetcher has to pick up every run anew, so the next run's head is
  // prefetched while this run is copied. Measured in one process on 16 MB of 8 KB
  // runs 16 KB apart: 0.94-1.03 ms without, 0.73-0.87 ms with, against 0.68-0.80 ms
  // for a memcpy of the same bytes; 16 KB runs gained 6-8%, 4 KB runs lost 3-8%, so
  // shorter runs are left to the hardware.
  const bool prefetch = r.run >= kPrefetchRunBytes && r.src_step > r.run;
  const char* sp = r.src;
  char* dp = r.dst;
  for (int64_t i = 0; i < r.rows; ++i, sp += r.src_step, dp += r.dst_step) {
    if (prefetch && i + 1 < r.rows) {
      for (size_t b = 0; b < kPrefetchRunBytes; b += kCacheLineBytes) {
        __builtin_prefetch(sp + r.src_step + b);
      }
    }
    CopyBytes(dp, sp, r.run);
  }
}

#if TESSERA_STRIDED_COPY_AVX2

// Runs shorter than this are copied by an inlined AVX2 loop instead of a memcpy call
// per run; longer ones go to memcpy (with prefetch from 8 KB, above). The machine
// decides: on AMD EPYC with glibc 2.36 a memcpy call per 1 KB run cost about twice a
// single memcpy of the same bytes and the loop won up to 8 KB; on the Intel Xeon these
// machines have now (glibc 2.36, strided_copy_bench, f32 column slices of [r/2, r]
// pieces, runs of r/2 floats, one process, in-cache), the loop against memcpy per run,
// each as a ratio to one memcpy of the same bytes: 128-256 B runs 1.4-2.1x against
// 2.4-2.8x, 512 B 1.1-1.5x against 1.3-1.5x, 1 KB 1.1-1.9x against 1.1-1.3x, 2 KB
// 1.3-1.5x against 1.3x, 4 KB 1.14-1.30x against 1.07-1.12x.
constexpr size_t kInlineRunBytes = 512;

// Boxes of at least this many bytes whose runs are at least kStreamRunBytes long are
// written with non-temporal stores: a destination this large does not stay in the
// caches of a 2-core share of a 32 MB L3 anyway, and streaming skips reading every
// destination line before writing it (memcpy does that only from 288 MB on here).
// Below it the destination is likely still cached when the next step reads it.
constexpr size_t kStreamBytes = 8 * 1024 * 1024;
constexpr size_t kStreamRunBytes = 256;

// sizeof(T) <= n <= 2 * sizeof(T) bytes as one word from each end, overlapping.
template <typename T>
inline void CopyEnds(char* d, const char* s, size_t n) {
  T head, tail;
  std::memcpy(&head, s, sizeof(T));
  std::memcpy(&tail, s + n - sizeof(T), sizeof(T));
  std::memcpy(d, &head, sizeof(T));
  std::memcpy(d + n - sizeof(T), &tail, sizeof(T));
}

// n < 32 bytes, without a call: two overlapping loads and stores cover any length.
__attribute__((target("avx2"), always_inline)) inline void CopySmall(char* d, const char* s,
                                                                     size_t n) {
  if (n >= 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + n - 16));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d), a);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + n - 16), b);
  } else if (n >= 8) {
    CopyEnds<uint64_t>(d, s, n);
  } else if (n >= 4) {
    CopyEnds<uint32_t>(d, s, n);
  } else {
    for (size_t i = 0; i < n; ++i) d[i] = s[i];
  }
}

__attribute__((target("avx2"), always_inline)) inline __m256i Load(const char* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

__attribute__((target("avx2"), always_inline)) inline void Store(char* p, __m256i v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}

// One run of n bytes. From 32 bytes on the first and last 32 are stored from the
// run's ends, overlapping what the loop stored, so no length needs a scalar tail, and
// the loop's stores start at the first 32-byte boundary of the destination: a 32-byte
// store that straddles two cache lines costs about two, and large buffers from malloc
// (mmap) are only 16-byte aligned. With every other store split, 1 KB runs cost 2.0x a
// memcpy of the same bytes (f32 [256, 512] -> [256, 256] column slice, 1 MB tensor),
// aligned 1.6-1.9x (strided_copy_bench; memcpy per run now does better there, above).
__attribute__((target("avx2"), always_inline)) inline void CopyRun(char* d, const char* s,
                                                                   size_t n) {
  if (n < 32) {
    CopySmall(d, s, n);
    return;
  }
  const __m256i first = Load(s), last = Load(s + n - 32);
  size_t i = (32 - (reinterpret_cast<uintptr_t>(d) & 31)) & 31;
  for (; i + 128 <= n; i += 128) {
    const __m256i a = Load(s + i), b = Load(s + i + 32), c = Load(s + i + 64), e = Load(s + i + 96);
    Store(d + i, a);
    Store(d + i + 32, b);
    Store(d + i + 64, c);
    Store(d + i + 96, e);
  }
  for (; i + 32 <= n; i += 32) Store(d + i, Load(s + i));
  Store(d, first);
  Store(d + n - 32, last);
}

// One run of n >= 64 bytes with non-temporal stores on the 32-byte aligned part of
// the destination; the unaligned head and tail are ordinary stores.
__attribute__((target("avx2"), always_inline)) inline void StreamRun(char* d, const char* s,
                                                                     size_t n) {
  const __m256i first = Load(s), last = Load(s + n - 32);
  size_t i = (32 - (reinterpret_cast<uintptr_t>(d) & 31)) & 31;
  for (; i + 128 <= n; i += 128) {
    const __m256i a = Load(s + i), b = Load(s + i + 32), c = Load(s + i + 64), e = Load(s + i + 96);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i), a);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 32), b);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 64), c);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 96), e);
  }
  for (; i + 32 <= n; i += 32) _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i), Load(s + i));
  Store(d, first);
  Store(d + n - 32, last);
}

__attribute__((target("avx2"))) void CopyRowsAvx2(const Rows& r) {
  const char* sp = r.src;
  char* dp = r.dst;
  for (int64_t i = 0; i < r.rows; ++i, sp += r.src_step, dp += r.dst_step) CopyRun(dp, sp, r.run);
}

// The caller fences (StreamFence) once after the last row.
__attribute__((target("avx2"))) void StreamRowsAvx2(const Rows& r) {
  const char* sp = r.src;
  char* dp = r.dst;
  for (int64_t i = 0; i < r.rows; ++i, sp += r.src_step, dp += r.dst_step) StreamRun(dp, sp, r.run);
}

// Non-temporal stores are weakly ordered: they must be visible before the buffer is
// handed on (to MPI, another rank through shared memory, or another thread).
void StreamFence() { _mm_sfence(); }

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

#endif  // TESSERA_STRIDED_COPY_AVX2

using RowsFn = void (*)(const Rows&);

// The row loop for runs of `run` bytes in a box of `box_bytes`; sets *fence when its
// stores need StreamFence afterwards.
RowsFn ChooseRows(size_t run, size_t box_bytes, bool* fence) {
  *fence = false;
#if TESSERA_STRIDED_COPY_AVX2
  if (HasAvx2()) {
    if (box_bytes >= kStreamBytes && run >= kStreamRunBytes) {
      *fence = true;
      return StreamRowsAvx2;
    }
    if (run < kInlineRunBytes) return CopyRowsAvx2;
  }
#else
  (void)box_bytes;
#endif
  (void)run;
  return CopyRowsMemcpy;
}

}  // namespace

void CopyBytes(void* dst, const void* src, size_t bytes) {
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  for (; bytes > kCopyBlockBytes; bytes -= kCopyBlockBytes) {
    std::memcpy(d, s, kCopyBlockBytes);
    d += kCopyBlockBytes;
    s += kCopyBlockBytes;
  }
  if (bytes > 0) std::memcpy(d, s, bytes);
}

void CopyBox(const void* src, const Shape& src_shape, const int64_t* src_begin, void* dst,
             const Shape& dst_shape, const int64_t* dst_begin, const Shape& box, size_t elem_size) {
  const int ndim = box.ndim();
  const int64_t count = box.num_elements();
  if (count == 0) return;
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  if (ndim == 0) {
    std::memcpy(d, s, elem_size);
    return;
  }
  // Element strides of both tensors.
  int64_t src_stride[Shape::kMaxDims], dst_stride[Shape::kMaxDims];
  src_stride[ndim - 1] = dst_stride[ndim - 1] = 1;
  for (int i = ndim - 2; i >= 0; --i) {
    src_stride[i] = src_stride[i + 1] * src_shape.dim(i + 1);
    dst_stride[i] = dst_stride[i + 1] * dst_shape.dim(i + 1);
  }
  int64_t src_off = 0, dst_off = 0;
  for (int i = 0; i < ndim; ++i) {
    src_off += src_begin[i] * src_stride[i];
    dst_off += dst_begin[i] * dst_stride[i];
  }
  // Dims after `last` are covered fully by the box in both tensors, so the box is
  // contiguous from dim `last` on: one run of `run` elements per index of dims < last.
  int last = ndim - 1;
  while (last > 0 && box.dim(last) == src_shape.dim(last) && box.dim(last) == dst_shape.dim(last))
    --last;
  int64_t run = 1;
  for (int i = last; i < ndim; ++i) run *= box.dim(i);
  const size_t run_bytes = static_cast<size_t>(run) * elem_size;
  s += src_off * elem_size;
  d += dst_off * elem_size;
  if (last == 0) {
    CopyBytes(d, s, run_bytes);
    return;
  }
  // The innermost loop runs over dim last-1 with fixed steps; an odometer walks the
  // dims before it.
  bool fence = false;
  const RowsFn copy_rows = ChooseRows(run_bytes, static_cast<size_t>(count) * elem_size, &fence);
  Rows rows{d,
            s,
            box.dim(last - 1),
            run_bytes,
            static_cast<size_t>(src_stride[last - 1]) * elem_size,
            static_cast<size_t>(dst_stride[last - 1]) * elem_size};
  int64_t index[Shape::kMaxDims] = {};
  const int outer_dims = last - 1;
  for (;;) {
    rows.src = s;
    rows.dst = d;
    copy_rows(rows);
    int i = outer_dims - 1;
    for (; i >= 0; --i) {
      s += src_stride[i] * elem_size;
      d += dst_stride[i] * elem_size;
      if (++index[i] < box.dim(i)) break;
      s -= src_stride[i] * box.dim(i) * elem_size;
      d -= dst_stride[i] * box.dim(i) * elem_size;
      index[i] = 0;
    }
    if (i < 0) break;
  }
#if TESSERA_STRIDED_COPY_AVX2
  if (fence) StreamFence();
#endif
}

}  // namespace tessera::boxing
