// CopyBox (strided_copy.h) as one StridedCopy: the form in which device memory copies a
// sub-box between two row-major tensors, cut by ForEachCopyPiece into cudaMemcpyAsync /
// 2DAsync / 3DAsync calls. Plain C++, so the folding is tested without a GPU.
#ifndef TESSERA_CORE_BOXING_BOX_COPY_H_
#define TESSERA_CORE_BOXING_BOX_COPY_H_

#include <cstdint>

#include "core/comm/nccl/strided_copy.h"
#include "core/common/shape.h"

namespace tessera::boxing {

// The copy of CopyBox(src, src_shape, src_begin, dst, dst_shape, dst_begin, box): the
// same elements, offsets and strides counted in elements. Dims of extent 1 vanish, and
// a dim folds into the level inside it where both tensors continue that level evenly
// (into the run where both are contiguous), so a box that is one run in both tensors
// has no levels. A box with no elements gives run 0. Preconditions as CopyBox's.
comm::StridedCopy StridedCopyOfBox(const Shape& src_shape, const int64_t* src_begin,
                                   const Shape& dst_shape, const int64_t* dst_begin,
                                   const Shape& box);

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_BOX_COPY_H_
