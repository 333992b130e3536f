// What inference knows about a global tensor: logical shape, dtype, placement and
// nd-sbp. Cheap to copy (the placement is a shared handle; shape and nd-sbp are
// inline), and hashable without allocating.
#ifndef TESSERA_CORE_INFER_TENSOR_META_H_
#define TESSERA_CORE_INFER_TENSOR_META_H_

#include <cstdint>
#include <string>

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera {
namespace infer {

struct TensorMeta {
  Shape shape;
  DType dtype;
  Placement placement;
  NdSbp nd_sbp;

  // Checks the dtype, that the byte size fits int64 (Shape::CheckByteSize) and the
  // nd-sbp against the placement and shape.
  static Result<TensorMeta> Make(Shape shape, DType dtype, Placement placement, NdSbp nd_sbp);

  // Logical size in bytes: the T of the cost model.
  double bytes() const { return static_cast<double>(shape.num_elements()) * DTypeSize(dtype); }
  // "[4,6] f32 cpu:[0,1] S(0)".
  std::string ToString() const;
  size_t Hash() const;

  friend bool operator==(const TensorMeta& a, const TensorMeta& b) {
    return a.shape == b.shape && a.dtype == b.dtype && a.nd_sbp == b.nd_sbp &&
           a.placement == b.placement;
  }
  friend bool operator!=(const TensorMeta& a, const TensorMeta& b) { return !(a == b); }
};

// A user constraint: input (or output) `slot` must have `nd_sbp`. Slots count flat
// (a repeated argument's copies in order).
struct SbpConstraint {
  bool is_output = false;
  int slot = 0;
  NdSbp nd_sbp;
  friend bool operator==(const SbpConstraint& a, const SbpConstraint& b) {
    return a.is_output == b.is_output && a.slot == b.slot && a.nd_sbp == b.nd_sbp;
  }
  friend bool operator!=(const SbpConstraint& a, const SbpConstraint& b) { return !(a == b); }
};

}  // namespace infer
}  // namespace tessera

#endif  // TESSERA_CORE_INFER_TENSOR_META_H_
