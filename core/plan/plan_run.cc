// PlanInstance: Run, and the pipelined Push / RunPushed with their timeouts and
// allocation counts.
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>

#include "core/common/limits.h"
#include "core/memory/caching_allocator.h"
#include "core/memory/heap_count.h"
#include "core/plan/exec_util.h"
#include "core/plan/plan_exec.h"

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
AllocCount CountAllocations(const tensor::CudaDevice* device) {
  AllocCount c;
  c.heap = memory::ThreadHeapAllocationsIfCounted();
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

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

Status CheckTimeout(const char* where, double timeout_seconds) {
  if (std::isnan(timeout_seconds)) {
    return InvalidArgument(std::string(where) + ": timeout_seconds is NaN");
  }
  // Negative waits forever; a finite bound past the maximum would overflow the clock.
  return CheckTimeoutAtMostMax(where, ": timeout_seconds", timeout_seconds);
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
  Status s = Execute(slot);
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
  *s = Execute(0);
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

Status PlanInstance::Run(const tensor::Tensor* inputs, size_t num_inputs) {
  return RunMeasured(&PlanInstance::CheckTensors, &PlanInstance::FillTensors, inputs, num_inputs);
}

Status PlanInstance::Push(const kernels::LocalTensor* inputs, size_t num_inputs,
                          double timeout_seconds) {
  return PushMeasured(&PlanInstance::CheckLocal, &PlanInstance::FillLocal, inputs, num_inputs,
                      timeout_seconds);
}

Status PlanInstance::Push(const tensor::Tensor* inputs, size_t num_inputs, double timeout_seconds) {
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

}  // namespace tessera::plan
