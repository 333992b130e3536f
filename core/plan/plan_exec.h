// PlanInstance: a CompiledPlan made runnable. Create allocates the register memory once
// (RegisterManager), binds every step's kernel arguments to blob bodies and variable
// storage, and keeps BoxingWorkspaces of its own; Run then feeds the inputs, executes the
// steps in plan order, leaves the outputs in their registers and copies the assigned
// values into their variables (Program::AddAssign).
//
// Pipelined inputs. A plan compiled with CompileOptions::input_register_num = n has n
// copies ("slots") of every input register. Push copies one input set into the next free
// slot; RunPushed runs the steps on the oldest pushed slot and frees it. So a producer can
// fill slot k + 1 while the steps read slot k. Run(inputs) is Push then RunPushed, and
// fails while pushed sets are waiting. Slots are used in ring order; RunPushed points the
// steps that read input registers at its slot's bodies (a few pointer stores, no
// rebinding) before executing.
//
// Threading contract:
// - One pusher thread (Push) and one runner thread (RunPushed and the output calls) may
//   call at the same time; Run is both, so it must not race a Push or a RunPushed. Calls
//   from more threads are serialised, not corrupted, but their order is then up to the
//   scheduler and differs across ranks, which SPMD does not allow.
// - SPMD: every rank pushes the same sequence and runs the same number of times.
// - Collectives. RunPushed's boxing steps are collective, on communicators shared
//   process-wide per rank list (core/comm/mpi_comm_registry.h). A Push whose eager input
//   needs boxing (its nd-sbp differs from the program's) is collective too; were it to
//   run while RunPushed executes, the two threads' collectives could reach a communicator
//   in a different order on each rank and match the wrong partners. So such a Push first
//   waits until every set pushed before it has been run: its collectives then sit between
//   RunPushed k-1 and k on every rank. It overlaps nothing; push local pieces, or eager
//   tensors already in the program's nd-sbp (a memcpy), to overlap. Its wait ends only
//   when the runner catches up: on a single thread with pushed sets waiting, give it a
//   timeout. Collectives the caller issues itself on the same ranks (eager ops, other
//   instances) must likewise not run on one thread while a boxing Push runs on another.
// - Waiting. Push blocks while every slot is full (or, boxing, while earlier sets are
//   unrun); RunPushed blocks while nothing is pushed. Both take a timeout in seconds
//   (kWaitForever by default; 0 only tries) and return DEADLINE_EXCEEDED when it passes,
//   so a lone thread that calls RunPushed with nothing pushed gets an error, not a hang.
// - Outputs. With n > 1 the input slots have memory of their own (mem_plan.h), so a run's
//   outputs stay valid until the next RunPushed. With n = 1 the input register is packed
//   like any other and may share bytes with the outputs once the steps have read it, so a
//   Push can overwrite the last run's outputs: one slot does not pipeline; use Run, or
//   Push and RunPushed on one thread, reading the outputs before the next Push.
// - Abandoning. Close() wakes every waiting Push and RunPushed with CANCELLED and makes
//   every later one fail the same way; calls already copying or executing finish first.
//   The destructor closes the instance and waits for the calls in progress to return, so
//   destroying it under a blocked pusher does not hang (the pusher must not call again).
// - One slot. With input_register_num 1 there is nothing to overlap, and Run takes the
//   instance mutex once and holds it through the feeding and the steps (the queue's
//   bookkeeping would otherwise lock it about seven times per run). Calls from other
//   threads meanwhile (Close, stats, Output) wait for the run to finish.
//
// cuda placements (compile.h). Registers on a cuda placement are device memory of the
// rank's device, and every device operation goes through Tessera's stream there
// (core/tensor/cuda_device.h), so stream order alone orders the kernels, the copies in and
// out, and the device memory eager tensors share with the plan. Inputs come from host
// memory (local pieces) or eager tensors of either device type; each is copied in and
// waited for. Kernel steps are queued without waiting; a boxing step (on the devices over
// NCCL, or through host registers where ranks share a GPU: compile.h) waits for the
// stream first, and every rank of the world then agrees that this succeeded before any
// collective, so an error of a queued kernel on one rank stops every rank there. Otherwise such
// errors (kernels/cuda/data_errors.h) surface where data leaves the device: OutputLocal and
// OutputTensor, which wait for the stream.
//
// CUDA graph replay. A plan whose device work is cuda kernels and device copies (no cpu
// kernel step, no assign into host memory) replays its kernels as CUDA graphs, one per
// segment and slot: a segment is a maximal stretch of kernel steps between boxing steps
// (the last one also holds the variable assigns). Boxing steps run between the graphs
// as they run without replay, since they wait on the host, which a capture may not
// (above); so a plan with no boxing step (one rank, or layouts that need none) is one
// graph, and a data-parallel training step one graph per stretch between its
// collectives. The slot's first run launches its kernels one by one (it sets up cuBLAS,
// the kernels' per-stream state, the workspaces), the second captures each segment and
// launches it, and every later run launches the graphs. The kernels' arguments point at
// registers and variables, which never move, and at the slot's input registers, hence
// graphs per slot. A capture the stream refuses (TESSERA_CUDA_SYNC_CHECKS makes every
// kernel wait) leaves that slot on plain launches for good, with the reason kept;
// TESSERA_CUDA_GRAPHS=0 turns replay off. stats() counts the graphs and their launches.
//
// Allocation: after warm-up (the first runs grow the boxing workspaces and communicator
// caches) RunPushed, Run, and Push of local pieces or same-nd-sbp eager tensors make no
// heap allocation and no allocator call, host or device; stats() shows it per call. The
// mutex and condition variable are the instance's own: no global lock.
#ifndef TESSERA_CORE_PLAN_PLAN_EXEC_H_
#define TESSERA_CORE_PLAN_PLAN_EXEC_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/boxing/boxing_layouts.h"
#include "core/boxing/boxing_workspace.h"
#include "core/common/status.h"
#include "core/kernel/kernel.h"
#include "core/plan/compile.h"
#include "core/plan/mem_case.h"
#include "core/plan/register_manager.h"
#include "core/plan/replay_segments.h"
#include "core/tensor/cuda_device.h"
#include "core/tensor/cuda_graph.h"
#include "core/tensor/global_tensor.h"

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
  int input_register_num = 1;  // input slots
  int64_t num_runs = 0;        // successful Run / RunPushed calls
  int64_t num_pushes = 0;      // input sets pushed (Run's included)
  int64_t num_waiting = 0;     // pushed sets not yet taken by RunPushed
  // Push / RunPushed / Run calls inside the instance now, waiting or working.
  int64_t calls_in_progress = 0;
  // The last Run's or RunPushed's operator new calls on its thread (Run's include its
  // feeding); -1 unless the binary links //core/memory:heap_counter (tests and benchmarks
  // do).
  int64_t heap_allocations_last_run = -1;
  // The last Run's or RunPushed's Allocate and Free calls on its thread's host caching
  // allocator and, for a plan on a cuda placement, on the device caching allocator of the
  // rank's device (shared by the process: another thread's device allocations during the
  // call count too).
  int64_t allocator_calls_last_run = 0;
  // The same for the last Push (Run's feeding is not a Push here).
  int64_t heap_allocations_last_push = -1;
  int64_t allocator_calls_last_push = 0;
  // CUDA graph replay (file comment): graphs captured (per slot and stretch of kernels
  // between boxing steps) and their launches; both 0 on cpu placements, with
  // TESSERA_CUDA_GRAPHS=0, or where capture failed.
  int64_t cuda_graphs = 0;
  int64_t cuda_graph_launches = 0;
  // Why the last refused capture failed; empty when none was.
  std::string cuda_graph_refusal;
};

