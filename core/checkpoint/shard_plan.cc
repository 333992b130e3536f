#include "core/checkpoint/shard_plan.h"

#include <algorithm>

namespace tessera::checkpoint {
namespace {

bool SameSlice(const PhysicalLayout& a, const PhysicalLayout& b, int ndim) {
  for (int axis = 0; axis < ndim; ++axis) {
    if (!(a.ranges[axis] == b.ranges[axis])) return false;
  }
  return true;
}

}  // namespace

Result<std::vector<PlannedShard>> PlanShards(const Shape& shape, const Placement& placement,
                                             const NdSbp& nd_sbp) {
  for (int axis = 0; axis < nd_sbp.num_axes(); ++axis) {
    if (nd_sbp[axis].is_partial()) {
      return InvalidArgument("PlanShards: nd-sbp " + nd_sbp.ToString() +
                             " has a partial axis; box it to B first");
    }
  }
  std::vector<PlannedShard> shards;
  for (int64_t index = 0; index < placement.parallel_num(); ++index) {
    TESS_ASSIGN_OR_RETURN(PhysicalLayout layout, PhysicalLayoutAt(shape, placement, nd_sbp, index));
    if (layout.local_shape.num_elements() == 0) continue;
    const int32_t rank = placement.rank_at(index);
    auto same = std::find_if(shards.begin(), shards.end(), [&](const PlannedShard& s) {
      return SameSlice(s.layout, layout, shape.ndim());
    });
    if (same == shards.end()) {
      shards.push_back(PlannedShard{rank, layout});
    } else {
      same->writer = std::min(same->writer, rank);
    }
  }
  return shards;
}

NdSbp WithoutPartial(const NdSbp& nd_sbp) {
  NdSbp out = nd_sbp;
  for (int axis = 0; axis < out.num_axes(); ++axis) {
    if (out[axis].is_partial()) out[axis] = Sbp::Broadcast();
  }
  return out;
}

std::vector<Range> Intersect(const Range* a, const Range* b, int ndim) {
  std::vector<Range> out(ndim);
  for (int axis = 0; axis < ndim; ++axis) {
    out[axis].begin = std::max(a[axis].begin, b[axis].begin);
    out[axis].end = std::max(out[axis].begin, std::min(a[axis].end, b[axis].end));
  }
  return out;
}

}  // namespace tessera::checkpoint
