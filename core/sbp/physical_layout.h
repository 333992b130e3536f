// Which part of a logical tensor one rank holds, given (shape, placement, nd-sbp).
//
// Nested ND splits: hierarchy axis 0 splits first, and each later axis splits the
// range the earlier ones left (OneFlow's GetTensorSliceView4ParallelId), so
// (S(0), S(0)) on [2,2] over 6 rows gives 2,1,2,1 rows. Uneven sizes follow the
// balanced splitter; a dim smaller than its parts leaves some ranks with empty
// ranges and zero-sized local tensors, which is legal everywhere in Tessera.
// Broadcast and partial axes do not narrow the range: those ranks hold the full
// range of the enclosing split (a partial rank holds a full-size partial value).
#ifndef TESSERA_CORE_SBP_PHYSICAL_LAYOUT_H_
#define TESSERA_CORE_SBP_PHYSICAL_LAYOUT_H_

#include <cstdint>
#include <string>

#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/balanced_split.h"
#include "core/sbp/sbp.h"

namespace tessera {

struct PhysicalLayout {
  Shape local_shape;                   // the local tensor's shape
  Range ranges[Shape::kMaxDims] = {};  // logical index range held, per tensor dim

  // "[0,3)x[0,5)".
  std::string RangesToString() const;
};

// Layout of parallel index `index` (0 <= index < placement.parallel_num()).
// Validates the nd-sbp against the placement and shape.
Result<PhysicalLayout> PhysicalLayoutAt(const Shape& logical_shape, const Placement& placement,
                                        const NdSbp& nd_sbp, int64_t index);
// The same into `*layout` (left as it was on an error): for the eager hot path, which
// lays out every op's outputs and would otherwise copy the ~200-byte layout twice.
Status PhysicalLayoutAt(const Shape& logical_shape, const Placement& placement, const NdSbp& nd_sbp,
                        int64_t index, PhysicalLayout* layout);

// Layout of `rank`; NOT_FOUND when the placement does not hold it.
Result<PhysicalLayout> PhysicalLayoutOfRank(const Shape& logical_shape, const Placement& placement,
                                            const NdSbp& nd_sbp, int32_t rank);

// When `layout`'s piece of a row-major tensor of `logical_shape` is one contiguous run
// of the logical buffer, the element offset where it starts; else -1. It is one run
// when, for the last dim k the piece does not hold whole, every dim before k holds a
// single index (dims after k are whole by the choice of k). Empty pieces are not runs.
int64_t ContiguousRunOffset(const PhysicalLayout& layout, const Shape& logical_shape);

}  // namespace tessera

#endif  // TESSERA_CORE_SBP_PHYSICAL_LAYOUT_H_
