#include "core/plan/plan_exec.h"

#include <cstring>
#include <string>
#include <utility>

#include "core/boxing/boxing.h"
#include "core/eager/creation.h"
#include "core/memory/caching_allocator.h"

// Declared weak so the library links without //core/memory:heap_counter (test-only):
// the symbol is null unless a binary links the counter in.
namespace tessera::memory {
long ThreadHeapAllocations() __attribute__((weak));
}  // namespace tessera::memory

namespace tessera::plan {
namespace {

long HeapAllocations() {
  return &memory::ThreadHeapAllocations != nullptr ? memory::ThreadHeapAllocations() : -1;
}

uint64_t AllocatorCalls() {
  const memory::AllocatorStats s = memory::ThreadHostCachingAllocator().stats();
  return s.num_allocs + s.num_frees;
}

std::string InputName(const Program& program, size_t i) {
  return "input #" + std::to_string(i) + " (\"" + program.value(program.inputs()[i]).name + "\")";
}

}  // namespace

Result<std::unique_ptr<PlanInstance>> PlanInstance::Create(std::shared_ptr<const CompiledPlan> plan,
                                                           const AllocatorFor& allocator_for) {
  if (plan == nullptr) return InvalidArgument("PlanInstance::Create: plan is null");
  std::unique_ptr<PlanInstance> instance(new PlanInstance(std::move(plan)));
  TESS_ASSIGN_OR_RETURN(instance->registers_,
                        RegisterManager::Create(instance->plan_->memory, allocator_for));
  TESS_RETURN_IF_ERROR(instance->Bind());
  return instance;
}

kernels::LocalTensor PlanInstance::Bound(const Operand& o, const Shape& shape, DType dtype) const {
  if (o.register_id >= 0) return kernels::LocalTensor{bodies_[o.register_id], shape, dtype};
  if (o.variable >= 0) return plan_->program.value(o.variable).variable->local();
  return kernels::LocalTensor{nullptr, shape, dtype};
}

Status PlanInstance::Bind() {
  const CompiledPlan& plan = *plan_;
  bodies_.resize(plan.registers.size());
  for (size_t r = 0; r < plan.registers.size(); ++r) {
    TESS_ASSIGN_OR_RETURN(Blob blob, registers_->GetBlob(static_cast<int64_t>(r), 0));
    bodies_[r] = blob.body();
  }
  steps_.resize(plan.steps.size());
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const CompiledStep& step = plan.steps[i];
    BoundStep& b = steps_[i];
    b.step = &step;
    if (step.kind == StepKind::kBoxing) {
      const ValueId v = step.boxed_value;
      const DType dtype = plan.program.value(v).meta.dtype;
      b.inputs.push_back(Bound(step.inputs[0], plan.local_shapes[v], dtype));
      b.outputs.push_back(
          Bound(Operand{step.outputs[0], -1},
                step.outputs[0] >= 0 ? plan.registers[step.outputs[0]].shape : Shape(), dtype));
      continue;
    }
    const ProgramOp& op = plan.program.ops()[step.op_index];
    for (size_t k = 0; k < step.inputs.size(); ++k) {
      const Operand& o = step.inputs[k];
      const ValueId v = op.inputs[k];
      const Shape& shape =
          o.register_id >= 0 ? plan.registers[o.register_id].shape : plan.local_shapes[v];
      b.inputs.push_back(Bound(o, shape, plan.program.value(v).meta.dtype));
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
    b.ctx.outputs = b.outputs.data();
    b.ctx.num_outputs = static_cast<int>(b.outputs.size());
  }
  return Status::Ok();
}

Status PlanInstance::CheckInputCount(size_t num_inputs) const {
  const size_t want = plan_->program.inputs().size();
  if (num_inputs != want) {
    return InvalidArgument("PlanInstance::Run: the program takes " + std::to_string(want) +
                           " inputs but got " + std::to_string(num_inputs));
  }
  return Status::Ok();
}

Status PlanInstance::FeedLocal(const void* raw, size_t num_inputs) {
  TESS_RETURN_IF_ERROR(CheckInputCount(num_inputs));
  const auto* inputs = static_cast<const kernels::LocalTensor*>(raw);
  const CompiledPlan& plan = *plan_;
  for (size_t i = 0; i < num_inputs; ++i) {
    const ValueId id = plan.program.inputs()[i];
    if (!plan.has_local[id]) continue;
    if (inputs == nullptr) return InvalidArgument("PlanInstance::Run: inputs is NULL");
    const infer::TensorMeta& meta = plan.program.value(id).meta;
    const Shape& want = plan.local_shapes[id];
    if (inputs[i].shape != want || inputs[i].dtype != meta.dtype) {
      return InvalidArgument("PlanInstance::Run: " + InputName(plan.program, i) + " on rank " +
                             std::to_string(plan.rank) + " has local shape " +
                             inputs[i].shape.ToString() + " " + DTypeName(inputs[i].dtype) +
                             " but " + meta.ToString() + " needs " + want.ToString() + " " +
                             DTypeName(meta.dtype));
    }
    const size_t bytes = static_cast<size_t>(want.num_elements()) * DTypeSize(meta.dtype);
    if (bytes == 0) continue;
    if (inputs[i].data == nullptr) {
      return InvalidArgument("PlanInstance::Run: " + InputName(plan.program, i) + " data is NULL");
    }
    std::memcpy(bodies_[plan.value_registers[id]], inputs[i].data, bytes);
  }
  return Status::Ok();
}

Status PlanInstance::FeedTensors(const void* raw, size_t num_inputs) {
  TESS_RETURN_IF_ERROR(CheckInputCount(num_inputs));
  const auto* inputs = static_cast<const eager::Tensor*>(raw);
  const CompiledPlan& plan = *plan_;
  for (size_t i = 0; i < num_inputs; ++i) {
    const ValueId id = plan.program.inputs()[i];
    const infer::TensorMeta& want = plan.program.value(id).meta;
    if (inputs == nullptr || inputs[i] == nullptr) {
      return InvalidArgument("PlanInstance::Run: " + InputName(plan.program, i) + " is NULL");
    }
    const infer::TensorMeta& got = inputs[i]->meta();
    if (got.shape != want.shape || got.dtype != want.dtype || got.placement != want.placement) {
      return InvalidArgument("PlanInstance::Run: " + InputName(plan.program, i) + " is " +
                             got.ToString() + " but the program declares " + want.ToString() +
                             " (shape, dtype and placement must match)");
    }
    void* body = plan.has_local[id] ? bodies_[plan.value_registers[id]] : nullptr;
    if (got.nd_sbp != want.nd_sbp) {
      TESS_RETURN_IF_ERROR(boxing::Box(inputs[i]->local_data(), body, want.shape, want.dtype,
                                       got.placement, got.nd_sbp, want.placement, want.nd_sbp,
                                       &workspace_));
    } else if (body != nullptr && inputs[i]->local_bytes() > 0) {
      std::memcpy(body, inputs[i]->local_data(), static_cast<size_t>(inputs[i]->local_bytes()));
    }
  }
  return Status::Ok();
}

Status PlanInstance::Execute() {
  for (BoundStep& b : steps_) {
    const CompiledStep& step = *b.step;
    if (step.kind == StepKind::kBoxing) {
      const infer::TensorMeta& src = plan_->program.value(step.boxed_value).meta;
      TESS_RETURN_IF_ERROR(boxing::Box(b.inputs[0].data, b.outputs[0].data, src.shape, src.dtype,
                                       src.placement, src.nd_sbp, src.placement, step.dst_nd_sbp,
                                       &workspace_));
    } else if (step.kernel != nullptr) {
      TESS_RETURN_IF_ERROR(step.kernel(b.ctx));
    }
  }
  return Status::Ok();
}

Status PlanInstance::Measure(Status (PlanInstance::*feed)(const void*, size_t), const void* inputs,
                             size_t num_inputs) {
  const long heap_before = HeapAllocations();
  const uint64_t calls_before = AllocatorCalls();
  Status s = (this->*feed)(inputs, num_inputs);
  if (s.ok()) s = Execute();
  const long heap_after = HeapAllocations();
  allocator_calls_last_run_ = static_cast<int64_t>(AllocatorCalls() - calls_before);
  heap_allocations_last_run_ = heap_before < 0 ? -1 : heap_after - heap_before;
  if (s.ok()) ++num_runs_;
  return s;
}

Status PlanInstance::Run(const kernels::LocalTensor* inputs, size_t num_inputs) {
  return Measure(&PlanInstance::FeedLocal, inputs, num_inputs);
}

Status PlanInstance::Run(const eager::Tensor* inputs, size_t num_inputs) {
  return Measure(&PlanInstance::FeedTensors, inputs, num_inputs);
}

const infer::TensorMeta& PlanInstance::output_meta(size_t i) const {
  return plan_->program.value(plan_->program.outputs()[i]).meta;
}

Result<PlanInstance::OutputView> PlanInstance::Output(size_t i) const {
  if (i >= num_outputs()) {
    return OutOfRange("PlanInstance::Output: index " + std::to_string(i) + " but the program has " +
                      std::to_string(num_outputs()) + " outputs");
  }
  if (num_runs_ == 0) return FailedPrecondition("PlanInstance::Output: the plan has not run yet");
  const ValueId id = plan_->program.outputs()[i];
  const ProgramValue& value = plan_->program.value(id);
  OutputView view;
  view.has_local = plan_->has_local[id];
  const Operand o = value.kind == ValueKind::kVariable ? Operand{-1, view.has_local ? id : -1}
                                                       : Operand{plan_->value_registers[id], -1};
  view.local = Bound(o, plan_->local_shapes[id], value.meta.dtype);
  return view;
}

Result<eager::Tensor> PlanInstance::OutputTensor(size_t i) const {
  TESS_ASSIGN_OR_RETURN(OutputView view, Output(i));
  const infer::TensorMeta& meta = output_meta(i);
  return eager::FromLocal(view.local.data, view.local.shape, meta.dtype, meta.placement,
                          meta.nd_sbp, &meta.shape);
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
  s.num_runs = num_runs_;
  s.heap_allocations_last_run = heap_allocations_last_run_;
  s.allocator_calls_last_run = allocator_calls_last_run_;
  return s;
}

}  // namespace tessera::plan
