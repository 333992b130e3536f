#include "core/boxing/rank_program.h"

#include <algorithm>
#include <utility>

#include "core/boxing/axis_move.h"
#include "core/boxing/box_1d.h"
#include "core/sbp/physical_layout.h"

namespace tessera::boxing {
namespace {

int64_t LocalCount(const Shape& shape, const Placement& placement, const NdSbp& nd, int32_t rank) {
  if (!placement.contains(rank)) return 0;
  // The plan validated the nd-sbp, so the layout cannot fail.
  return PhysicalLayoutOfRank(shape, placement, nd, rank).value().local_shape.num_elements();
}

}  // namespace

Result<std::shared_ptr<const RankProgram>> RankProgram::Make(std::shared_ptr<const BoxingPlan> plan,
                                                             int32_t world_rank,
                                                             BoxingBackend& backend) {
  std::shared_ptr<RankProgram> p(new RankProgram);
  const BoxingPlan& pl = *plan;
  p->world_rank_ = world_rank;
  p->in_count_ = LocalCount(pl.shape(), pl.src_placement(), pl.src(), world_rank);
  p->out_count_ = LocalCount(pl.shape(), pl.dst_placement(), pl.dst(), world_rank);
  for (const BoxingStep& s : pl.steps()) {
    Step step;
    const Placement& to_placement = pl.placement(s.to_side);
    step.out_count = LocalCount(pl.shape(), to_placement, s.to, world_rank);
    if (s.kind == BoxingStep::Kind::kReshard) {
      step.reshard.emplace(ReshardProgram::Make(pl.shape(), pl.dtype(), pl.placement(s.from_side),
                                                s.from, to_placement, s.to, world_rank));
      const std::vector<int32_t>& ranks = step.reshard->ranks();
      step.active = std::binary_search(ranks.begin(), ranks.end(), world_rank);
      if (step.active) {
        TESS_ASSIGN_OR_RETURN(step.comm, backend.ForRanks(ranks));
      }
    } else if (s.kind == BoxingStep::Kind::kRelabel) {
      step.active = to_placement.contains(world_rank);  // no communicator
    } else if (to_placement.contains(world_rank)) {
      step.active = true;
      const int64_t index = to_placement.index_of(world_rank);
      step.group_shape = GroupShape(pl.shape(), to_placement, s.from, s.axes, index);
      if (AxisCount(s.axes) == 1) {
        TESS_ASSIGN_OR_RETURN(step.comm, backend.ForAxis(to_placement, s.axis));
        step.group.emplace(to_placement.AxisGroup(s.axis, world_rank).value());
      } else {
        // A flattened group: the ranks that differ only along the step's axes.
        std::vector<int32_t> ranks = GroupRanks(to_placement, s.axes, index);
        TESS_ASSIGN_OR_RETURN(step.comm, backend.ForRanks(ranks));
        const int64_t n = static_cast<int64_t>(ranks.size());
        TESS_ASSIGN_OR_RETURN(Placement group,
                              Placement::Make(to_placement.device_type(), std::move(ranks), {n}));
        step.group.emplace(std::move(group));
      }
    }
    p->steps_.push_back(std::move(step));
  }
  // Only now, with every communicator created: see Make's comment.
  for (Step& step : p->steps_) {
    if (step.active) {
      TESS_ASSIGN_OR_RETURN(step.ops, backend.OpsFor(step.comm));
    }
  }
  if (pl.steps().empty() && pl.src_placement().contains(world_rank)) {
    TESS_ASSIGN_OR_RETURN(p->copy_ops_, backend.OpsFor(nullptr));
  }
  p->plan_ = std::move(plan);
  return std::shared_ptr<const RankProgram>(std::move(p));
}

Status RankProgram::Run(const void* in, void* out, BoxingWorkspace& workspace) const {
  const BoxingPlan& pl = *plan_;
  const size_t elem = DTypeSize(pl.dtype());
  if (steps_.empty()) {
    if (in == out || in_count_ == 0) return Status::Ok();
    TESS_RETURN_IF_ERROR(copy_ops_->CopyBytes(out, in, in_count_ * elem));
    return copy_ops_->Finish();
  }
  const void* current = in;
  int current_slot = -1;  // the staging slot holding `current`, if any
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step& step = steps_[i];
    const BoxingStep& s = pl.steps()[i];
    const bool last = i + 1 == steps_.size();
    if (s.kind == BoxingStep::Kind::kRelabel && !last) continue;  // the same local pieces
    void* next = out;
    if (!last) {
      // The intermediate slot `current` does not occupy.
      const int slot = current_slot == BoxingWorkspace::kFirstIntermediateSlot
                           ? BoxingWorkspace::kFirstIntermediateSlot + 1
                           : BoxingWorkspace::kFirstIntermediateSlot;
      TESS_ASSIGN_OR_RETURN(next, workspace.Staging(slot, step.out_count * elem));
      current_slot = slot;
    }
    if (step.active) {
      const LocalOps& ops = *step.ops;
      if (s.kind == BoxingStep::Kind::kRelabel) {
        // An empty piece may be NULL (CopyBytes then copies nothing).
        if (next != current) {
          TESS_RETURN_IF_ERROR(ops.CopyBytes(next, current, step.out_count * elem));
        }
      } else if (s.kind == BoxingStep::Kind::kReshard) {
        TESS_RETURN_IF_ERROR(step.reshard->Run(current, next, *step.comm, ops));
      } else {
        TESS_RETURN_IF_ERROR(Box1d(current, step.group_shape, pl.dtype(), *step.group,
                                   s.from[s.axis], s.to[s.axis], next, *step.comm, &workspace,
                                   &ops));
      }
      // The next step may run on another communicator's stream, and `out` must be
      // complete on return; host ops have nothing to wait for.
      TESS_RETURN_IF_ERROR(ops.Finish());
    }
    current = next;
  }
  return Status::Ok();
}

}  // namespace tessera::boxing
