// StridedCopy: a copy between two strided layouts of the same shape (a block and its
// packed image in a staging buffer, or two blocks that pair up level by level), and
// its cutting into pieces that cudaMemcpyAsync / cudaMemcpy2DAsync / cudaMemcpy3DAsync
// each move in one call. Plain C++ (no CUDA), so the cutting is tested on any machine;
// the NCCL backend turns each piece into one CUDA call on its stream.
#ifndef TESSERA_CORE_COMM_NCCL_STRIDED_COPY_H_
#define TESSERA_CORE_COMM_NCCL_STRIDED_COPY_H_

#include <cstdint>

#include "core/comm/block_layout.h"
#include "core/common/shape.h"
#include "core/common/status.h"

namespace tessera::comm {

// run x count[0] x ... x count[levels-1] elements, innermost first, read from
// src_offset + sum(i[l] * src_stride[l]) and written to the same place on the dst
// side. Offsets and strides count elements.
struct StridedCopy {
  int64_t run = 0;
  int levels = 0;
  int64_t count[Shape::kMaxDims] = {};
  int64_t src_offset = 0;
  int64_t dst_offset = 0;
  int64_t src_stride[Shape::kMaxDims] = {};
  int64_t dst_stride[Shape::kMaxDims] = {};

  // `block` of its buffer -> packed (row-major, dense) from element `packed_offset` on.
  static StridedCopy Pack(const BlockLayout& block, int64_t packed_offset);
  // Packed from element `packed_offset` on -> `block` of its buffer.
  static StridedCopy Unpack(int64_t packed_offset, const BlockLayout& block);
  // Block to block; src.SameShapeAs(dst) must hold (a programmer bug otherwise).
  static StridedCopy Between(const BlockLayout& src, const BlockLayout& dst);
};

// One cudaMemcpy3D-shaped piece, in bytes: `depth` slices of `height` rows of `width`
// bytes; row y of slice z starts at src + (z * src_rows + y) * src_pitch (dst alike).
// height == depth == 1 is a plain copy; depth == 1 a 2-d one.
struct CopyPiece {
  int64_t src = 0;
  int64_t dst = 0;
  int64_t width = 0;
  int64_t height = 1;
  int64_t depth = 1;
  int64_t src_pitch = 0;
  int64_t dst_pitch = 0;
  int64_t src_rows = 0;
  int64_t dst_rows = 0;
};

// Calls emit(const CopyPiece&) -> Status for each piece of `copy` (elements of
// `element` bytes), stopping at the first error. The innermost two levels go into
// each piece as its rows and slices where CUDA can express them: a row pitch of at
// most `max_pitch` bytes (cudaDevAttrMaxPitch) on both sides, and a slice pitch that
// is a whole number of rows. Outer levels, and levels CUDA cannot express, are looped
// over, one piece per step. Levels along which both sides are dense fold into the
// run first. Allocates nothing.
template <typename Emit>
Status ForEachCopyPiece(const StridedCopy& copy, int64_t element, int64_t max_pitch, Emit&& emit) {
  if (copy.run == 0) return Status::Ok();
  for (int l = 0; l < copy.levels; ++l) {
    if (copy.count[l] == 0) return Status::Ok();
  }
  int first = 0;
  int64_t run = copy.run;
  while (first < copy.levels && copy.src_stride[first] == run && copy.dst_stride[first] == run) {
    run *= copy.count[first++];
  }
  CopyPiece piece;
  piece.width = run * element;
  int inner = 0;
  if (first < copy.levels && copy.src_stride[first] * element <= max_pitch &&
      copy.dst_stride[first] * element <= max_pitch) {
    inner = 1;
    piece.height = copy.count[first];
    piece.src_pitch = copy.src_stride[first] * element;
    piece.dst_pitch = copy.dst_stride[first] * element;
    const int next = first + 1;
    if (next < copy.levels && copy.src_stride[next] % copy.src_stride[first] == 0 &&
        copy.dst_stride[next] % copy.dst_stride[first] == 0) {
      const int64_t src_rows = copy.src_stride[next] / copy.src_stride[first];
      const int64_t dst_rows = copy.dst_stride[next] / copy.dst_stride[first];
      // Slices may not overlap in rows, which tensor strides never do.
      if (src_rows >= piece.height && dst_rows >= piece.height) {
        inner = 2;
        piece.depth = copy.count[next];
        piece.src_rows = src_rows;
        piece.dst_rows = dst_rows;
      }
    }
  }
  const int outer = first + inner;
  int64_t index[Shape::kMaxDims] = {};
  for (;;) {
    int64_t src = copy.src_offset, dst = copy.dst_offset;
    for (int l = outer; l < copy.levels; ++l) {
      src += index[l] * copy.src_stride[l];
      dst += index[l] * copy.dst_stride[l];
    }
    piece.src = src * element;
    piece.dst = dst * element;
    TESS_RETURN_IF_ERROR(emit(static_cast<const CopyPiece&>(piece)));
    int l = outer;
    while (l < copy.levels && ++index[l] == copy.count[l]) index[l++] = 0;
    if (l >= copy.levels) return Status::Ok();
  }
}

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_NCCL_STRIDED_COPY_H_
