// PlanInstance: creation, binding the compiled steps to registers, executing them, stats.
#include "core/plan/plan_exec.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/boxing/boxing.h"
#include "core/comm/env_config.h"
#include "core/memory/caching_allocator.h"
#include "core/plan/exec_util.h"
#include "core/tensor/creation.h"
#include "core/tensor/device_boxing.h"
#include "core/tensor/global_cast.h"

namespace tessera::plan {

Result<std::unique_ptr<PlanInstance>> PlanInstance::Create(std::shared_ptr<const CompiledPlan> plan,
                                                           const AllocatorFor& allocator_for) {
  if (plan == nullptr) return InvalidArgument("PlanInstance::Create: plan is null");
  std::unique_ptr<PlanInstance> instance(new PlanInstance(std::move(plan)));
  if (instance->plan_->cuda_device >= 0) {
    Result<const tensor::CudaDevice*> device = tensor::LocalCudaDevice();
    if (!device.ok()) {
      return Status(device.status().code(), "PlanInstance::Create: " + device.status().message());
    }
    if ((*device)->index != instance->plan_->cuda_device) {
      return FailedPrecondition(
          "PlanInstance::Create: the plan was compiled for cuda:" +
          std::to_string(instance->plan_->cuda_device) +
          " but this rank's device is cuda:" + std::to_string((*device)->index));
    }
    instance->device_ = *device;
  }
  TESS_ASSIGN_OR_RETURN(instance->registers_,
                        RegisterManager::Create(instance->plan_->memory, allocator_for));
  TESS_RETURN_IF_ERROR(instance->Bind());
  return instance;
}

PlanInstance::~PlanInstance() {
  Close();
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [this] { return active_calls_ == 0; });
}

void PlanInstance::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  changed_.notify_all();
}

bool PlanInstance::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

Status PlanInstance::EnterCall(const char* where) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return Closed(where);
  ++active_calls_;
  return Status::Ok();
}

void PlanInstance::LeaveCallLocked() {
  --active_calls_;
  changed_.notify_all();
}

kernels::LocalTensor PlanInstance::Bound(const Operand& o, const Shape& shape, DType dtype) const {
  if (o.register_id >= 0) return kernels::LocalTensor{bodies_[o.register_id], shape, dtype};
  if (o.variable >= 0) return plan_->program.value(o.variable).variable->local();
  return kernels::LocalTensor{nullptr, shape, dtype};
}

