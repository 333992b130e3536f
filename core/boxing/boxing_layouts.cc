#include "core/boxing/boxing_layouts.h"

#include "core/sbp/physical_layout.h"

namespace tessera::boxing {
namespace {

// One wording for a dtype boxing cannot take, whether it is no dtype at all (Make) or
// one boxing does not move (RequireBoxable).
Status DTypeNotSupported(const char* caller, DType dtype) {
  const std::string name = IsValidDType(static_cast<int>(dtype))
                               ? DTypeName(dtype)
                               : "value " + std::to_string(static_cast<int>(dtype));
  return InvalidArgument(std::string(caller) + ": dtype " + name +
                         " is not supported (supported: f32, f64, f16, bf16, i32, i64, bool)");
}

// What ValidateNdSbp takes for granted: each Sbp is one of the kinds, splits >= 0
// (ResolveNdSbp has mapped S(-k) already, or refused it).
Status CheckSbpValues(const char* caller, const char* name, const NdSbp& nd) {
  for (int i = 0; i < nd.num_axes(); ++i) {
    const Sbp& sbp = nd[i];
    if (sbp.kind != SbpKind::kSplit && sbp.kind != SbpKind::kBroadcast && !sbp.is_partial()) {
      return InvalidArgument(std::string(caller) + ": " + name + " nd-sbp axis " +
                             std::to_string(i) + " has sbp kind value " +
                             std::to_string(static_cast<int>(sbp.kind)) +
                             ", which is not an SBP kind");
    }
  }
  return Status::Ok();
}

// ValidateNdSbp, its message naming `caller` and the side.
Status CheckFit(const char* caller, const char* name, const Shape& shape,
                const Placement& placement, const NdSbp& nd) {
  const Status s = ValidateNdSbp(nd, placement, shape);
  if (s.ok()) return s;
  return Status(s.code(), std::string(caller) + ": " + name + " " + s.message());
}

}  // namespace

Result<BoxingLayouts> BoxingLayouts::Make(const char* caller, const Shape& shape, DType dtype,
                                          const Placement& src_placement, const NdSbp& src_given,
                                          const Placement& dst_placement, const NdSbp& dst_given) {
  if (!IsValidDType(static_cast<int>(dtype))) return DTypeNotSupported(caller, dtype);
  // S(-k) counts from the end of the shape.
  Result<NdSbp> src_resolved = ResolveNdSbp(src_given, shape);
  if (!src_resolved.ok()) {
    return InvalidArgument(std::string(caller) + ": src " + src_resolved.status().message());
  }
  Result<NdSbp> dst_resolved = ResolveNdSbp(dst_given, shape);
  if (!dst_resolved.ok()) {
    return InvalidArgument(std::string(caller) + ": dst " + dst_resolved.status().message());
  }
  const NdSbp& src = *src_resolved;
  const NdSbp& dst = *dst_resolved;
  if (Status s = shape.CheckByteSize(DTypeSize(dtype), DTypeName(dtype)); !s.ok()) {
    return InvalidArgument(std::string(caller) + ": " + s.message());
  }
  // Both sides' sbp values before either side's fit: ValidateNdSbp reads them.
  TESS_RETURN_IF_ERROR(CheckSbpValues(caller, "src", src));
  TESS_RETURN_IF_ERROR(CheckSbpValues(caller, "dst", dst));
  TESS_RETURN_IF_ERROR(CheckFit(caller, "src", shape, src_placement, src));
  TESS_RETURN_IF_ERROR(CheckFit(caller, "dst", shape, dst_placement, dst));
  for (const auto& [name, nd] :
       {std::pair<const char*, const NdSbp*>{"src", &src}, {"dst", &dst}}) {
    const Status s = CheckBoolNotPartial(dtype, *nd, name);
    if (!s.ok()) return InvalidArgument(std::string(caller) + ": " + s.message());
  }
  return BoxingLayouts(shape, dtype, src_placement, src, dst_placement, dst);
}

Result<BoxingLayouts> BoxingLayouts::OnPlacements(const char* caller,
                                                  const Placement& src_placement,
                                                  const Placement& dst_placement) const {
  if (src_placement.hierarchy() != src_placement_.hierarchy() ||
      dst_placement.hierarchy() != dst_placement_.hierarchy()) {
    return InvalidArgument(std::string(caller) + ": the layouts " + PlacementsText() +
                           " cannot move to placements of other hierarchies (src " +
                           src_placement.ToString() + ", dst " + dst_placement.ToString() + ")");
  }
  return BoxingLayouts(shape_, dtype_, src_placement, src_, dst_placement, dst_);
}

Status BoxingLayouts::RequireBoxable(const char* caller) const {
  if (!IsSupported(dtype_)) return DTypeNotSupported(caller, dtype_);
  const DeviceType from = src_placement_.device_type(), to = dst_placement_.device_type();
  if (from != to) {
    return Unimplemented(std::string(caller) + ": boxing between device types " +
                         DeviceTypeName(from) + " and " + DeviceTypeName(to) + " " +
                         PlacementsText() +
                         " is not implemented; to_global stages such moves through host memory");
  }
  return Status::Ok();
}

int64_t BoxingLayouts::PieceElements(Side side, int32_t rank) const {
  const Placement& placement = this->placement(side);
  const int64_t index = placement.index_of(rank);
  if (index < 0) return 0;
  // Make checked the nd-sbp against this placement and shape: no failure here.
  return PhysicalLayoutAt(shape_, placement, nd_sbp(side), index)
      .value()
      .local_shape.num_elements();
}

std::string BoxingLayouts::PlacementsText() const {
  return "(src " + src_placement_.ToString() + ", dst " + dst_placement_.ToString() + ")";
}

}  // namespace tessera::boxing
