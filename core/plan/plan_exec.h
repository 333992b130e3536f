// PlanInstance: a CompiledPlan made runnable. Create allocates the register memory once
// (RegisterManager), binds every step's kernel arguments to blob bodies and variable
// storage, and keeps a BoxingWorkspace of its own; Run then feeds the inputs, executes the
// steps in plan order and leaves the outputs in their registers.
//
// After the first Run (which warms the boxing workspace and the communicators' caches), a
// Run with the same kind of inputs makes no heap allocation and no allocator call:
// stats().heap_allocations_last_run and allocator_calls_last_run show it.
//
// SPMD: every rank runs the same plan with its own pieces. Not thread-safe: one thread runs
// an instance (boxing collectives must be issued in the same order on every rank).
#ifndef TESSERA_CORE_PLAN_PLAN_EXEC_H_
#define TESSERA_CORE_PLAN_PLAN_EXEC_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "core/boxing/boxing_workspace.h"
#include "core/common/status.h"
#include "core/eager/global_tensor.h"
#include "core/plan/compile.h"
#include "core/plan/mem_case.h"
#include "core/plan/register_manager.h"
#include "kernels/common/kernel.h"

namespace tessera::plan {

struct PlanStats {
  struct PerMemCase {
    MemCase mem_case;
    int64_t block_bytes = 0;     // the packed block of register bodies
    int64_t lower_bound = 0;     // max bytes live at one step: no packing does better
    int64_t no_reuse_bytes = 0;  // the block without sharing
    int64_t header_bytes = 0;
  };
  std::vector<PerMemCase> mem_cases;
  int64_t num_registers = 0;
  int64_t num_steps = 0;  // kernel and boxing steps
  int64_t num_boxing_steps = 0;
  int64_t num_runs = 0;
  // The last Run's operator new calls on the calling thread; -1 unless the binary links
  // //core/memory:heap_counter (tests and benchmarks do).
  int64_t heap_allocations_last_run = -1;
  // The last Run's Allocate calls on the thread's host caching allocator.
  int64_t allocator_calls_last_run = 0;
};

class PlanInstance {
 public:
  // Errors: RegisterManager::Create's.
  static Result<std::unique_ptr<PlanInstance>> Create(
      std::shared_ptr<const CompiledPlan> plan,
      const AllocatorFor& allocator_for = DefaultAllocatorFor);

  PlanInstance(const PlanInstance&) = delete;
  PlanInstance& operator=(const PlanInstance&) = delete;

  // Inputs in the program's input order, each this rank's local piece in the input's
  // nd-sbp (data may be null for an empty piece; ranks outside the placement pass
  // anything). INVALID_ARGUMENT for a wrong count, shape or dtype, naming the input.
  Status Run(const kernels::LocalTensor* inputs, size_t num_inputs);
  // Inputs as global tensors: shape, dtype and placement must match the program's input;
  // a different nd-sbp is boxed into the input's register. INVALID_ARGUMENT naming the
  // input and both metas otherwise.
  Status Run(const eager::Tensor* inputs, size_t num_inputs);
  Status Run(const std::vector<eager::Tensor>& inputs) { return Run(inputs.data(), inputs.size()); }

  size_t num_outputs() const { return plan_->program.outputs().size(); }
  const infer::TensorMeta& output_meta(size_t i) const;
  // Output i's local piece after the last Run, in place: valid until the next Run or the
  // instance's destruction. has_local false (and data null) when this rank holds none.
  // OUT_OF_RANGE for a bad index; FAILED_PRECONDITION before the first Run.
  struct OutputView {
    bool has_local = false;
    kernels::LocalTensor local;
  };
  Result<OutputView> Output(size_t i) const;
  // Output i copied into a new global tensor (allocates; every rank calls it).
  Result<eager::Tensor> OutputTensor(size_t i) const;

  const CompiledPlan& plan() const { return *plan_; }
  PlanStats stats() const;

 private:
  struct BoundStep {
    const CompiledStep* step = nullptr;
    kernels::KernelContext ctx;  // kernel steps; points into `inputs` / `outputs`
    std::vector<kernels::LocalTensor> inputs;
    std::vector<kernels::LocalTensor> outputs;
  };

  explicit PlanInstance(std::shared_ptr<const CompiledPlan> plan) : plan_(std::move(plan)) {}
  Status Bind();
  kernels::LocalTensor Bound(const Operand& o, const Shape& shape, DType dtype) const;
  Status Execute();
  // Wraps Execute with the allocation counters.
  Status Measure(Status (PlanInstance::*feed)(const void*, size_t), const void* inputs,
                 size_t num_inputs);
  Status FeedLocal(const void* inputs, size_t num_inputs);
  Status FeedTensors(const void* inputs, size_t num_inputs);
  Status CheckInputCount(size_t num_inputs) const;

  std::shared_ptr<const CompiledPlan> plan_;
  std::unique_ptr<RegisterManager> registers_;
  std::vector<void*> bodies_;  // by register id
  std::vector<BoundStep> steps_;
  boxing::BoxingWorkspace workspace_;
  int64_t num_runs_ = 0;
  int64_t heap_allocations_last_run_ = -1;
  int64_t allocator_calls_last_run_ = 0;
};

}  // namespace tessera::plan

#endif  // TESSERA_CORE_PLAN_PLAN_EXEC_H_