Status PlanInstance::Bind() {
  const CompiledPlan& plan = *plan_;
  const int slots = plan.input_register_num;
  bodies_.resize(plan.registers.size());
  for (size_t r = 0; r < plan.registers.size(); ++r) {
    TESS_ASSIGN_OR_RETURN(Blob blob, registers_->GetBlob(static_cast<int64_t>(r), 0));
    bodies_[r] = blob.body();
  }
  input_of_register_.assign(plan.registers.size(), -1);
  slot_bodies_.assign(static_cast<size_t>(slots),
                      std::vector<void*>(plan.program.inputs().size(), nullptr));
  for (size_t i = 0; i < plan.program.inputs().size(); ++i) {
    const int64_t r = plan.value_registers[plan.program.inputs()[i]];
    if (r < 0) continue;
    input_of_register_[r] = static_cast<int>(i);
    for (int c = 0; c < slots; ++c) {
      TESS_ASSIGN_OR_RETURN(Blob blob, registers_->GetBlob(r, c));
      slot_bodies_[c][i] = blob.body();
    }
  }
  slot_state_.assign(static_cast<size_t>(slots), SlotState::kFree);

  steps_.resize(plan.steps.size());
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const CompiledStep& step = plan.steps[i];
    BoundStep& b = steps_[i];
    b.step = &step;
    if (step.kind == StepKind::kBoxing) {
      const ValueId v = step.boxed_value;
      const infer::TensorMeta& meta = plan.program.value(v).meta;
      b.inputs.push_back(Bound(step.inputs[0], plan.local_shapes[v], meta.dtype));
      b.outputs.push_back(Bound(
          Operand{step.outputs[0], -1},
          step.outputs[0] >= 0 ? plan.registers[step.outputs[0]].shape : Shape(), meta.dtype));
      // Checked once here, so a run boxes without re-validating the layouts.
      const Placement* box_placement = &meta.placement;
      std::optional<Placement> host;
      b.holds_piece = meta.placement.contains(plan.rank);
      if (step.device == DeviceType::kCuda && !step.through_host && device_ != nullptr &&
          device_workspace_ == nullptr) {
        device_workspace_ = std::make_unique<boxing::BoxingWorkspace>(device_->allocator);
      }
      if (step.through_host) {
        if (step.host_src >= 0) b.host_src = bodies_[step.host_src];
        if (step.host_dst >= 0) b.host_dst = bodies_[step.host_dst];
        TESS_ASSIGN_OR_RETURN(
            Placement made,
            Placement::Make(DeviceType::kCpu, meta.placement.ranks(), meta.placement.hierarchy()));
        host = std::move(made);
        box_placement = &*host;
      }
      TESS_ASSIGN_OR_RETURN(boxing::BoxingLayouts layouts,
                            boxing::BoxingLayouts::Make("PlanInstance: a boxing step", meta.shape,
                                                        meta.dtype, *box_placement, meta.nd_sbp,
                                                        *box_placement, step.dst_nd_sbp));
      b.box_layouts = std::move(layouts);
    } else {
      const ProgramOp& op = plan.program.ops()[step.op_index];
      for (size_t k = 0; k < step.inputs.size(); ++k) {
        const Operand& o = step.inputs[k];
        const ValueId v = op.inputs[k];
        const Shape& shape =
            o.register_id >= 0 ? plan.registers[o.register_id].shape : plan.local_shapes[v];
        b.inputs.push_back(Bound(o, shape, plan.program.value(v).meta.dtype));
        b.logical_inputs.push_back(plan.program.value(v).meta.shape);
      }
      for (size_t k = 0; k < step.outputs.size(); ++k) {
        const ValueId v = op.outputs[k];
        b.outputs.push_back(Bound(Operand{step.outputs[k], -1}, plan.local_shapes[v],
                                  plan.program.value(v).meta.dtype));
      }
      b.ctx.def = op.def;
      b.ctx.attrs = &op.attrs;
      b.ctx.inputs = b.inputs.data();
      b.ctx.num_inputs = static_cast<int>(b.inputs.size());
      b.ctx.logical_input_shapes = b.logical_inputs.data();
      b.ctx.outputs = b.outputs.data();
      b.ctx.num_outputs = static_cast<int>(b.outputs.size());
      if (step.device == DeviceType::kCuda && device_ != nullptr) b.ctx.stream = device_->stream;
    }
    // b.inputs is complete and never resized again, so the patch addresses stay valid.
    for (size_t k = 0; k < step.inputs.size(); ++k) {
      const int64_t r = step.inputs[k].register_id;
      if (r >= 0 && input_of_register_[r] >= 0) {
        patches_.push_back(
            InputPatch{&b.inputs[k].data, static_cast<size_t>(input_of_register_[r])});
      }
    }
  }
  for (const ProgramAssign& a : plan.program.assigns()) {
    const int64_t r = plan.value_registers[a.value];
    if (r < 0 || !plan.has_local[a.variable]) continue;  // no local piece on this rank
    // Tensors are immutable by type; an assign is the one place a plan writes one, in
    // place, as core/optim's Step writes a parameter.
    auto& variable = const_cast<tensor::GlobalTensor&>(*plan.program.value(a.variable).variable);
    assigns_.push_back(BoundAssign{bodies_[r], variable.mutable_local_data(),
                                   static_cast<size_t>(variable.local_bytes()),
                                   register_on_device(r)});
  }
  return SetUpGraphReplay();
}

