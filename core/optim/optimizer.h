// Optimizers over parameter Variables (core/autograd): SGD (with momentum, dampening,
// Nesterov), Adam and AdamW with PyTorch's semantics, in two modes.
//
//   OptimizerOptions o;  o.algorithm = Algorithm::kAdam;  o.lr = 1e-3;
//   auto opt = Optimizer::Create({&w1, &b1, &w2, &b2}, o);      // pointers: see below
//   for (...) {
//     (*opt)->ZeroGrad();
//     ... forward with autograd::Apply, autograd::Backward({loss}, {}) ...
//     (*opt)->Step();
//   }
//
// Parameters are the one mutable thing. Step writes the new values INTO the
// parameters' storage: every handle to a parameter's tensor sees the update, and so
// does any recorded graph that saved it (run Backward before Step, as in PyTorch).
// Optimizer state (momentum buffers, exp_avg, exp_avg_sq) is created on a parameter's
// first step, in the parameter's layout.
//
// Per-tensor mode (fused = false). For each parameter with a gradient, Step runs the
// update op (sgd_update / adam_update, core/op/ops/optim_ops.cc) eagerly on (param,
// grad, state) with the parameter's nd-sbp pinned for input 0 and every output, so
// inference boxes the gradient (a data-parallel P gradient: an all-reduce) and the
// state to the parameter's layout; the new value is then copied into the parameter.
// Works on every placement and device the update kernels run on (cpu, cuda).
//
// Fused mode (fused = true, cpu placements), in Bagua's manner. At Create, parameters
// with the same (dtype, placement, nd-sbp) are packed, from the LAST parameter back
// (gradients arrive roughly in the reverse of the forward's order), into flat buckets
// of at most bucket_bytes logical bytes each; every bucket holds this rank's pieces of
// its parameters, of their gradients and of their state, each as one contiguous array.
// Each parameter Variable is REBOUND to a tensor that views its bucket
// (GlobalTensor::View): that is why Create takes pointers, and why copies of a
// Variable made before Create keep the old storage (take copies after Create). A
// GradReadyHook on every parameter copies the gradient's local piece into its bucket
// slice once the gradient is final (boxing it first unless it already is the
// parameter's layout, or that layout with P(sum) where the parameter is B); when a
// bucket's last gradient arrives and the gradients are partial on some axes, the
// all-reduce over those axes' ranks is STARTED (MpiCommunicator::IAllReduce) and the
// hooks that follow call MPI_Test on the in-flight buckets, so the reduction overlaps
// the rest of backward (Open MPI progresses non-blocking collectives only inside MPI
// calls; with progress_thread a helper thread also tests them about every 50 us).
// Step waits for what is still in flight, then runs ONE update kernel per
// bucket over its flat arrays, in place. Gradients accumulated over several backward
// passes (no ZeroGrad between) are supported: a gradient arriving again restarts its
// bucket's round.
//
// ZeRO-1 (zero1 = true, with fused): in a bucket whose gradients are reduced, each rank
// of the reducing group owns an equal slice of the flat bucket (padded to a multiple of
// the group size). The hook that completes a bucket starts a reduce-scatter of its
// gradients (MpiCommunicator::IReduceScatterBlock) instead of the all-reduce, so it
// overlaps backward the same way; Step waits for it, updates this rank's slice of the
// parameters with its slice of the state (the state exists only for the slice), then
// all-gathers the parameters (blocking). The results equal the unsharded ones.
//
// Missing gradients (both modes): a parameter no backward reached since the last
// ZeroGrad is skipped by Step, its state and step count unchanged (PyTorch skips
// parameters whose .grad is None). In fused mode a bucket with only some gradients is
// reduced in Step (blocking; the absent slices are zeroed first) and updated
// parameter by parameter; so is a bucket whose parameters' step counts differ. (In
// fused mode a gradient arriving into a bucket whose round was already reduced starts
// a new round, so without ZeroGrad between steps a parameter of that bucket that the
// latest backward did not reach is skipped, where PyTorch would reuse its old .grad.)
//
// The optimizer's hooks are removed from the parameters when it is destroyed.
//
// Errors name the argument and its value. A hook cannot return an error, so a failure
// inside one (boxing, a collective) is kept and returned by the next Step (the first
// one wins; later hooks do nothing).
//
// SPMD: every rank of the world creates the optimizer with the same parameters in the
// same order and calls Step / ZeroGrad alike. One thread at a time.
#ifndef TESSERA_CORE_OPTIM_OPTIMIZER_H_
#define TESSERA_CORE_OPTIM_OPTIMIZER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "core/autograd/variable.h"
#include "core/common/status.h"
#include "core/op/op_def.h"
#include "core/optim/options.h"

