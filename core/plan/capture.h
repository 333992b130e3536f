// Capture: builds a Program (program.h) by recording eager op calls instead of listing
// them through Program::AddOp.
//
//   BeginCapture();
//   Tensor x = *CapturePlaceholder("x", {8, 16}, DType::kF32, placement);   // a data input
//   Tensor h = (*eager::Apply("matmul", {x, w}))[0];   // recorded; w, a real tensor,
//   Tensor y = (*eager::Apply("relu", {h}))[0];        // becomes a variable
//   std::unique_ptr<Program> program = *EndCapture({y});
//
// While a capture is active on a thread, every eager op there with a placeholder input
// (Apply, the C API's tess_op_call_apply and typed ops, the bindings' ops) is recorded: Program
// inference runs at once, so a bad call fails at the call, and its outputs are
// placeholders with the inferred metadata. A real tensor used alongside a placeholder
// becomes a program variable ("v0", "v1", ... in order of first use; the program keeps
// it alive, and runs read its current storage). Ops whose inputs are all real run
// eagerly as usual: their results are constants of the program. to_global on a
// placeholder with a new nd-sbp is recorded as an `identity` op pinned to it (a boxing
// step); to_host and local-data access on a placeholder fail with FAILED_PRECONDITION.
//
// One capture per thread at a time; placeholders belong to their capture and error once
// it ended. Every rank captures the same calls (SPMD), as it would run them.
#ifndef TESSERA_CORE_PLAN_CAPTURE_H_
#define TESSERA_CORE_PLAN_CAPTURE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/plan/program.h"
#include "core/sbp/sbp.h"
#include "core/tensor/global_tensor.h"

namespace tessera::plan {

// Starts recording on the calling thread. FAILED_PRECONDITION when one is already active.
Status BeginCapture();

// Whether a capture is active on the calling thread.
bool Capturing();

// A data input of the program being captured, as a placeholder tensor (Program::AddInput's
// defaults and errors). FAILED_PRECONDITION without an active capture.
Result<tensor::Tensor> CapturePlaceholder(std::string name, const Shape& shape, DType dtype,
                                          const Placement& placement,
                                          const std::optional<NdSbp>& nd_sbp = std::nullopt);

// A placeholder standing for real tensor `t` as a program variable (made one if it is not
// yet), so that ops on it are recorded even when all their other inputs are real too
// (ops on real tensors alone run eagerly; e.g. a step counter's increment). FAILED_
// PRECONDITION without an active capture; INVALID_ARGUMENT for a null or placeholder `t`.
Result<tensor::Tensor> CaptureVariable(const tensor::Tensor& t);

// Records Program::AddAssign(variable of `target`, `value`): every run of the program ends
// by copying `value` into `target`'s storage (all steps read the old contents first).
// `target` is a real tensor (it becomes a variable if it is not one yet), `value` a
// placeholder of this capture with the same meta (shape, dtype, placement, nd-sbp). A
// captured optimizer step writes parameters and state back with it.
// FAILED_PRECONDITION without an active capture or for a placeholder of another capture;
// INVALID_ARGUMENT for a null argument, a placeholder `target`, a real `value`, and
// AddAssign's errors (a meta mismatch, a target assigned twice).
Status CaptureAssign(const tensor::Tensor& target, const tensor::Tensor& value);

// Ends the capture and returns its program with `outputs` (placeholders of this capture)
// as the program's outputs, in order. The capture ends whether or not this succeeds.
// FAILED_PRECONDITION without an active capture; INVALID_ARGUMENT for no outputs, a NULL
// output, a real tensor or a placeholder of another capture (naming its index), or one
// listed twice.
Result<std::unique_ptr<Program>> EndCapture(const std::vector<tensor::Tensor>& outputs);

// Ends the capture, if any, dropping what it recorded (for error paths).
void AbortCapture();

}  // namespace tessera::plan

#endif  // TESSERA_CORE_PLAN_CAPTURE_H_
