// Copies one rectangular sub-box between two row-major tensors of the same rank:
// the local pack/unpack step of every boxing that moves slices (S->B, P->S, S->S,
// B->S, S->P). Trailing dims that the box covers fully in both tensors fold into one
// contiguous run, so each copy is a memcpy per run: a single memcpy when the slice is
// contiguous, one per row of the leading dims otherwise.
#ifndef TESSERA_CORE_BOXING_STRIDED_COPY_H_
#define TESSERA_CORE_BOXING_STRIDED_COPY_H_

#include <cstddef>
#include <cstdint>

#include "core/common/shape.h"

namespace tessera::boxing {

// Copies the elements of dst[dst_begin + i] = src[src_begin + i] for every index i
// of `box`. Preconditions (checked by callers): the three shapes have the same ndim,
// begin + box <= shape on every dim of both tensors, and the buffers do not overlap.
// A box with no elements copies nothing and may have NULL buffers.
void CopyBox(const void* src, const Shape& src_shape, const int64_t* src_begin, void* dst,
             const Shape& dst_shape, const int64_t* dst_begin, const Shape& box, size_t elem_size);

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_STRIDED_COPY_H_