namespace tessera {
namespace optim {

class FusedBuckets;

// Fused mode's record of its gradient all-reduces (every rank keeps its own).
struct OverlapStats {
  int64_t buckets = 0;
  // All-reduces started from a hook during backward, and those Step had to run itself
  // (an incomplete bucket).
  int64_t started_in_backward = 0;
  int64_t run_in_step = 0;
  // Of the ones started in backward: seconds from start to observed completion (by a
  // hook's MPI_Test or by Step's wait), summed; and the part of it Step spent waiting.
  // hidden_fraction() = 1 - wait / in_flight: the share of the all-reduce time that
  // backward covered.
  double in_flight_seconds = 0;
  double step_wait_seconds = 0;
  // Bytes of optimizer state this rank holds in the buckets (with zero1, its slices).
  int64_t state_bytes = 0;
  double hidden_fraction() const {
    return in_flight_seconds > 0 ? 1 - step_wait_seconds / in_flight_seconds : 0;
  }
};

class Optimizer {
 public:
  // `params`: the caller's parameter Variables, leaves that require a gradient, each
  // listed once; the Variables must outlive the optimizer (fused mode rebinds them and
  // its hooks refer to their records). INVALID_ARGUMENT naming the option and value
  // (ValidateOptions), or the parameter's index for a null pointer, one that does not
  // require a gradient or is not a leaf, a non-floating dtype, or a duplicate.
  // UNIMPLEMENTED for fused mode on a cuda placement.
  static Result<std::unique_ptr<Optimizer>> Create(const std::vector<autograd::Variable*>& params,
                                                   const OptimizerOptions& options);
  ~Optimizer();
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update of every parameter that has a gradient (see above).
  Status Step();
  // Plan mode (core/plan/capture.h): records one per-tensor step into the active capture
  // instead of running it. For each parameter whose gradient is a placeholder of the
  // capture (from a captured Backward), the update op is recorded and its results are
  // assigned back (plan::CaptureAssign) to the parameter and to its state tensors (created
  // now as zeros if this parameter took no step yet; they become program variables), so
  // every run of the compiled plan is one optimizer step, in place, allocating nothing.
  // The parameters' gradients are dropped afterwards (they are placeholders). Plan runs
  // are not counted in step_count(). SGD's attributes are those of a step after the first
  // (first_step false): with zero state and dampening 0 that equals the first step too.
  // Adam / AdamW also get a step counter per parameter (an i64 scalar variable starting
  // at step_count(), incremented every run), since adam_update's bias correction is a
  // fixed attribute: the update is adam_update_at_step, which reads the counter
  // (capture_step.cc).
  // Errors: FAILED_PRECONDITION without an active capture, or for SGD with momentum and
  // dampening != 0 on a parameter that took no eager step yet (its first step differs);
  // UNIMPLEMENTED in fused mode; CaptureAssign's and the ops' errors, naming the parameter.
  Status CaptureStep();
  // Drops every parameter's gradient (autograd's `grad` becomes null, as PyTorch's
  // set_to_none) and, in fused mode, the buckets' round (waiting for an all-reduce in
  // flight first: its error, if any, is returned).
  Status ZeroGrad();

  // The learning rate of the steps from now on (a schedule). INVALID_ARGUMENT naming
  // lr and its value when it is negative or not finite; nothing changes then.
  Status SetLr(double lr);

  const OptimizerOptions& options() const { return options_; }
  size_t num_params() const { return params_.size(); }
  // Steps taken by parameter `index` (its Adam bias-correction step).
  int64_t step_count(size_t index) const { return steps_[index]; }
  // Fused mode's all-reduce overlap so far; zeros in per-tensor mode.
  OverlapStats overlap_stats() const;

 private:
  Optimizer(std::vector<autograd::Variable*> params, const OptimizerOptions& options);
  Status StepPerTensor();
  // Runs (or, capturing, records) the update op of parameter i on (param, grad, state,
  // then `step` when given), creating its state as zeros first if it has none, pinned to
  // the parameter's layout.
  Status ApplyUpdate(const op::OpDef& def, size_t i, const op::AttrMap& attrs,
                     std::vector<tensor::Tensor>* outputs, const tensor::Tensor* step = nullptr);

  std::vector<autograd::Variable*> params_;
  OptimizerOptions options_;
  std::vector<int64_t> steps_;
  // Per-tensor mode: each parameter's state tensors (empty before its first step).
  std::vector<std::vector<tensor::Tensor>> states_;
  std::shared_ptr<FusedBuckets> fused_;
};

}  // namespace optim
}  // namespace tessera

#endif  // TESSERA_CORE_OPTIM_OPTIMIZER_H_