Status PlanInstance::SetUpGraphReplay() {
  if (device_ == nullptr) return Status::Ok();
  TESS_ASSIGN_OR_RETURN(std::optional<bool> enabled, comm::EnvFlag("TESSERA_CUDA_GRAPHS"));
  if (enabled.has_value() && !*enabled) return Status::Ok();
  // Only device work can sit in a graph: a cpu kernel or a host assign runs on the host
  // (and would need the stream waited for in between). Boxing steps split the graphs.
  bool any_kernel = false;
  for (const CompiledStep& step : plan_->steps) {
    const bool boxing = step.kind == StepKind::kBoxing;
    if (!boxing && step.kernel == nullptr) continue;  // not run on this rank
    if (step.device != DeviceType::kCuda) return Status::Ok();
    any_kernel = any_kernel || !boxing;
  }
  for (const BoundAssign& a : assigns_) {
    if (!a.on_device && a.bytes > 0) return Status::Ok();
  }
  if (!any_kernel) return Status::Ok();
  segments_ = SplitForReplay(plan_->steps);
  graphs_.resize(static_cast<size_t>(plan_->input_register_num));
  for (SlotGraph& g : graphs_) g.graphs.resize(segments_.size());
  return Status::Ok();
}

bool PlanInstance::register_on_device(int64_t register_id) const {
  return register_id >= 0 && !plan_->registers[register_id].mem_case.is_host();
}

Status PlanInstance::BoxThroughHost(const BoundStep& b) {
  const CompiledStep& step = *b.step;
  const infer::TensorMeta& src = plan_->program.value(step.boxed_value).meta;
  Status copied = Status::Ok();
  if (b.host_src != nullptr) {
    const size_t bytes =
        static_cast<size_t>(b.inputs[0].shape.num_elements()) * DTypeSize(src.dtype);
    copied = tensor::CopyDeviceToHost(*device_, b.host_src, b.inputs[0].data, bytes);
  }
  // Every rank takes part (as in eager's staged path), so a failed queued kernel on one
  // rank stops all of them before the collective.
  TESS_RETURN_IF_ERROR(tensor::AgreeOnWorld(copied, "PlanInstance: a boxing step"));
  TESS_RETURN_IF_ERROR(
      boxing::Box(boxing::BoxingRequest{*b.box_layouts, b.host_src, b.host_dst, &workspace_}));
  if (b.host_dst == nullptr) return Status::Ok();
  const size_t bytes =
      static_cast<size_t>(b.outputs[0].shape.num_elements()) * DTypeSize(src.dtype);
  return tensor::CopyHostToDevice(*device_, b.outputs[0].data, b.host_dst, bytes);
}

Status PlanInstance::BoxOnDevices(const BoundStep& b) {
  return tensor::BoxBetweenDevices("PlanInstance: a boxing step", Status::Ok(), *b.box_layouts,
                                   b.inputs[0].data, b.outputs[0].data, b.holds_piece,
                                   device_workspace_.get());
}

