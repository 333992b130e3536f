#include "core/tensor/partial_fill.h"

#include <cstring>

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
      // All-zero bytes are 0 in every supported dtype (IEEE +0.0 and integer 0).
      std::memset(local, 0, static_cast<size_t>(t.local_bytes()));
      return Status::Ok();
    }
  }
  return Status::Ok();
}

}  // namespace tensor
}  // namespace tessera
