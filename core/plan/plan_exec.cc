#include "core/plan/plan_exec.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/boxing/boxing.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/nccl/group_agreement.h"
#include "core/eager/creation.h"
#include "core/eager/global_cast.h"
#include "core/memory/caching_allocator.h"

// Declared weak so the library links without //core/memory:heap_counter (test-only):
// the symbol is null unless a binary links the counter in.
namespace tessera::memory {
long ThreadHeapAllocations() __attribute__((weak));
}  // namespace tessera::memory

namespace tessera::plan {
namespace {

constexpr const char* kRun = "PlanInstance::Run";
constexpr const char* kPush = "PlanInstance::Push";
constexpr const char* kRunPushed = "PlanInstance::RunPushed";

// Allocation counters of the calling thread, taken around a call.
struct AllocCount {
  long heap = -1;  // -1: the binary does not link the heap counter
  uint64_t allocator_calls = 0;
};

// `device`: the plan's CUDA device, whose allocator counts too; null for none.
AllocCount CountAllocations(const eager::CudaDevice* device) {
  AllocCount c;
  c.heap = &memory::ThreadHeapAllocations != nullptr ? memory::ThreadHeapAllocations() : -1;
  const memory::AllocatorStats s = memory::ThreadHostCachingAllocator().stats();
  c.allocator_calls = s.num_allocs + s.num_frees;
  if (device != nullptr) {
    const memory::AllocatorStats d = device->allocator->stats();
    c.allocator_calls += d.num_allocs + d.num_frees;
  }
  return c;
}

void StoreDelta(const AllocCount& before, const AllocCount& after, int64_t* heap,
                int64_t* allocator_calls) {
  *heap = before.heap < 0 ? -1 : after.heap - before.heap;
  *allocator_calls = static_cast<int64_t>(after.allocator_calls - before.allocator_calls);
}

// Copies `bytes` from `src` to `dst`, each in host memory or in memory of `device`'s
// (which must be non-null when either side is on the device). Device copies wait.
Status CopyBytes(const eager::CudaDevice* device, void* dst, bool dst_on_device, const void* src,
                 bool src_on_device, size_t bytes) {
  if (!dst_on_device && !src_on_device) {
    if (bytes > 0) std::memcpy(dst, src, bytes);
    return Status::Ok();
  }
  if (device == nullptr) return Internal("CopyBytes: a device copy without a CUDA device");
  if (!src_on_device) return eager::CopyHostToDevice(*device, dst, src, bytes);
  if (!dst_on_device) return eager::CopyDeviceToHost(*device, dst, src, bytes);
  return eager::CopyDeviceToDevice(*device, dst, src, bytes);
}

// The same ranks and hierarchy: a tensor on one placement can feed an input on the other
// by copying each rank's piece.
bool SameRanks(const Placement& a, const Placement& b) {
  return a.ranks() == b.ranks() && a.hierarchy() == b.hierarchy();
}

std::string InputName(const Program& program, size_t i) {
  return "input #" + std::to_string(i) + " (\"" + program.value(program.inputs()[i]).name + "\")";
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

Status Closed(const char* where) {
  return Status(StatusCode::kCancelled, std::string(where) + ": the instance is closed");
}

Status CheckTimeout(const char* where, double timeout_seconds) {
  if (std::isnan(timeout_seconds)) {
    return InvalidArgument(std::string(where) + ": timeout_seconds is NaN");
  }
  return Status::Ok();
}

// Waits on `cv` until `ready`; false when `timeout_seconds` passed first. Negative or
// huge timeouts wait forever (a huge one would overflow the clock's integer ticks).
template <typename Pred>
bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
               double timeout_seconds, Pred ready) {
  constexpr double kForever = 1e9;  // ~30 years
  if (timeout_seconds < 0 || timeout_seconds >= kForever) {
    cv.wait(lock, ready);
    return true;
  }
  return cv.wait_for(lock, std::chrono::duration<double>(timeout_seconds), ready);
}

}  // namespace

Result<std::unique_ptr<PlanInstance>> PlanInstance::Create(std::shared_ptr<const CompiledPlan> plan,
                                                           const AllocatorFor& allocator_for) {
  if (plan == nullptr) return InvalidArgument("PlanInstance::Create: plan is null");
  std::unique_ptr<PlanInstance> instance(new PlanInstance(std::move(plan)));
  if (instance->plan_->cuda_device >= 0) {
    Result<const eager::CudaDevice*> device = eager::LocalCudaDevice();
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
      if (step.device == DeviceType::kCuda) {
        if (step.host_src >= 0) b.host_src = bodies_[step.host_src];
        if (step.host_dst >= 0) b.host_dst = bodies_[step.host_dst];
        TESS_ASSIGN_OR_RETURN(
            Placement host,
            Placement::Make(DeviceType::kCpu, meta.placement.ranks(), meta.placement.hierarchy()));
        b.host_placement = std::move(host);
      }
    } else {
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
  return Status::Ok();
}

Status PlanInstance::CheckInputCount(const char* where, size_t num_inputs) const {
  const size_t want = plan_->program.inputs().size();
  if (num_inputs != want) {
    return InvalidArgument(std::string(where) + ": the program takes " + std::to_string(want) +
                           " inputs but got " + std::to_string(num_inputs));
  }
  return Status::Ok();
}

Status PlanInstance::CheckLocal(const char* where, const void* raw, size_t num_inputs,
                                bool* needs_boxing) const {
  *needs_boxing = false;
  TESS_RETURN_IF_ERROR(CheckInputCount(where, num_inputs));
  const auto* inputs = static_cast<const kernels::LocalTensor*>(raw);
  const CompiledPlan& plan = *plan_;
  for (size_t i = 0; i < num_inputs; ++i) {
    const ValueId id = plan.program.inputs()[i];
    if (!plan.has_local[id]) continue;
    if (inputs == nullptr) return InvalidArgument(std::string(where) + ": inputs is NULL");
    const infer::TensorMeta& meta = plan.program.value(id).meta;
    const Shape& want = plan.local_shapes[id];
    if (inputs[i].shape != want || inputs[i].dtype != meta.dtype) {
      return InvalidArgument(std::string(where) + ": " + InputName(plan.program, i) + " on rank " +
                             std::to_string(plan.rank) + " has local shape " +
                             inputs[i].shape.ToString() + " " + DTypeName(inputs[i].dtype) +
                             " but " + meta.ToString() + " needs " + want.ToString() + " " +
                             DTypeName(meta.dtype));
    }
    if (want.num_elements() > 0 && inputs[i].data == nullptr) {
      return InvalidArgument(std::string(where) + ": " + InputName(plan.program, i) +
                             " data is NULL");
    }
  }
  return Status::Ok();
}

Status PlanInstance::FillLocal(const void* raw, size_t num_inputs, int slot) {
  const auto* inputs = static_cast<const kernels::LocalTensor*>(raw);
  const CompiledPlan& plan = *plan_;
  for (size_t i = 0; i < num_inputs; ++i) {
    const ValueId id = plan.program.inputs()[i];
    if (!plan.has_local[id]) continue;
    const size_t bytes = static_cast<size_t>(plan.local_shapes[id].num_elements()) *
                         DTypeSize(plan.program.value(id).meta.dtype);
    TESS_RETURN_IF_ERROR(CopyBytes(device_, slot_bodies_[slot][i],
                                   register_on_device(plan.value_registers[id]), inputs[i].data,
                                   /*src_on_device=*/false, bytes));
  }
  return Status::Ok();
}

Status PlanInstance::CheckTensors(const char* where, const void* raw, size_t num_inputs,
                                  bool* needs_boxing) const {
  *needs_boxing = false;
  TESS_RETURN_IF_ERROR(CheckInputCount(where, num_inputs));
  const auto* inputs = static_cast<const eager::Tensor*>(raw);
  const CompiledPlan& plan = *plan_;
  for (size_t i = 0; i < num_inputs; ++i) {
    const ValueId id = plan.program.inputs()[i];
    const infer::TensorMeta& want = plan.program.value(id).meta;
    if (inputs == nullptr || inputs[i] == nullptr) {
      return InvalidArgument(std::string(where) + ": " + InputName(plan.program, i) + " is NULL");
    }
    const infer::TensorMeta& got = inputs[i]->meta();
    if (got.shape != want.shape || got.dtype != want.dtype ||
        !SameRanks(got.placement, want.placement)) {
      return InvalidArgument(std::string(where) + ": " + InputName(plan.program, i) + " is " +
                             got.ToString() + " but the program declares " + want.ToString() +
                             " (shape, dtype and placement must match; the placement's device "
                             "type may differ)");
    }
    if (got.nd_sbp != want.nd_sbp) *needs_boxing = true;
  }
  return Status::Ok();
}

Status PlanInstance::FillTensors(const void* raw, size_t num_inputs, int slot) {
  const auto* inputs = static_cast<const eager::Tensor*>(raw);
  const CompiledPlan& plan = *plan_;
  for (size_t i = 0; i < num_inputs; ++i) {
    const ValueId id = plan.program.inputs()[i];
    const infer::TensorMeta& want = plan.program.value(id).meta;
    const infer::TensorMeta& got = inputs[i]->meta();
    void* body = slot_bodies_[slot][i];
    const bool on_device = body != nullptr && register_on_device(plan.value_registers[id]);
    const bool host_to_host = got.placement.device_type() == DeviceType::kCpu &&
                              want.placement.device_type() == DeviceType::kCpu;
    eager::Tensor piece = inputs[i];
    if (got.nd_sbp != want.nd_sbp && host_to_host) {
      TESS_RETURN_IF_ERROR(boxing::Box(inputs[i]->local_data(), body, want.shape, want.dtype,
                                       got.placement, got.nd_sbp, want.placement, want.nd_sbp,
                                       &push_workspace_));
      continue;
    }
    // Device memory on either side: eager's layout change, onto the input's placement.
    if (got.nd_sbp != want.nd_sbp) {
      TESS_ASSIGN_OR_RETURN(piece, eager::ToGlobal(inputs[i], want.placement, want.nd_sbp));
    }
    if (body == nullptr || piece->local_bytes() == 0) continue;
    const eager::CudaDevice* device = device_ != nullptr ? device_ : piece->cuda_device();
    TESS_RETURN_IF_ERROR(CopyBytes(device, body, on_device, piece->local_data(),
                                   piece->cuda_device() != nullptr,
                                   static_cast<size_t>(piece->local_bytes())));
  }
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
    copied = eager::CopyDeviceToHost(*device_, b.host_src, b.inputs[0].data, bytes);
  }
  // Every rank takes part (as in eager's interim path), so a failed queued kernel on one
  // rank stops all of them before the collective.
  if (world_ == nullptr) {
    TESS_ASSIGN_OR_RETURN(comm::MpiCommunicator * world, comm::MpiCommRegistry::Global().World());
    world_ = world;
  }
  if (world_->size() > 1) {
    TESS_RETURN_IF_ERROR(comm::AgreeAcrossGroup(*world_, copied, "PlanInstance: a boxing step"));
  }
  TESS_RETURN_IF_ERROR(copied);
  TESS_RETURN_IF_ERROR(boxing::Box(b.host_src, b.host_dst, src.shape, src.dtype, *b.host_placement,
                                   src.nd_sbp, *b.host_placement, step.dst_nd_sbp, &workspace_));
  if (b.host_dst == nullptr) return Status::Ok();
  const size_t bytes =
      static_cast<size_t>(b.outputs[0].shape.num_elements()) * DTypeSize(src.dtype);
  return eager::CopyHostToDevice(*device_, b.outputs[0].data, b.host_dst, bytes);
}

Status PlanInstance::Execute() {
  for (BoundStep& b : steps_) {
    const CompiledStep& step = *b.step;
    if (step.kind == StepKind::kBoxing) {
      if (step.device == DeviceType::kCuda) {
        TESS_RETURN_IF_ERROR(BoxThroughHost(b));
        continue;
      }
      const infer::TensorMeta& src = plan_->program.value(step.boxed_value).meta;
      TESS_RETURN_IF_ERROR(boxing::Box(b.inputs[0].data, b.outputs[0].data, src.shape, src.dtype,
                                       src.placement, src.nd_sbp, src.placement, step.dst_nd_sbp,
                                       &workspace_));
    } else if (step.kernel != nullptr) {
      TESS_RETURN_IF_ERROR(step.device == DeviceType::kCuda
                               ? eager::RunCudaKernel(*device_, step.kernel, &b.ctx)
                               : step.kernel(b.ctx));
    }
  }
  return Status::Ok();
}

Status PlanInstance::PushUnmeasured(const char* where, CheckFn check, FillFn fill,
                                    const void* inputs, size_t num_inputs, double timeout_seconds) {
  TESS_RETURN_IF_ERROR(CheckTimeout(where, timeout_seconds));
  bool needs_boxing = false;
  TESS_RETURN_IF_ERROR((this->*check)(where, inputs, num_inputs, &needs_boxing));
  const int64_t n = plan_->input_register_num;
  int slot = 0;
  {
    std::unique_lock<std::mutex> lock(mu_);
    // A boxing Push also waits for every earlier set to have run (file comment).
    const bool ready = WaitUntil(lock, changed_, timeout_seconds, [&] {
      return closed_ || (!pushing_ && slot_state_[num_pushes_ % n] == SlotState::kFree &&
                         (!needs_boxing || runs_finished_ == num_pushes_));
    });
    if (closed_) return Closed(where);
    if (!ready) {
      if (slot_state_[num_pushes_ % n] == SlotState::kFree && needs_boxing) {
        return DeadlineExceeded(
            std::string(where) + ": an input needs boxing, which waits for the " +
            std::to_string(num_pushes_ - runs_finished_) +
            " earlier pushed set(s) to run; still waiting after " + Seconds(timeout_seconds));
      }
      return DeadlineExceeded(std::string(where) + ": all " + std::to_string(n) +
                              " input slots are still full after " + Seconds(timeout_seconds) +
                              " (" + std::to_string(num_pushes_) + " pushed, " +
                              std::to_string(runs_finished_) + " run)");
    }
    slot = static_cast<int>(num_pushes_ % n);
    slot_state_[slot] = SlotState::kFilling;
    pushing_ = true;
  }
  Status s = (this->*fill)(inputs, num_inputs, slot);
  std::lock_guard<std::mutex> lock(mu_);
  pushing_ = false;
  if (s.ok()) {
    slot_state_[slot] = SlotState::kReady;
    ++num_pushes_;
  } else {
    slot_state_[slot] = SlotState::kFree;
  }
  changed_.notify_all();
  return s;
}

Status PlanInstance::RunPushedUnmeasured(const char* where, double timeout_seconds) {
  TESS_RETURN_IF_ERROR(CheckTimeout(where, timeout_seconds));
  const int64_t n = plan_->input_register_num;
  int slot = 0;
  {
    std::unique_lock<std::mutex> lock(mu_);
    const bool ready = WaitUntil(lock, changed_, timeout_seconds, [&] {
      return closed_ || (!running_ && slot_state_[runs_started_ % n] == SlotState::kReady);
    });
    if (closed_) return Closed(where);
    if (!ready) {
      return DeadlineExceeded(std::string(where) + ": nothing was pushed within " +
                              Seconds(timeout_seconds) + " (" + std::to_string(num_pushes_) +
                              " pushed, " + std::to_string(runs_finished_) + " run)");
    }
    slot = static_cast<int>(runs_started_ % n);
    slot_state_[slot] = SlotState::kRunning;
    ++runs_started_;
    running_ = true;
  }
  for (const InputPatch& p : patches_) *p.target = slot_bodies_[slot][p.input];
  Status s = Execute();
  std::lock_guard<std::mutex> lock(mu_);
  slot_state_[slot] = SlotState::kFree;
  running_ = false;
  ++runs_finished_;
  if (s.ok()) {
    ++num_runs_;
    last_run_slot_ = slot;
  }
  changed_.notify_all();
  return s;
}

Status PlanInstance::PushMeasured(CheckFn check, FillFn fill, const void* inputs, size_t num_inputs,
                                  double timeout_seconds) {
  const AllocCount before = CountAllocations(device_);
  TESS_RETURN_IF_ERROR(EnterCall(kPush));
  Status s = PushUnmeasured(kPush, check, fill, inputs, num_inputs, timeout_seconds);
  const AllocCount after = CountAllocations(device_);
  std::lock_guard<std::mutex> lock(mu_);
  StoreDelta(before, after, &heap_allocations_last_push_, &allocator_calls_last_push_);
  LeaveCallLocked();
  return s;
}

bool PlanInstance::TryRunLocked(CheckFn check, FillFn fill, const void* inputs, size_t num_inputs,
                                Status* s) {
  // A Push or RunPushed sharing the instance holds the slot: the queue's path decides.
  if (pushing_ || running_ || num_pushes_ != runs_started_) return false;
  bool needs_boxing = false;
  *s = (this->*check)(kRun, inputs, num_inputs, &needs_boxing);
  if (s->ok()) *s = (this->*fill)(inputs, num_inputs, 0);
  if (!s->ok()) return true;
  ++num_pushes_;
  ++runs_started_;
  for (const InputPatch& p : patches_) *p.target = slot_bodies_[0][p.input];
  *s = Execute();
  ++runs_finished_;
  if (s->ok()) {
    ++num_runs_;
    last_run_slot_ = 0;
  }
  return true;
}

Status PlanInstance::RunMeasured(CheckFn check, FillFn fill, const void* inputs,
                                 size_t num_inputs) {
  const AllocCount before = CountAllocations(device_);
  if (plan_->input_register_num == 1) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return Closed(kRun);
    Status s;
    if (TryRunLocked(check, fill, inputs, num_inputs, &s)) {
      StoreDelta(before, CountAllocations(device_), &heap_allocations_last_run_,
                 &allocator_calls_last_run_);
      changed_.notify_all();
      return s;
    }
  }
  TESS_RETURN_IF_ERROR(EnterCall(kRun));
  Status s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (num_pushes_ != runs_started_ || pushing_) {
      s = FailedPrecondition(std::string(kRun) + ": " +
                             std::to_string(num_pushes_ - runs_started_) +
                             " pushed input set(s) wait for RunPushed, and Run would run the "
                             "oldest of them instead of its own inputs");
    }
  }
  if (s.ok()) s = PushUnmeasured(kRun, check, fill, inputs, num_inputs, kWaitForever);
  if (s.ok()) s = RunPushedUnmeasured(kRun, kWaitForever);
  const AllocCount after = CountAllocations(device_);
  std::lock_guard<std::mutex> lock(mu_);
  StoreDelta(before, after, &heap_allocations_last_run_, &allocator_calls_last_run_);
  LeaveCallLocked();
  return s;
}