class PlanInstance {
 public:
  // Push's and RunPushed's timeout that never expires (any negative value; a finite
  // one is at most kMaxTimeoutSeconds, and +inf or NaN is INVALID_ARGUMENT).
  static constexpr double kWaitForever = -1;

  // Errors: INVALID_ARGUMENT for a null plan; RegisterManager::Create's.
  static Result<std::unique_ptr<PlanInstance>> Create(
      std::shared_ptr<const CompiledPlan> plan,
      const AllocatorFor& allocator_for = DefaultAllocatorFor);

  PlanInstance(const PlanInstance&) = delete;
  PlanInstance& operator=(const PlanInstance&) = delete;
  // Close(), then waits until every Push / RunPushed / Run in progress has returned.
  ~PlanInstance();

  // Inputs in the program's input order, each this rank's local piece in the input's
  // nd-sbp (data may be null for an empty piece; ranks outside the placement pass
  // anything). INVALID_ARGUMENT for a wrong count, shape or dtype, naming the input;
  // FAILED_PRECONDITION while pushed sets wait for RunPushed (Run would run the oldest of
  // those, not these inputs); CANCELLED once closed.
  Status Run(const kernels::LocalTensor* inputs, size_t num_inputs);
  // Inputs as global tensors: shape, dtype and placement must match the program's input,
  // except that the placement's device type may differ (a cpu tensor feeds a cuda input
  // with the same ranks and hierarchy, and the other way round); a different nd-sbp is
  // boxed into the input's register (tensor::ToGlobal when either side is on cuda).
  // INVALID_ARGUMENT naming the input and both metas otherwise. Local pieces (the other
  // overload) are host memory in either case.
  Status Run(const tensor::Tensor* inputs, size_t num_inputs);
  Status Run(const std::vector<tensor::Tensor>& inputs) {
    return Run(inputs.data(), inputs.size());
  }

