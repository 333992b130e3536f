// BoxingLayouts: the checked "what" of one boxing — a logical shape and dtype, and the
// two placed nd-sbps (source and destination) its pieces move between. Only Make
// builds one, and Make checks everything about the values that can be checked
// without the MPI world, so code holding a BoxingLayouts knows that the dtype is a
// dtype, every sbp is an SBP, each nd-sbp has one sbp per hierarchy axis of its
// placement and splits only tensor axes that exist (so every PhysicalLayoutAt on it
// succeeds). Boundaries (Box, PlanBoxing, tess_boxing_run, to_global) validate once into one
// and hand it down; nothing below them checks the nd-sbps again.
//
// What a particular move further needs (a dtype boxing can move, both placements on
// one device type, host or device memory) is a property of the held values, checked
// by the call that has the restriction (RequireBoxable, Box, BoxOnDevice).
//
// Cheap to copy and move: placements are shared handles, Shape and NdSbp inline; no
// heap allocation on success.
#ifndef TESSERA_CORE_BOXING_BOXING_LAYOUTS_H_
#define TESSERA_CORE_BOXING_BOXING_LAYOUTS_H_

#include <cstdint>
#include <string>

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera::boxing {

// Which of a boxing's two placements a layout (or a plan's state) lives on.
enum class Side : int { kSrc = 0, kDst = 1 };

class BoxingLayouts {
 public:
  // INVALID_ARGUMENT unless `dtype` is a dtype value, every sbp of `src` and `dst` is
  // an SBP kind (splits of dims >= 0), and each nd-sbp fits its placement and `shape`
  // (ValidateNdSbp). Messages start with `caller` and name the side ("src" / "dst"):
  //   "Box: src nd-sbp S(3) splits tensor axis 3 but the tensor of shape [4,3,2] has 3 axes"
  static Result<BoxingLayouts> Make(const char* caller, const Shape& shape, DType dtype,
                                    const Placement& src_placement, const NdSbp& src,
                                    const Placement& dst_placement, const NdSbp& dst);

  // The same nd-sbps on other placements of the same hierarchies (the host twins of
  // device placements, through which to_global stages a move): nothing to re-check but
  // the hierarchies. INVALID_ARGUMENT naming `caller` when a hierarchy differs.
  Result<BoxingLayouts> OnPlacements(const char* caller, const Placement& src_placement,
                                     const Placement& dst_placement) const;

  // What every boxing of these layouts needs beyond their validity: a dtype boxing
  // moves (f32, f64, i32, i64: INVALID_ARGUMENT otherwise) and both placements on one
  // device type (UNIMPLEMENTED otherwise: to_global stages such moves through host
  // memory). Messages start with `caller`. Cheap: compares held values.
  Status RequireBoxable(const char* caller) const;

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  const Placement& src_placement() const { return src_placement_; }
  const NdSbp& src() const { return src_; }
  const Placement& dst_placement() const { return dst_placement_; }
  const NdSbp& dst() const { return dst_; }
  const Placement& placement(Side side) const {
    return side == Side::kSrc ? src_placement_ : dst_placement_;
  }
  const NdSbp& nd_sbp(Side side) const { return side == Side::kSrc ? src_ : dst_; }
  // Nothing moves: the same placement and nd-sbp on both sides.
  bool unchanged() const { return src_placement_ == dst_placement_ && src_ == dst_; }

  // Elements of world rank `rank`'s piece on `side`; 0 where that placement lacks it.
  int64_t PieceElements(Side side, int32_t rank) const;
  // "(src cpu:[0,1], dst cuda:[0,1])", for messages.
  std::string PlacementsText() const;

 private:
  BoxingLayouts(const Shape& shape, DType dtype, const Placement& src_placement, const NdSbp& src,
                const Placement& dst_placement, const NdSbp& dst)
      : shape_(shape),
        dtype_(dtype),
        src_placement_(src_placement),
        src_(src),
        dst_placement_(dst_placement),
        dst_(dst) {}

  Shape shape_;
  DType dtype_;
  Placement src_placement_;
  NdSbp src_;
  Placement dst_placement_;
  NdSbp dst_;
};

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_BOXING_LAYOUTS_H_
