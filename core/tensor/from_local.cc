// FromLocal: a global tensor from each rank's local piece (creation.h). A cuda tensor's
// piece is assembled on the host (the broadcast-axis copies included) and copied up once.
#include <cstring>
#include <string>
#include <vector>

#include "core/comm/call_check.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_world.h"
#include "core/common/checked_math.h"
#include "core/sbp/physical_layout.h"
#include "core/tensor/creation.h"
#include "core/tensor/cuda_device.h"
#include "core/tensor/host_staging.h"

namespace tessera {
namespace tensor {
namespace {

// What each rank tells the others about its local piece: [holds a piece, dtype, ndim,
// dims...] as int64s, so one all-gather gives every rank the same view.
constexpr int kRecord = 3 + Shape::kMaxDims;

std::string ShapeText(const int64_t* rec) {
  std::string s = "[";
  for (int64_t d = 0; d < rec[2]; ++d) s += (d ? "," : "") + std::to_string(rec[3 + d]);
  return s + "]";
}

// The logical shape the locals describe: along a dim split by some hierarchy axes, the
// sum of the local dims of the ranks whose coordinates are 0 on every other axis (those
// ranks tile the dim once, in nested order); other dims as parallel index 0 has them.
Result<Shape> LogicalShapeFromLocals(const std::vector<int64_t>& records,
                                     const Placement& placement, const NdSbp& nd_sbp) {
  const int64_t* first = &records[static_cast<size_t>(placement.rank_at(0)) * kRecord];
  const int ndim = static_cast<int>(first[2]);
  std::vector<int64_t> dims(first + 3, first + 3 + ndim);
  for (int d = 0; d < ndim; ++d) {
    bool split = false;
    for (int a = 0; a < nd_sbp.num_axes(); ++a) {
      split |= nd_sbp[a].is_split() && nd_sbp[a].axis == d;
    }
    if (!split) continue;
    int64_t total = 0;
    for (int64_t i = 0; i < placement.parallel_num(); ++i) {
      bool tiles = true;
      for (int a = 0; a < nd_sbp.num_axes(); ++a) {
        const bool splits_d = nd_sbp[a].is_split() && nd_sbp[a].axis == d;
        if (!splits_d && placement.Coordinate(i, a) != 0) tiles = false;
      }
      const int64_t part = records[static_cast<size_t>(placement.rank_at(i)) * kRecord + 3 + d];
      if (tiles && !CheckedAdd(total, part, &total)) {
        // Every rank sums the same records, so every rank returns this error.
        return InvalidArgument("the local dims along split dim " + std::to_string(d) +
                               " add up to more than int64 holds (the logical shape's dim " +
                               std::to_string(d) + " would overflow)");
      }
    }
    dims[d] = total;
  }
  return Shape::Make(dims);
}

// This rank's piece against its part of the tensor `t` being made.
Status CheckPiece(const GlobalTensor& t, const void* local, const Shape& local_shape,
                  int32_t rank) {
  if (t.local_shape() != local_shape) {
    return InvalidArgument("from_local: rank " + std::to_string(rank) + "'s local shape " +
                           local_shape.ToString() + " is not its part " +
                           t.local_shape().ToString() + " of logical shape " +
                           t.shape().ToString() + " under " + t.nd_sbp().ToString() + " on " +
                           t.placement().ToString());
  }
  if (t.local_bytes() > 0 && local == nullptr) {
    return InvalidArgument("from_local: rank " + std::to_string(rank) +
                           "'s local buffer is NULL but its local shape " + local_shape.ToString() +
                           " has elements");
  }
  return Status::Ok();
}

// Check mode: the placement agrees on what is made. Local shapes may differ (uneven
// splits); everything else must not.
Status AgreeFromLocalCall(DType dtype, const Placement& placement, const NdSbp& nd_sbp,
                          const Shape* logical_shape) {
  comm::CallFingerprint fp(
      "from_local", logical_shape != nullptr ? "with a logical shape" : "from the local shapes");
  fp.AddDType(dtype).AddPlacement(placement).AddNdSbp(nd_sbp);
  if (logical_shape != nullptr) fp.AddShape(*logical_shape);
  return comm::AgreeCallOnPlacement(placement, fp);
}

// Check mode: along every broadcast axis the ranks of a group must pass equal data
// (only the copy at coordinate 0 is kept, so a difference would vanish silently).
Status AgreeBroadcastData(const GlobalTensor& t, const void* local) {
  const NdSbp& nd_sbp = t.nd_sbp();
  for (int axis = 0; axis < nd_sbp.num_axes(); ++axis) {
    if (!nd_sbp[axis].is_broadcast() || t.placement().hierarchy()[axis] == 1) continue;
    TESS_ASSIGN_OR_RETURN(comm::MpiCommunicator * group,
                          comm::MpiCommRegistry::Global().ForAxis(t.placement(), axis));
    comm::CallFingerprint fp("from_local", "B data");
    fp.Add(comm::CallField::kData, comm::HashBytes(local, static_cast<size_t>(t.local_bytes())));
    Status s = comm::AgreeCall(*group, fp);
    if (!s.ok()) {
      return Status(s.code(), "from_local: the ranks of hierarchy axis " + std::to_string(axis) +
                                  " (B) must pass equal local data; " + s.message());
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Tensor> FromLocal(const void* local, const Shape& local_shape, DType dtype,
                         const Placement& placement, const NdSbp& nd_sbp_given,
                         const Shape* logical_shape, const Status* prepared) {
  // S(-k) is resolved once the rank is known: from the logical shape, or from rank
  // placement[0]'s local shape after the exchange (the same on every rank).
  NdSbp nd_sbp = nd_sbp_given;
  TESS_ASSIGN_OR_RETURN(int32_t rank, comm::WorldRank());
  // Before the shape exchange, so every rank of an unsupported placement fails alike.
  TESS_RETURN_IF_ERROR(CheckDeviceBuild(placement));
  const bool inside = placement.contains(rank);
  if (prepared != nullptr) {
    // The ranks that communicate next agree first whether every one of them could
    // read its piece: the world when it exchanges local shapes, else the placement.
    if (logical_shape == nullptr) {
      TESS_ASSIGN_OR_RETURN(comm::Communicator * world, comm::WorldGroup());
      TESS_RETURN_IF_ERROR(comm::AgreeLocalStatus(*world, *prepared));
    } else if (inside) {
      TESS_ASSIGN_OR_RETURN(comm::MpiCommunicator * group,
                            comm::MpiCommRegistry::Global().ForPlacement(placement));
      TESS_RETURN_IF_ERROR(comm::AgreeLocalStatus(*group, *prepared));
    } else {
      TESS_RETURN_IF_ERROR(*prepared);
    }
  }
  if (comm::CheckModeEnabled() && inside) {
    TESS_RETURN_IF_ERROR(AgreeFromLocalCall(dtype, placement, nd_sbp, logical_shape));
  }
  Shape logical;
  if (logical_shape != nullptr) {
    logical = *logical_shape;
    TESS_ASSIGN_OR_RETURN(nd_sbp, ResolveNdSbp(nd_sbp, logical));
  } else {
    // Every world rank learns every local shape, so all of them (outside ranks too)
    // compute the same logical shape or report the same error.
    TESS_ASSIGN_OR_RETURN(comm::MpiCommunicator * world, comm::MpiCommRegistry::Global().World());
    int64_t mine[kRecord] = {inside ? 1 : 0, static_cast<int64_t>(dtype), local_shape.ndim()};
    for (int d = 0; d < local_shape.ndim(); ++d) mine[3 + d] = local_shape.dim(d);
    std::vector<int64_t> records(static_cast<size_t>(world->size()) * kRecord);
    std::vector<int64_t> counts(static_cast<size_t>(world->size()), kRecord);
    TESS_RETURN_IF_ERROR(world->AllGatherV(mine, kRecord, records.data(), counts, {}, DType::kI64));
    for (int32_t r : placement.ranks()) {
      if (r >= world->size()) {
        return OutOfRange("from_local: placement " + placement.ToString() + " names rank " +
                          std::to_string(r) + " but the world has " +
                          std::to_string(world->size()) + " ranks");
      }
      const int64_t* rec = &records[static_cast<size_t>(r) * kRecord];
      const int64_t* rec0 = &records[static_cast<size_t>(placement.rank_at(0)) * kRecord];
      if (rec[1] != rec0[1]) {
        return InvalidArgument("from_local: rank " + std::to_string(r) + " passed dtype " +
                               DTypeName(static_cast<DType>(rec[1])) + " but rank " +
                               std::to_string(placement.rank_at(0)) + " passed " +
                               DTypeName(static_cast<DType>(rec0[1])));
      }
      if (rec[2] != rec0[2]) {
        return InvalidArgument("from_local: rank " + std::to_string(r) + "'s local shape " +
                               ShapeText(rec) + " has a different rank than rank " +
                               std::to_string(placement.rank_at(0)) + "'s " + ShapeText(rec0));
      }
    }
    const int64_t* rec0 = &records[static_cast<size_t>(placement.rank_at(0)) * kRecord];
    TESS_ASSIGN_OR_RETURN(const Shape rank0_local,
                          Shape::Make(rec0 + 3, static_cast<size_t>(rec0[2])));
    TESS_ASSIGN_OR_RETURN(nd_sbp, ResolveNdSbp(nd_sbp, rank0_local));
    TESS_ASSIGN_OR_RETURN(logical, LogicalShapeFromLocals(records, placement, nd_sbp));
    // OneFlow's rule: the locals must be exactly the balanced split of the logical shape.
    for (int64_t i = 0; i < placement.parallel_num(); ++i) {
      TESS_ASSIGN_OR_RETURN(PhysicalLayout want, PhysicalLayoutAt(logical, placement, nd_sbp, i));
      const int64_t* rec = &records[static_cast<size_t>(placement.rank_at(i)) * kRecord];
      bool same = true;
      for (int d = 0; d < logical.ndim(); ++d) same &= rec[3 + d] == want.local_shape.dim(d);
      if (!same) {
        return InvalidArgument(
            "from_local: rank " + std::to_string(placement.rank_at(i)) + "'s local shape " +
            ShapeText(rec) + " is not its part " + want.local_shape.ToString() +
            " of the balanced split of logical shape " + logical.ToString() + " under " +
            nd_sbp.ToString() + " on " + placement.ToString() +
            "; pass the logical shape explicitly if the locals are meant otherwise");
      }
    }
    dtype = static_cast<DType>(records[static_cast<size_t>(placement.rank_at(0)) * kRecord + 1]);
  }
  TESS_ASSIGN_OR_RETURN(infer::TensorMeta meta,
                        infer::TensorMeta::Make(logical, dtype, placement, nd_sbp));
  TESS_ASSIGN_OR_RETURN(std::shared_ptr<GlobalTensor> t, GlobalTensor::Allocate(meta, rank));
  if (!inside) return Tensor(t);
  // A wrong piece is this rank's alone: the placement agrees on it (in every mode), so
  // no rank goes on into the broadcast below or the next call while another returns.
  TESS_ASSIGN_OR_RETURN(comm::MpiCommunicator * members,
                        comm::MpiCommRegistry::Global().ForPlacement(placement));
  TESS_RETURN_IF_ERROR(comm::AgreeLocalStatus(*members, CheckPiece(*t, local, local_shape, rank)));
  if (comm::CheckModeEnabled()) TESS_RETURN_IF_ERROR(AgreeBroadcastData(*t, local));
  TESS_ASSIGN_OR_RETURN(HostStaging staging, HostStaging::For(t.get()));
  if (t->local_bytes() > 0) {
    std::memcpy(staging.data(), local, static_cast<size_t>(t->local_bytes()));
  }
  // Broadcast axes: the copy at coordinate 0 of each axis group wins.
  for (int axis = 0; axis < nd_sbp.num_axes(); ++axis) {
    if (!nd_sbp[axis].is_broadcast() || placement.hierarchy()[axis] == 1) continue;
    TESS_ASSIGN_OR_RETURN(comm::MpiCommunicator * group,
                          comm::MpiCommRegistry::Global().ForAxis(placement, axis));
    TESS_RETURN_IF_ERROR(
        group->Broadcast(staging.data(), t->local_shape().num_elements(), dtype, 0));
  }
  TESS_RETURN_IF_ERROR(staging.Commit());
  return Tensor(t);
}

}  // namespace tensor
}  // namespace tessera