  // Copies one input set (Run's forms and checks; the inputs are not read after it
  // returns) into the next free slot, waiting up to `timeout_seconds` for one (see the
  // file comment for a Push that boxes). Checks run before the wait. DEADLINE_EXCEEDED
  // when the wait times out, CANCELLED when the instance is or gets closed,
  // INVALID_ARGUMENT for a NaN timeout; nothing is pushed on error.
  Status Push(const kernels::LocalTensor* inputs, size_t num_inputs,
              double timeout_seconds = kWaitForever);
  Status Push(const tensor::Tensor* inputs, size_t num_inputs,
              double timeout_seconds = kWaitForever);
  Status Push(const std::vector<tensor::Tensor>& inputs, double timeout_seconds = kWaitForever) {
    return Push(inputs.data(), inputs.size(), timeout_seconds);
  }
  // Waits up to `timeout_seconds` for the oldest pushed set, runs the steps on it and frees
  // its slot (also when a step fails: the set is consumed). The outputs then read as after
  // Run. DEADLINE_EXCEEDED when nothing is pushed in time, CANCELLED when closed, a step's
  // error otherwise.
  Status RunPushed(double timeout_seconds = kWaitForever);

  // Abandons the instance: see the file comment. Idempotent; any thread.
  void Close();
  bool closed() const;
  int input_register_num() const { return plan_->input_register_num; }

  size_t num_outputs() const { return plan_->program.outputs().size(); }
  const infer::TensorMeta& output_meta(size_t i) const;
  // Output i's local piece after the last Run or RunPushed, in place: valid until the
  // next Run or RunPushed (input_register_num 1: the next Push) or the instance's
  // destruction. An output that is itself a data input reads its slot, which a Push may
  // refill as soon as the RunPushed that read it returned. has_local false (and data null)
  // when this rank holds none. On a cuda placement `local.data` is device memory that
  // queued kernels may still be writing: read it with OutputLocal. OUT_OF_RANGE for a bad
  // index; FAILED_PRECONDITION before the first run.
  struct OutputView {
    bool has_local = false;
    kernels::LocalTensor local;
    MemCase mem_case;  // where local.data lives
  };
  Result<OutputView> Output(size_t i) const;
  // Output i's piece on this rank as the plan fixes it (no run needed): whether the rank
  // holds one, and its shape and dtype. OUT_OF_RANGE for a bad index.
  struct OutputPiece {
    bool has_local = false;
    Shape shape;  // meaningful where has_local
    DType dtype = DType::kF32;
    size_t bytes() const;
  };
  Result<OutputPiece> OutputLocalPiece(size_t i) const;
  // Copies this rank's piece of output i (row-major) to host memory `out` of `out_bytes`
  // bytes, allocating nothing. From device memory it waits for the stream first and
  // reports the errors of kernels queued on it. Output's errors; FAILED_PRECONDITION on a
  // rank that holds no piece; INVALID_ARGUMENT when out_bytes is too small (naming both
  // sizes) or out is NULL.
  Status OutputLocal(size_t i, void* out, size_t out_bytes) const;
  // Output i copied into a new global tensor (allocates; every rank calls it).
  Result<tensor::Tensor> OutputTensor(size_t i) const;

