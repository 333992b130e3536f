#include "core/sbp/physical_layout.h"

namespace tessera {

std::string PhysicalLayout::RangesToString() const {
  std::string s;
  for (int i = 0; i < local_shape.ndim(); ++i) {
    if (i) s += "x";
    s += "[" + std::to_string(ranges[i].begin) + "," + std::to_string(ranges[i].end) + ")";
  }
  return s.empty() ? "scalar" : s;
}

Status PhysicalLayoutAt(const Shape& logical_shape, const Placement& placement, const NdSbp& nd_sbp,
                        int64_t index, PhysicalLayout* layout) {
  TESS_RETURN_IF_ERROR(ValidateNdSbp(nd_sbp, placement, logical_shape));
  if (index < 0 || index >= placement.parallel_num()) {
    return OutOfRange("parallel index " + std::to_string(index) + " is outside " +
                      placement.ToString());
  }
  layout->local_shape = logical_shape;
  for (int d = 0; d < Shape::kMaxDims; ++d) {
    layout->ranges[d] = {0, d < logical_shape.ndim() ? logical_shape.dim(d) : 0};
  }
  for (int axis = 0; axis < nd_sbp.num_axes(); ++axis) {
    const Sbp& sbp = nd_sbp[axis];
    if (!sbp.is_split()) continue;
    Range& r = layout->ranges[sbp.axis];
    Range sub =
        BalancedRange(r.size(), placement.hierarchy()[axis], placement.Coordinate(index, axis));
    r = {r.begin + sub.begin, r.begin + sub.end};
  }
  for (int d = 0; d < logical_shape.ndim(); ++d) {
    layout->local_shape.set_dim(d, layout->ranges[d].size());
  }
  return Status::Ok();
}

Result<PhysicalLayout> PhysicalLayoutAt(const Shape& logical_shape, const Placement& placement,
                                        const NdSbp& nd_sbp, int64_t index) {
  PhysicalLayout layout;
  TESS_RETURN_IF_ERROR(PhysicalLayoutAt(logical_shape, placement, nd_sbp, index, &layout));
  return layout;
}

Result<PhysicalLayout> PhysicalLayoutOfRank(const Shape& logical_shape, const Placement& placement,
                                            const NdSbp& nd_sbp, int32_t rank) {
  TESS_ASSIGN_OR_RETURN(int64_t index, placement.IndexOf(rank));
  return PhysicalLayoutAt(logical_shape, placement, nd_sbp, index);
}

int64_t ContiguousRunOffset(const PhysicalLayout& layout, const Shape& logical_shape) {
  const int ndim = logical_shape.ndim();
  if (layout.local_shape.num_elements() == 0) return -1;
  int k = ndim - 1;
  while (k >= 0 && layout.ranges[k].size() == logical_shape.dim(k)) --k;
  for (int d = 0; d < k; ++d) {
    if (layout.ranges[d].size() != 1) return -1;
  }
  int64_t offset = 0;
  for (int d = 0; d < ndim; ++d) offset = offset * logical_shape.dim(d) + layout.ranges[d].begin;
  return offset;
}

}  // namespace tessera
