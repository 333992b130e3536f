#include "core/comm/nccl/strided_copy.h"

namespace tessera::comm {
namespace {

// The shape of `block` with dense strides: its image packed from `offset` on.
void SetPacked(const BlockLayout& block, int64_t offset, int64_t* start, int64_t* stride) {
  *start = offset;
  int64_t step = block.run;
  for (int l = 0; l < block.levels; ++l) {
    stride[l] = step;
    step *= block.count[l];
  }
}

void SetShape(const BlockLayout& block, StridedCopy* copy) {
  copy->run = block.run;
  copy->levels = block.levels;
  for (int l = 0; l < block.levels; ++l) copy->count[l] = block.count[l];
}

void SetStrided(const BlockLayout& block, int64_t* start, int64_t* stride) {
  *start = block.offset;
  for (int l = 0; l < block.levels; ++l) stride[l] = block.stride[l];
}

}  // namespace

StridedCopy StridedCopy::Pack(const BlockLayout& block, int64_t packed_offset) {
  StridedCopy copy;
  SetShape(block, &copy);
  SetStrided(block, &copy.src_offset, copy.src_stride);
  SetPacked(block, packed_offset, &copy.dst_offset, copy.dst_stride);
  return copy;
}

StridedCopy StridedCopy::Unpack(int64_t packed_offset, const BlockLayout& block) {
  StridedCopy copy;
  SetShape(block, &copy);
  SetPacked(block, packed_offset, &copy.src_offset, copy.src_stride);
  SetStrided(block, &copy.dst_offset, copy.dst_stride);
  return copy;
}

StridedCopy StridedCopy::Between(const BlockLayout& src, const BlockLayout& dst) {
  StridedCopy copy;
  SetShape(src, &copy);
  SetStrided(src, &copy.src_offset, copy.src_stride);
  SetStrided(dst, &copy.dst_offset, copy.dst_stride);
  return copy;
}

}  // namespace tessera::comm
