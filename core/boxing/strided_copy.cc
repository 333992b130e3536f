#include "core/boxing/strided_copy.h"

#include <cstring>

namespace tessera::boxing {
namespace {

// Source runs of at least this many bytes with gaps between them get their next run
// prefetched (see CopyBox), up to this many bytes of it.
constexpr size_t kPrefetchRunBytes = 8 * 1024;
constexpr size_t kCacheLineBytes = 64;

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
  if (box.num_elements() == 0) return;
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
  const size_t src_step = static_cast<size_t>(src_stride[last - 1]) * elem_size;
  const size_t dst_step = static_cast<size_t>(dst_stride[last - 1]) * elem_size;
  // The innermost loop runs over dim last-1 with fixed steps; an odometer walks the
  // dims before it.
  const int64_t rows = box.dim(last - 1);
  int64_t index[Shape::kMaxDims] = {};
  const int outer_dims = last - 1;
  // Long source runs with gaps between them (a column slice of wide rows): the
  // hardware prefetcher has to pick up every run anew, so the next run's head is
  // prefetched while this run is copied. Measured in one process on 16 MB of 8 KB
  // runs 16 KB apart: 0.94-1.03 ms without, 0.73-0.87 ms with, against 0.68-0.80 ms
  // for a memcpy of the same bytes; 16 KB runs gained 6-8%, 4 KB runs lost 3-8%, so
  // shorter runs are left to the hardware.
  const bool prefetch = run_bytes >= kPrefetchRunBytes && src_step > run_bytes;
  for (;;) {
    const char* sp = s;
    char* dp = d;
    for (int64_t r = 0; r < rows; ++r, sp += src_step, dp += dst_step) {
      if (prefetch && r + 1 < rows) {
        for (size_t b = 0; b < kPrefetchRunBytes; b += kCacheLineBytes) {
          __builtin_prefetch(sp + src_step + b);
        }
      }
      CopyBytes(dp, sp, run_bytes);
    }
    int i = outer_dims - 1;
    for (; i >= 0; --i) {
      s += src_stride[i] * elem_size;
      d += dst_stride[i] * elem_size;
      if (++index[i] < box.dim(i)) break;
      s -= src_stride[i] * box.dim(i) * elem_size;
      d -= dst_stride[i] * box.dim(i) * elem_size;
      index[i] = 0;
    }
    if (i < 0) return;
  }
}

}  // namespace tessera::boxing