  const CompiledPlan& plan() const { return *plan_; }
  PlanStats stats() const;

 private:
  struct BoundStep {
    const CompiledStep* step = nullptr;
    kernels::KernelContext ctx;  // kernel steps; points into `inputs` / `outputs`
    std::vector<kernels::LocalTensor> inputs;
    std::vector<Shape> logical_inputs;  // ctx.logical_input_shapes
    std::vector<kernels::LocalTensor> outputs;
    // Boxing steps: the layouts, checked at Bind (on a cuda placement boxed through the
    // host, those of the cpu placement with the value's ranks that the host Box runs on),
    // and there the host staging bodies (null where the rank holds no piece); whether this
    // rank is in the value's placement.
    std::optional<boxing::BoxingLayouts> box_layouts;
    void* host_src = nullptr;
    void* host_dst = nullptr;
    bool holds_piece = false;
  };
  // Program::AddAssign, bound: copy `bytes` from the value's register body into the
  // variable's local storage after the steps.
  struct BoundAssign {
    const void* src = nullptr;
    void* dst = nullptr;
    size_t bytes = 0;
    bool on_device = false;
  };
  // A bound step input that reads a data-input register: RunPushed points it at its slot.
  struct InputPatch {
    void** target;     // &BoundStep::inputs[k].data
    size_t input = 0;  // the program input
  };
  enum class SlotState { kFree, kFilling, kReady, kRunning };
  // Checks a Push's inputs (before any wait) and says whether one needs boxing.
  using CheckFn = Status (PlanInstance::*)(const char* where, const void* inputs, size_t num_inputs,
                                           bool* needs_boxing) const;
  // Fills slot `slot` from checked inputs.
  using FillFn = Status (PlanInstance::*)(const void* inputs, size_t num_inputs, int slot);

  explicit PlanInstance(std::shared_ptr<const CompiledPlan> plan) : plan_(std::move(plan)) {}
  Status Bind();
  kernels::LocalTensor Bound(const Operand& o, const Shape& shape, DType dtype) const;
  // Runs the steps on slot `slot` (inputs already patched in): through the slot's CUDA
  // graphs where there are (file comment), else ExecuteSteps.
  Status Execute(int slot);
  // Queues or runs steps_[begin, end), then the assigns when `assigns`.
  Status ExecuteSteps(size_t begin, size_t end, bool assigns);
  // Splits the steps into segments_ and sizes graphs_ when the plan can replay as CUDA
  // graphs (file comment); end of Bind.
  Status SetUpGraphReplay();
  // A boxing step on a cuda placement: staged through host registers and the host Box
  // (ranks sharing devices), or on the devices over NCCL (compile.h).
  Status BoxThroughHost(const BoundStep& b);
  Status BoxOnDevices(const BoundStep& b);
  Status CheckOutputIndex(const char* where, size_t i) const;
  // Output and the functions built on it, whose errors name `where`.
  Result<OutputView> View(const char* where, size_t i) const;
  bool register_on_device(int64_t register_id) const;