Status PlanInstance::Run(const kernels::LocalTensor* inputs, size_t num_inputs) {
  return RunMeasured(&PlanInstance::CheckLocal, &PlanInstance::FillLocal, inputs, num_inputs);
}

Status PlanInstance::Run(const eager::Tensor* inputs, size_t num_inputs) {
  return RunMeasured(&PlanInstance::CheckTensors, &PlanInstance::FillTensors, inputs, num_inputs);
}

Status PlanInstance::Push(const kernels::LocalTensor* inputs, size_t num_inputs,
                          double timeout_seconds) {
  return PushMeasured(&PlanInstance::CheckLocal, &PlanInstance::FillLocal, inputs, num_inputs,
                      timeout_seconds);
}

Status PlanInstance::Push(const eager::Tensor* inputs, size_t num_inputs, double timeout_seconds) {
  return PushMeasured(&PlanInstance::CheckTensors, &PlanInstance::FillTensors, inputs, num_inputs,
                      timeout_seconds);
}

Status PlanInstance::RunPushed(double timeout_seconds) {
  const AllocCount before = CountAllocations(device_);
  TESS_RETURN_IF_ERROR(EnterCall(kRunPushed));
  Status s = RunPushedUnmeasured(kRunPushed, timeout_seconds);
  const AllocCount after = CountAllocations(device_);
  std::lock_guard<std::mutex> lock(mu_);
  StoreDelta(before, after, &heap_allocations_last_run_, &allocator_calls_last_run_);
  LeaveCallLocked();
  return s;
}

