// ServedPlan: one compiled plan as a server runs it. The driver holds a whole batch of
// each input ([capacity, ...] rows, host memory); RunStaged, called on every rank in
// the same order, boxes those batches from the driver into the plan's input layouts,
// runs the plan and boxes each output back to the driver as a whole batch. All staging
// is allocated here, once, and the boxing workspace is kept, so a warm run allocates
// nothing.
#ifndef TESSERA_CORE_SERVE_SERVED_PLAN_H_
#define TESSERA_CORE_SERVE_SERVED_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/boxing/boxing_layouts.h"
#include "core/boxing/boxing_workspace.h"
#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/kernel/kernel.h"
#include "core/plan/compile.h"
#include "core/plan/plan_exec.h"

namespace tessera::serve {

// How a plan is served (tess_serve_plan_options, resolved).
struct ServePlanOptions {
  bool batching = false;
  int64_t max_batch_rows = 0;  // 0: the capacity
  int64_t max_queue_delay_us = 0;
  int64_t max_queued_requests = 0;  // 0: kDefaultMaxQueuedRequests
};

inline constexpr int64_t kDefaultMaxQueuedRequests = 4096;
inline constexpr int64_t kMaxQueuedRequestsLimit = 1000000;
inline constexpr int64_t kMaxQueueDelayUs = 10000000;

// One data input or output as the server sees it: rows of `width` elements.
struct ServedTensor {
  Shape shape;  // the plan's, [capacity, ...]
  DType dtype = DType::kF32;
  int64_t width = 1;     // elements per row
  size_t row_bytes = 0;  // width * element size
  // Driver <-> plan layouts (inputs: driver -> plan; outputs: plan -> driver), on the
  // host twins of the plan's placements.
  std::optional<boxing::BoxingLayouts> layouts;
  bool has_local = false;  // this rank holds a piece on the plan's side
  Shape local_shape;
  std::vector<char> local;   // inputs: this rank's piece; outputs: host copy (device plans)
  std::vector<char> driver;  // the whole [capacity, width] batch (driver only)
};

class ServedPlan {
 public:
  // Checks that every data input and output is batched along axis 0 with one size (the
  // capacity), resolves `options` (INVALID_ARGUMENT naming the field and value) and
  // instantiates the plan. Local.
  static Result<std::unique_ptr<ServedPlan>> Create(std::shared_ptr<const plan::CompiledPlan> plan,
                                                    const ServePlanOptions& options,
                                                    int32_t driver_rank, bool is_driver);

  int64_t capacity() const { return capacity_; }
  const ServePlanOptions& options() const { return options_; }
  const std::vector<ServedTensor>& inputs() const { return inputs_; }
  const std::vector<ServedTensor>& outputs() const { return outputs_; }

  // The driver's batch of input i / output i (capacity rows, row-major).
  char* driver_input(size_t i) { return inputs_[i].driver.data(); }
  const char* driver_output(size_t i) const { return outputs_[i].driver.data(); }

  // Every rank, in the same order: driver batches in, plan, driver batches out. Not
  // thread-safe (one dispatcher or follower thread).
  Status RunStaged();

 private:
  ServedPlan() = default;

  std::shared_ptr<const plan::CompiledPlan> plan_;
  std::unique_ptr<plan::PlanInstance> instance_;
  ServePlanOptions options_;
  int64_t capacity_ = 0;
  bool is_driver_ = false;
  std::vector<ServedTensor> inputs_;
  std::vector<ServedTensor> outputs_;
  std::vector<kernels::LocalTensor> run_inputs_;
  boxing::BoxingWorkspace workspace_;
};

}  // namespace tessera::serve

#endif  // TESSERA_CORE_SERVE_SERVED_PLAN_H_
