#include "core/tensor/partial_fill.h"

#include "core/boxing/reduction_identity.h"
#include "core/comm/mpi_world.h"

namespace tessera {
namespace tensor {

Status ApplyPartialOwnership(const GlobalTensor& t, void* local) {
  if (!t.has_local() || t.local_bytes() == 0) return Status::Ok();
  TESS_ASSIGN_OR_RETURN(int32_t rank, comm::WorldRank());
  const Placement& p = t.placement();
  const int64_t index = p.index_of(rank);
  for (int axis = 0; axis < t.nd_sbp().num_axes(); ++axis) {
    if (t.nd_sbp()[axis].kind == SbpKind::kPartialSum && p.Coordinate(index, axis) != 0) {
      // The sum's identity: -0.0 for floats (so the owner's -0.0 sums back to -0.0).
      boxing::FillReductionIdentity(local, t.local_shape().num_elements(), t.dtype(),
                                    comm::ReduceOp::kSum);
      return Status::Ok();
    }
  }
  return Status::Ok();
}

}  // namespace tensor
}  // namespace tessera
