#include "core/boxing/box_copy.h"

namespace tessera::boxing {

comm::StridedCopy StridedCopyOfBox(const Shape& src_shape, const int64_t* src_begin,
                                   const Shape& dst_shape, const int64_t* dst_begin,
                                   const Shape& box) {
  comm::StridedCopy copy;
  if (box.num_elements() == 0) return copy;  // run 0: nothing to copy
  copy.run = 1;
  int64_t src_stride = 1, dst_stride = 1;  // of dim d, innermost first
  for (int d = box.ndim() - 1; d >= 0; --d) {
    copy.src_offset += src_begin[d] * src_stride;
    copy.dst_offset += dst_begin[d] * dst_stride;
    const int64_t count = box.dim(d);
    if (count > 1) {
      const int l = copy.levels - 1;
      if (copy.levels == 0 && src_stride == copy.run && dst_stride == copy.run) {
        copy.run *= count;  // contiguous on both sides so far
      } else if (copy.levels > 0 && src_stride == copy.src_stride[l] * copy.count[l] &&
                 dst_stride == copy.dst_stride[l] * copy.count[l]) {
        copy.count[l] *= count;  // continues the level inside it on both sides
      } else {
        copy.count[copy.levels] = count;
        copy.src_stride[copy.levels] = src_stride;
        copy.dst_stride[copy.levels] = dst_stride;
        ++copy.levels;
      }
    }
    src_stride *= src_shape.dim(d);
    dst_stride *= dst_shape.dim(d);
  }
  return copy;
}

}  // namespace tessera::boxing
