// Copies one rectangular sub-box between two row-major tensors of the same rank:
// the local pack/unpack step of every boxing that moves slices (S->B, P->S, S->S,
// B->S, S->P). Trailing dims that the box covers fully in both tensors fold into one
// contiguous run: a single CopyBytes when the slice is contiguous, one run per row of
// the leading dims otherwise. Runs under 512 B are copied by an inlined AVX2 loop (a
// memcpy call per short run cost up to 2.8x a memcpy of the same bytes), longer runs
// by memcpy, boxes of 8 MB and more with non-temporal stores (fenced before CopyBox returns); see
// strided_copy.cc for the measurements, and bench/boxing/strided_copy_bench.
//
// CopyBytes copies a large run in blocks of kCopyBlockBytes, as Open MPI copies a
// rank's own block: one memcpy call of a megabyte or more takes glibc's path for
// large copies, which on this project's machines (AMD EPYC, glibc 2.36) was slower
// than the same bytes in calls of 32 KB to 1 MB (16 MB: 0.72 ms against 0.46-0.58
// ms; 64 MB: 3.7 ms against 3.0-3.6 ms; 1 MB and less: about the same). Every
// whole-piece copy of a boxing (a reshard's own piece, B -> S(0), a relabel's copy
// out) is such a call.
#ifndef TESSERA_CORE_BOXING_STRIDED_COPY_H_
#define TESSERA_CORE_BOXING_STRIDED_COPY_H_

#include <cstddef>
#include <cstdint>

#include "core/common/shape.h"

namespace tessera::boxing {

inline constexpr size_t kCopyBlockBytes = 256 * 1024;

// memcpy of `bytes` bytes in blocks of at most kCopyBlockBytes. The buffers must not
// overlap; NULL is allowed when bytes is 0 (memcpy itself does not allow it).
void CopyBytes(void* dst, const void* src, size_t bytes);

// Copies the elements of dst[dst_begin + i] = src[src_begin + i] for every index i
// of `box`. Preconditions (checked by callers): the three shapes have the same ndim,
// begin + box <= shape on every dim of both tensors, and the buffers do not overlap.
// A box with no elements copies nothing and may have NULL buffers.
void CopyBox(const void* src, const Shape& src_shape, const int64_t* src_begin, void* dst,
             const Shape& dst_shape, const int64_t* dst_begin, const Shape& box, size_t elem_size);

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_STRIDED_COPY_H_
