// BlockLayout: where a BlockView's elements lie in its buffer, in the form backends
// move them: runs of contiguous elements repeated by nested (count, stride) levels.
// The MPI backend turns it into derived datatypes, the NCCL backend into strided
// device copies; both need the same folding of dims so that a block that is one
// contiguous run in memory is recognised as such whatever its shape.
#ifndef TESSERA_CORE_COMM_BLOCK_LAYOUT_H_
#define TESSERA_CORE_COMM_BLOCK_LAYOUT_H_

#include <cstdint>

#include "core/comm/communicator.h"
#include "core/common/shape.h"

namespace tessera::comm {

// The block's first element at `offset`, then `run` contiguous elements repeated by
// `levels` nested levels, innermost first: level l repeats everything inside it
// count[l] times, stride[l] elements apart. Dims the box spans fully fold into the
// run, dims of extent 1 vanish, and a dim whose stride continues the level inside it
// evenly merges into that level, so a contiguous block has no levels. All counts are
// > 1, strides grow outwards and each is a multiple of the ones inside it (strides of
// a row-major tensor). run is 0 (and levels 0) for an empty box. The block's buffer
// holds CheckBlocks-validated boxes, so none of this can fail.
struct BlockLayout {
  int64_t offset = 0;
  int64_t run = 0;
  int levels = 0;
  int64_t count[Shape::kMaxDims] = {};
  int64_t stride[Shape::kMaxDims] = {};

  static BlockLayout Of(const BlockView& block);

  bool empty() const { return run == 0; }
  bool contiguous() const { return levels == 0; }
  int64_t num_elements() const;
  // Same run and level counts: the two blocks pair up element for element level by
  // level, so one strided copy moves one into the other.
  bool SameShapeAs(const BlockLayout& other) const;
};

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_BLOCK_LAYOUT_H_