  // Run with one slot: everything under one hold of mu_ (file comment). Returns false,
  // with nothing done, when the slot is taken and the queued path must decide.
  bool TryRunLocked(CheckFn check, FillFn fill, const void* inputs, size_t num_inputs, Status* s);
  Status PushMeasured(CheckFn check, FillFn fill, const void* inputs, size_t num_inputs,
                      double timeout_seconds);
  Status RunMeasured(CheckFn check, FillFn fill, const void* inputs, size_t num_inputs);
  Status PushUnmeasured(const char* where, CheckFn check, FillFn fill, const void* inputs,
                        size_t num_inputs, double timeout_seconds);
  Status RunPushedUnmeasured(const char* where, double timeout_seconds);
  Status CheckInputCount(const char* where, size_t num_inputs) const;
  Status CheckLocal(const char* where, const void* inputs, size_t num_inputs,
                    bool* needs_boxing) const;
  Status CheckTensors(const char* where, const void* inputs, size_t num_inputs,
                      bool* needs_boxing) const;
  Status FillLocal(const void* inputs, size_t num_inputs, int slot);
  Status FillTensors(const void* inputs, size_t num_inputs, int slot);
  // Every public Push / RunPushed / Run is counted from its start (CANCELLED when closed)
  // to its last touch of the instance, so the destructor can wait for it.
  Status EnterCall(const char* where);
  void LeaveCallLocked();  // under mu_

  std::shared_ptr<const CompiledPlan> plan_;
  std::unique_ptr<RegisterManager> registers_;
  std::vector<void*> bodies_;  // by register id; copy 0 for input registers
  std::vector<BoundStep> steps_;
  std::vector<InputPatch> patches_;
  std::vector<BoundAssign> assigns_;
  // slot_bodies_[slot][i]: program input i's body in that slot, null without a local piece.
  std::vector<std::vector<void*>> slot_bodies_;
  std::vector<int> input_of_register_;      // by register id: its program input, or -1
  boxing::BoxingWorkspace workspace_;       // the runner's
  boxing::BoxingWorkspace push_workspace_;  // boxing inside Push
  // Device staging of boxing steps on the devices (made at Bind on ranks with a device).
  std::unique_ptr<boxing::BoxingWorkspace> device_workspace_;
  // The rank's CUDA device when the plan has device registers or variables, else null.
  const tensor::CudaDevice* device_ = nullptr;
  // CUDA graph replay (file comment): the steps in run order as segments
  // (replay_segments.h); empty when the plan cannot replay.
  std::vector<ReplaySegment> segments_;
  // By slot; used by the one thread that runs at a time; the counters are read by stats().
  struct SlotGraph {
    int plain_runs = 0;  // successful runs launched kernel by kernel
    bool refused = false;
    std::vector<std::unique_ptr<tensor::CudaGraph>> graphs;  // by segment; null until captured
  };
  std::vector<SlotGraph> graphs_;
  std::atomic<int64_t> graphs_captured_{0};
  std::atomic<int64_t> graph_launches_{0};
  // Its own lock: Run holds mu_ through the steps (file comment), RunPushed does not.
  mutable std::mutex graph_refusal_mu_;
  std::string graph_refusal_;  // guarded by graph_refusal_mu_

  // The pipeline's state; everything below is guarded by mu_.
  mutable std::mutex mu_;
  std::condition_variable changed_;  // any field below changed
  std::vector<SlotState> slot_state_;
  bool closed_ = false;
  bool pushing_ = false;       // a Push is filling a slot
  bool running_ = false;       // a RunPushed is executing
  int active_calls_ = 0;       // calls entered and not yet returned
  int64_t num_pushes_ = 0;     // slot of the next Push: num_pushes_ % n
  int64_t runs_started_ = 0;   // slot of the next RunPushed: runs_started_ % n
  int64_t runs_finished_ = 0;  // RunPushed calls done, failed ones included
  int last_run_slot_ = 0;      // the slot the last successful run read
  int64_t num_runs_ = 0;
  int64_t heap_allocations_last_run_ = -1;
  int64_t allocator_calls_last_run_ = 0;
  int64_t heap_allocations_last_push_ = -1;
  int64_t allocator_calls_last_push_ = 0;
};

}  // namespace tessera::plan

#endif  // TESSERA_CORE_PLAN_PLAN_EXEC_H_