const infer::TensorMeta& PlanInstance::output_meta(size_t i) const {
  return plan_->program.value(plan_->program.outputs()[i]).meta;
}

size_t PlanInstance::OutputPiece::bytes() const {
  return has_local ? static_cast<size_t>(shape.num_elements()) * DTypeSize(dtype) : 0;
}

Status PlanInstance::CheckOutputIndex(const char* where, size_t i) const {
  if (i < num_outputs()) return Status::Ok();
  return OutOfRange(std::string(where) + ": output index " + std::to_string(i) +
                    " but the program has " + std::to_string(num_outputs()) + " outputs");
}

Result<PlanInstance::OutputPiece> PlanInstance::OutputLocalPiece(size_t i) const {
  TESS_RETURN_IF_ERROR(CheckOutputIndex("PlanInstance::OutputLocalPiece", i));
  const ValueId id = plan_->program.outputs()[i];
  OutputPiece piece;
  piece.has_local = plan_->has_local[id];
  if (piece.has_local) piece.shape = plan_->local_shapes[id];
  piece.dtype = plan_->program.value(id).meta.dtype;
  return piece;
}

Result<PlanInstance::OutputView> PlanInstance::View(const char* where, size_t i) const {
  TESS_RETURN_IF_ERROR(CheckOutputIndex(where, i));
  int last_slot = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (num_runs_ == 0) {
      return FailedPrecondition(std::string(where) + ": the plan has not run yet");
    }
    last_slot = last_run_slot_;
  }
  const ValueId id = plan_->program.outputs()[i];
  const ProgramValue& value = plan_->program.value(id);
  OutputView view;
  view.has_local = plan_->has_local[id];
  const Operand o = value.kind == ValueKind::kVariable ? Operand{-1, view.has_local ? id : -1}
                                                       : Operand{plan_->value_registers[id], -1};
  view.local = Bound(o, plan_->local_shapes[id], value.meta.dtype);
  if (o.register_id >= 0) {
    view.mem_case = plan_->registers[o.register_id].mem_case;
  } else if (o.variable >= 0 && value.variable->cuda_device() != nullptr) {
    view.mem_case = MemCase::Cuda(value.variable->cuda_device()->index);
  }
  // A data input marked as an output: the slot the last run read.
  if (o.register_id >= 0 && input_of_register_[o.register_id] >= 0) {
    view.local.data = slot_bodies_[last_slot][input_of_register_[o.register_id]];
  }
  return view;
}

