#include "core/serve/served_plan.h"

#include <string>
#include <utility>

#include "core/boxing/boxing.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera::serve {
namespace {

// The host placement with `placement`'s ranks and hierarchy: boxing runs on host memory
// (a device plan's pieces are staged through `local`).
Result<Placement> HostTwin(const Placement& placement) {
  if (placement.device_type() == DeviceType::kCpu) return placement;
  return Placement::Make(DeviceType::kCpu, placement.ranks(), placement.hierarchy());
}

// "input 0 \"x\"" / "output 1".
std::string Describe(const char* side, size_t index, const std::string& name) {
  std::string s = std::string(side) + " " + std::to_string(index);
  if (!name.empty()) s += " \"" + name + "\"";
  return s;
}

// Fills `t` from value `vid` of `plan`: shape checks, width, layouts between the value's
// layout and the driver's whole batch (`to_driver`: value -> driver, else driver -> value).
Status Describe(const plan::CompiledPlan& plan, plan::ValueId vid, const char* side, size_t index,
                const Placement& driver, bool to_driver, bool is_driver, int64_t* capacity,
                ServedTensor* t) {
  const plan::ProgramValue& v = plan.program.value(vid);
  const std::string what = Describe(side, index, v.name);
  const Shape& shape = v.meta.shape;
  if (shape.ndim() < 1 || shape.dim(0) < 1) {
    return InvalidArgument("tess_server_add_plan: " + what + " has shape " + shape.ToString() +
                           "; a served plan's inputs and outputs are batched along axis 0 "
                           "(at least 1 row)");
  }
  if (*capacity == 0) *capacity = shape.dim(0);
  if (shape.dim(0) != *capacity) {
    return InvalidArgument("tess_server_add_plan: " + what + " has " +
                           std::to_string(shape.dim(0)) + " rows (shape " + shape.ToString() +
                           ") but input 0 has " + std::to_string(*capacity) +
                           "; every input and output of a served plan has the same dim 0");
  }
  t->shape = shape;
  t->dtype = v.meta.dtype;
  t->width = 1;
  for (int d = 1; d < shape.ndim(); ++d) t->width *= shape.dim(d);
  if (t->width == 0) {
    return InvalidArgument("tess_server_add_plan: " + what + " has shape " + shape.ToString() +
                           ": its rows hold no elements, and a served plan takes its inputs and "
                           "gives its outputs row by row");
  }
  t->row_bytes = static_cast<size_t>(t->width) * DTypeSize(t->dtype);
  TESS_ASSIGN_OR_RETURN(Placement twin, HostTwin(v.meta.placement));
  const NdSbp whole(Sbp::Broadcast());
  TESS_ASSIGN_OR_RETURN(boxing::BoxingLayouts layouts,
                        to_driver
                            ? boxing::BoxingLayouts::Make("tess_server_add_plan", shape, t->dtype,
                                                          twin, v.meta.nd_sbp, driver, whole)
                            : boxing::BoxingLayouts::Make("tess_server_add_plan", shape, t->dtype,
                                                          driver, whole, twin, v.meta.nd_sbp));
  t->layouts = std::move(layouts);
  const size_t id = static_cast<size_t>(vid);
  t->has_local = plan.has_local[id];
  if (t->has_local) t->local_shape = plan.local_shapes[id];
  const size_t local_bytes =
      t->has_local ? static_cast<size_t>(t->local_shape.num_elements()) * DTypeSize(t->dtype) : 0;
  // An input's piece is boxed into `local`; a device output is copied down into it.
  if (!to_driver || v.meta.placement.device_type() != DeviceType::kCpu) {
    t->local.assign(local_bytes, 0);
  }
  if (is_driver) t->driver.assign(static_cast<size_t>(*capacity) * t->row_bytes, 0);
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<ServedPlan>> ServedPlan::Create(
    std::shared_ptr<const plan::CompiledPlan> plan, const ServePlanOptions& options,
    int32_t driver_rank, bool is_driver) {
  if (plan == nullptr) return InvalidArgument("tess_server_add_plan: plan is NULL");
  std::unique_ptr<ServedPlan> p(new ServedPlan());
  p->is_driver_ = is_driver;
  TESS_ASSIGN_OR_RETURN(Placement driver, Placement::Make(DeviceType::kCpu, {driver_rank}, {1}));
  const plan::Program& program = plan->program;
  if (program.inputs().empty()) {
    return InvalidArgument(
        "tess_server_add_plan: the plan has no data inputs; a served plan takes its rows as "
        "inputs");
  }
  p->inputs_.resize(program.inputs().size());
  p->outputs_.resize(program.outputs().size());
  for (size_t i = 0; i < program.inputs().size(); ++i) {
    TESS_RETURN_IF_ERROR(Describe(*plan, program.inputs()[i], "input", i, driver, false, is_driver,
                                  &p->capacity_, &p->inputs_[i]));
  }
  for (size_t i = 0; i < program.outputs().size(); ++i) {
    TESS_RETURN_IF_ERROR(Describe(*plan, program.outputs()[i], "output", i, driver, true, is_driver,
                                  &p->capacity_, &p->outputs_[i]));
  }
  ServePlanOptions o = options;
  if (o.max_batch_rows < 0 || o.max_batch_rows > p->capacity_) {
    return InvalidArgument("tess_server_add_plan: options->max_batch_rows is " +
                           std::to_string(o.max_batch_rows) + "; it must be 0 (the plan's " +
                           std::to_string(p->capacity_) + " rows) to " +
                           std::to_string(p->capacity_));
  }
  if (o.max_batch_rows == 0) o.max_batch_rows = p->capacity_;
  if (o.max_queue_delay_us < 0 || o.max_queue_delay_us > kMaxQueueDelayUs) {
    return InvalidArgument("tess_server_add_plan: options->max_queue_delay_us is " +
                           std::to_string(o.max_queue_delay_us) + "; it must be 0 to " +
                           std::to_string(kMaxQueueDelayUs));
  }
  if (o.max_queued_requests < 0 || o.max_queued_requests > kMaxQueuedRequestsLimit) {
    return InvalidArgument("tess_server_add_plan: options->max_queued_requests is " +
                           std::to_string(o.max_queued_requests) + "; it must be 0 (" +
                           std::to_string(kDefaultMaxQueuedRequests) + ") to " +
                           std::to_string(kMaxQueuedRequestsLimit));
  }
  if (o.max_queued_requests == 0) o.max_queued_requests = kDefaultMaxQueuedRequests;
  p->options_ = o;
  TESS_ASSIGN_OR_RETURN(p->instance_, plan::PlanInstance::Create(plan));
  p->plan_ = std::move(plan);
  p->run_inputs_.resize(p->inputs_.size());
  for (size_t i = 0; i < p->inputs_.size(); ++i) {
    ServedTensor& t = p->inputs_[i];
    kernels::LocalTensor& l = p->run_inputs_[i];
    l.dtype = t.dtype;
    if (t.has_local) {
      l.shape = t.local_shape;
      l.data = t.local.empty() ? nullptr : t.local.data();
    }
  }
  return p;
}

Status ServedPlan::RunStaged() {
  for (ServedTensor& t : inputs_) {
    boxing::BoxingRequest r{*t.layouts, is_driver_ ? t.driver.data() : nullptr,
                            t.has_local && !t.local.empty() ? t.local.data() : nullptr,
                            &workspace_};
    TESS_RETURN_IF_ERROR(boxing::Box(r));
  }
  TESS_RETURN_IF_ERROR(instance_->Run(run_inputs_.data(), run_inputs_.size()));
  for (size_t i = 0; i < outputs_.size(); ++i) {
    ServedTensor& t = outputs_[i];
    const void* piece = nullptr;
    if (t.has_local) {
      TESS_ASSIGN_OR_RETURN(plan::PlanInstance::OutputView view, instance_->Output(i));
      if (view.mem_case.device_type == DeviceType::kCpu) {
        piece = view.local.data;
      } else {
        TESS_RETURN_IF_ERROR(instance_->OutputLocal(i, t.local.data(), t.local.size()));
        piece = t.local.data();
      }
    }
    boxing::BoxingRequest r{*t.layouts, piece, is_driver_ ? t.driver.data() : nullptr, &workspace_};
    TESS_RETURN_IF_ERROR(boxing::Box(r));
  }
  return Status::Ok();
}

}  // namespace tessera::serve
