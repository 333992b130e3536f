// Which pieces of a saved tensor are written, and by whom: one shard per distinct
// non-empty slice of the layout, written by the lowest world rank holding that slice.
// B axes give several ranks the same slice; only one writes it. The plan depends only
// on (shape, placement, nd-SBP), so every rank computes the same one without talking.
#ifndef TESSERA_CORE_CHECKPOINT_SHARD_PLAN_H_
#define TESSERA_CORE_CHECKPOINT_SHARD_PLAN_H_

#include <cstdint>
#include <vector>

#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/physical_layout.h"
#include "core/sbp/sbp.h"

namespace tessera::checkpoint {

struct PlannedShard {
  int32_t writer = 0;  // world rank
  PhysicalLayout layout;
};

// In the order of the first parallel index holding each slice. `nd_sbp` must have no
// partial axis (a partial piece is not a slice of the value); INVALID_ARGUMENT if it
// has.
Result<std::vector<PlannedShard>> PlanShards(const Shape& shape, const Placement& placement,
                                             const NdSbp& nd_sbp);

// `nd_sbp` with every partial axis made B: the layout whose pieces are slices of the
// logical value, which a partial tensor is boxed to before saving and loaded into
// before being made partial.
NdSbp WithoutPartial(const NdSbp& nd_sbp);

// The intersection of two slices of one tensor (per axis [max begin, min end)); some
// axis is empty when they do not overlap.
std::vector<Range> Intersect(const Range* a, const Range* b, int ndim);

}  // namespace tessera::checkpoint

#endif  // TESSERA_CORE_CHECKPOINT_SHARD_PLAN_H_
