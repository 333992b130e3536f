// Moving a global tensor between layouts, and getting its value out.
#ifndef TESSERA_CORE_EAGER_GLOBAL_CAST_H_
#define TESSERA_CORE_EAGER_GLOBAL_CAST_H_

#include "core/common/status.h"
#include "core/eager/global_tensor.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera {
namespace eager {

// The same logical value held as (placement, nd_sbp), moved by boxing (a cost-chosen
// boxing plan). Returns `x` itself when nothing changes. Every rank of the world calls
// it; ranks outside both placements only build the metadata. On a placeholder being
// captured (core/plan/capture.h) it records an `identity` op with the output pinned to
// `nd_sbp` (a boxing step in the plan); UNIMPLEMENTED for another placement.
Result<Tensor> ToGlobal(const Tensor& x, const Placement& placement, const NdSbp& nd_sbp);

// The whole logical value, written to `host` (shape().num_elements() elements of
// dtype(), row-major) on EVERY rank of the world, including ranks outside the
// placement: what `numpy()` returns. A collective over the world. FAILED_PRECONDITION
// for a placeholder, which has no value.
Status ToHost(const Tensor& x, void* host);

}  // namespace eager
}  // namespace tessera

#endif  // TESSERA_CORE_EAGER_GLOBAL_CAST_H_