Result<PlanInstance::OutputView> PlanInstance::Output(size_t i) const {
  return View("PlanInstance::Output", i);
}

Status PlanInstance::OutputLocal(size_t i, void* out, size_t out_bytes) const {
  constexpr const char* kWhere = "PlanInstance::OutputLocal";
  TESS_ASSIGN_OR_RETURN(OutputView view, View(kWhere, i));
  if (!view.has_local) {
    return FailedPrecondition(std::string(kWhere) + ": this rank holds no piece of output #" +
                              std::to_string(i) + " (" + output_meta(i).ToString() + ")");
  }
  const size_t bytes =
      static_cast<size_t>(view.local.shape.num_elements()) * DTypeSize(view.local.dtype);
  if (out_bytes < bytes) {
    return InvalidArgument(std::string(kWhere) + ": out_bytes is " + std::to_string(out_bytes) +
                           " but output #" + std::to_string(i) + "'s piece has " +
                           std::to_string(bytes) + " bytes");
  }
  if (out == nullptr && bytes > 0) {
    return InvalidArgument(std::string(kWhere) + ": out is NULL but output #" + std::to_string(i) +
                           "'s piece has " + std::to_string(bytes) + " bytes");
  }
  const bool on_device = !view.mem_case.is_host();
  // A variable's device is the process's one device too (eager::LocalCudaDevice).
  const eager::CudaDevice* device = device_;
  if (on_device && device == nullptr) {
    TESS_ASSIGN_OR_RETURN(device, eager::LocalCudaDevice());
  }
  return CopyBytes(device, out, /*dst_on_device=*/false, view.local.data, on_device, bytes);
}

