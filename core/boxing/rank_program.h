// One rank's part of a boxing plan, precomputed once per plan and process: for each
// step whether this rank takes part, the communicator of the group or union it joins,
// the 1-d view an axis step hands Box1d (axis_move.h), the reshard's exchange lists
// (reshard.h), and this rank's local element count after each step.
//
// The communicators and local ops come from a BoxingBackend (boxing_backend.h): MPI
// and host memory for cpu placements, NCCL and device memory for cuda ones. The
// communicators are borrowed from the backend's registry, which owns them until its
// Clear (run by FinalizeWorld): a program must not run after that. Holding them
// keeps the registry's lock off the boxing hot path.
#ifndef TESSERA_CORE_BOXING_RANK_PROGRAM_H_
#define TESSERA_CORE_BOXING_RANK_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/boxing/boxing_backend.h"
#include "core/boxing/boxing_plan.h"
#include "core/boxing/boxing_workspace.h"
#include "core/boxing/reshard.h"
#include "core/comm/communicator.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera::boxing {

class RankProgram {
 public:
  // `plan` must be valid (from FindBoxingPlan) and every rank of its placements must
  // exist in the world; `world_rank` need not be in either placement. Creates the
  // communicators of the steps this rank takes part in, in step order: collective
  // over each one's members, so every rank must build the same plan's program in
  // the same order relative to its other communicator creations (SPMD). Each step's
  // local ops are asked for after every communicator exists, so a local failure there
  // cannot leave another member waiting in a creation. `backend` must serve the
  // plan's device type and outlive the program.
  static Result<std::shared_ptr<const RankProgram>> Make(std::shared_ptr<const BoxingPlan> plan,
                                                         int32_t world_rank,
                                                         BoxingBackend& backend);

  int32_t world_rank() const { return world_rank_; }
  const BoxingPlan& plan() const { return *plan_; }
  // This rank's local element counts in the source and destination layouts (0 where
  // the placement does not hold it).
  int64_t in_count() const { return in_count_; }
  int64_t out_count() const { return out_count_; }

  // Runs the steps: reads `in` (in_count() elements), writes `out` (out_count()),
  // keeps the tensors between steps in staging slots 2 and 3 of `workspace`. A
  // relabel step moves nothing: the next step reads the same buffer (a relabel as
  // the last step copies it into `out`). Each step's local work is finished (device
  // work waited for) before the next step starts and before Run returns, so `out` is
  // complete on return.
  // Preconditions: the buffers hold their counts and do not overlap, in the backend's
  // memory, as is `workspace`'s staging; the tensor has elements.
  Status Run(const void* in, void* out, BoxingWorkspace& workspace) const;

 private:
  struct Step {
    bool active = false;                  // this rank takes part
    comm::Communicator* comm = nullptr;   // its group (axis) or union (reshard)
    std::shared_ptr<const LocalOps> ops;  // set where active
    int64_t out_count = 0;                // local elements after the step
    // Axis steps: the 1-d view of this rank's group (along one axis, or flattened).
    std::optional<Placement> group;
    Shape group_shape;
    // Reshard steps.
    std::optional<ReshardProgram> reshard;
  };

  RankProgram() = default;

  std::shared_ptr<const BoxingPlan> plan_;
  int32_t world_rank_ = -1;
  int64_t in_count_ = 0;
  int64_t out_count_ = 0;
  std::vector<Step> steps_;
  // A plan with no steps: the local copy's ops (on ranks of the placement).
  std::shared_ptr<const LocalOps> copy_ops_;
};

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_RANK_PROGRAM_H_