Status PlanInstance::Execute(int slot) {
  if (segments_.empty()) return ExecuteSteps(0, steps_.size(), true);
  SlotGraph& g = graphs_[static_cast<size_t>(slot)];
  // The first run sets up what a capture cannot (plan_exec.h), and a refused slot stays
  // on plain launches.
  if (g.refused || g.plain_runs == 0) {
    TESS_RETURN_IF_ERROR(ExecuteSteps(0, steps_.size(), true));
    ++g.plain_runs;
    return Status::Ok();
  }
  for (size_t i = 0; i < segments_.size(); ++i) {
    const ReplaySegment& segment = segments_[i];
    if (!segment.graph || g.refused) {
      TESS_RETURN_IF_ERROR(ExecuteSteps(segment.begin, segment.end, segment.assigns));
      continue;
    }
    std::unique_ptr<tensor::CudaGraph>& graph = g.graphs[i];
    if (graph == nullptr) {
      Result<std::unique_ptr<tensor::CudaGraph>> captured = tensor::CudaGraph::Capture(
          *device_,
          [this, &segment] { return ExecuteSteps(segment.begin, segment.end, segment.assigns); });
      if (!captured.ok()) {
        // Nothing of the segment ran: run it plainly, which also reports an error of the
        // steps themselves as plain launches would; the slot's later segments and runs
        // stay plain.
        g.refused = true;
        {
          std::lock_guard<std::mutex> lock(graph_refusal_mu_);
          graph_refusal_ = captured.status().ToString();
        }
        TESS_RETURN_IF_ERROR(ExecuteSteps(segment.begin, segment.end, segment.assigns));
        continue;
      }
      graph = std::move(captured).value();
      graphs_captured_.fetch_add(1, std::memory_order_relaxed);
    }
    TESS_RETURN_IF_ERROR(graph->Launch());
    graph_launches_.fetch_add(1, std::memory_order_relaxed);
  }
  return Status::Ok();
}

Status PlanInstance::ExecuteSteps(size_t begin, size_t end, bool assigns) {
  for (size_t i = begin; i < end; ++i) {
    BoundStep& b = steps_[i];
    const CompiledStep& step = *b.step;
    if (step.kind == StepKind::kBoxing) {
      if (step.device == DeviceType::kCuda) {
        TESS_RETURN_IF_ERROR(step.through_host ? BoxThroughHost(b) : BoxOnDevices(b));
        continue;
      }
      TESS_RETURN_IF_ERROR(boxing::Box(
          boxing::BoxingRequest{*b.box_layouts, b.inputs[0].data, b.outputs[0].data, &workspace_}));
    } else if (step.kernel != nullptr) {
      TESS_RETURN_IF_ERROR(step.device == DeviceType::kCuda
                               ? tensor::RunCudaKernel(*device_, step.kernel, &b.ctx)
                               : step.kernel(b.ctx));
    }
  }
  if (!assigns) return Status::Ok();
  // After every step, so each step read the variables' old contents (program.h).
  for (const BoundAssign& a : assigns_) {
    if (a.on_device) {
      // Queued behind the steps: stream order keeps every reader of the variable after it.
      TESS_RETURN_IF_ERROR(tensor::CopyDeviceToDeviceAsync(*device_, a.dst, a.src, a.bytes));
    } else if (a.bytes > 0) {
      std::memcpy(a.dst, a.src, a.bytes);
    }
  }
  return Status::Ok();
}

PlanStats PlanInstance::stats() const {
  PlanStats s;
  for (const MemCasePlan& m : plan_->memory.mem_cases) {
    s.mem_cases.push_back(PlanStats::PerMemCase{m.mem_case, m.block_bytes, m.lower_bound,
                                                m.no_reuse_bytes, m.header_bytes});
  }
  s.num_registers = static_cast<int64_t>(plan_->registers.size());
  s.num_steps = static_cast<int64_t>(plan_->steps.size());
  s.num_boxing_steps = plan_->num_boxing_steps;
  s.input_register_num = plan_->input_register_num;
  std::lock_guard<std::mutex> lock(mu_);
  s.num_runs = num_runs_;
  s.num_pushes = num_pushes_;
  s.num_waiting = num_pushes_ - runs_started_;
  s.calls_in_progress = active_calls_;
  s.heap_allocations_last_run = heap_allocations_last_run_;
  s.allocator_calls_last_run = allocator_calls_last_run_;
  s.heap_allocations_last_push = heap_allocations_last_push_;
  s.allocator_calls_last_push = allocator_calls_last_push_;
  s.cuda_graphs = graphs_captured_.load(std::memory_order_relaxed);
  s.cuda_graph_launches = graph_launches_.load(std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> refusal_lock(graph_refusal_mu_);
    s.cuda_graph_refusal = graph_refusal_;
  }
  return s;
}

}  // namespace tessera::plan