Result<eager::Tensor> PlanInstance::OutputTensor(size_t i) const {
  constexpr const char* kWhere = "PlanInstance::OutputTensor";
  TESS_ASSIGN_OR_RETURN(OutputView view, View(kWhere, i));
  const infer::TensorMeta& meta = output_meta(i);
  if (meta.placement.device_type() == DeviceType::kCpu) {
    return eager::FromLocal(view.local.data, view.local.shape, meta.dtype, meta.placement,
                            meta.nd_sbp, &meta.shape);
  }
  // FromLocal takes host memory, so device pieces come down first; FromLocal may be
  // collective, so every rank agrees they did before it.
  std::vector<unsigned char> host;
  Status copied = Status::Ok();
  if (view.has_local) {
    host.resize(static_cast<size_t>(view.local.shape.num_elements()) * DTypeSize(meta.dtype));
    copied = OutputLocal(i, host.data(), host.size());
  }
  TESS_ASSIGN_OR_RETURN(comm::MpiCommunicator * world, comm::MpiCommRegistry::Global().World());
  if (world->size() > 1) TESS_RETURN_IF_ERROR(comm::AgreeAcrossGroup(*world, copied, kWhere));
  TESS_RETURN_IF_ERROR(copied);
  return eager::FromLocal(host.data(), view.local.shape, meta.dtype, meta.placement, meta.nd_sbp,
                          &meta.shape);
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
  return s;
}

}  // namespace tessera::plan
