#include "core/comm/block_layout.h"

namespace tessera::comm {

BlockLayout BlockLayout::Of(const BlockView& block) {
  BlockLayout layout;
  const int ndim = block.box.ndim();
  if (block.num_elements() == 0) return layout;
  layout.run = 1;
  if (ndim == 0) return layout;
  int64_t stride[Shape::kMaxDims];
  stride[ndim - 1] = 1;
  for (int d = ndim - 2; d >= 0; --d) stride[d] = stride[d + 1] * block.tensor.dim(d + 1);
  for (int d = 0; d < ndim; ++d) layout.offset += block.begin[d] * stride[d];
  int last = ndim - 1;
  while (last > 0 && block.box.dim(last) == block.tensor.dim(last)) --last;
  for (int d = last; d < ndim; ++d) layout.run *= block.box.dim(d);
  for (int d = last - 1; d >= 0; --d) {
    const int64_t count = block.box.dim(d);
    if (count == 1) continue;
    const int top = layout.levels - 1;
    if (top >= 0 && stride[d] == layout.count[top] * layout.stride[top]) {
      layout.count[top] *= count;  // this dim continues the level below it evenly
      continue;
    }
    layout.count[layout.levels] = count;
    layout.stride[layout.levels] = stride[d];
    ++layout.levels;
  }
  return layout;
}

int64_t BlockLayout::num_elements() const {
  int64_t n = run;
  for (int l = 0; l < levels; ++l) n *= count[l];
  return n;
}

bool BlockLayout::SameShapeAs(const BlockLayout& other) const {
  if (run != other.run || levels != other.levels) return false;
  for (int l = 0; l < levels; ++l) {
    if (count[l] != other.count[l]) return false;
  }
  return true;
}

}  // namespace tessera::comm
