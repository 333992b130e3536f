// Optimizer::CaptureStep: one per-tensor step recorded into a plan (optimizer.h).
//
// SGD records sgd_update as Step runs it. Adam / AdamW cannot record adam_update: its
// bias corrections come from its "step" attribute, which a recorded op fixes for every
// run. So each parameter gets a step counter, an i64 scalar program variable that every
// run increments and assigns back, and the update is adam_update_at_step, which reads
// the step number from that counter when its kernel runs: two kernels and a copy per
// parameter besides the update.
#include <string>
#include <utility>
#include <vector>

#include "core/eager/interpreter.h"
#include "core/op/op_registry.h"
#include "core/optim/optimizer.h"
#include "core/plan/capture.h"
#include "core/tensor/creation.h"

namespace tessera {
namespace optim {
namespace {

using tensor::Tensor;

NdSbp AllBroadcast(const Placement& p) {
  NdSbp s;
  for (int i = 0; i < p.num_axes(); ++i) s.Append(Sbp::Broadcast());
  return s;
}

// Records the counter of a parameter that took `steps_taken` steps: read, plus one,
// assigned back; returns the step number of the run (counting from 1).
Result<Tensor> CaptureStepNumber(const Tensor& param, int64_t steps_taken) {
  TESS_ASSIGN_OR_RETURN(Tensor count,
                        tensor::Full(Shape{}, DType::kI64, static_cast<double>(steps_taken),
                                     param->placement(), AllBroadcast(param->placement())));
  TESS_ASSIGN_OR_RETURN(Tensor read, plan::CaptureVariable(count));
  TESS_ASSIGN_OR_RETURN(std::vector<Tensor> t,
                        eager::Apply("scalar_add", {read}, {{"value", op::AttrValue::Float(1)}}));
  TESS_RETURN_IF_ERROR(plan::CaptureAssign(count, t[0]));
  return t[0];
}

}  // namespace

Status Optimizer::CaptureStep() {
  if (!plan::Capturing()) {
    return FailedPrecondition(
        "Optimizer::CaptureStep: no capture is active on this thread (plan::BeginCapture first)");
  }
  if (fused_ != nullptr) {
    return Unimplemented(
        "Optimizer::CaptureStep: fused mode is not captured; create the optimizer with "
        "fused = false");
  }
  const bool sgd = options_.algorithm == Algorithm::kSgd;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (sgd && options_.momentum != 0 && options_.dampening != 0 && steps_[i] == 0 &&
        params_[i]->meta->grad != nullptr) {
      return FailedPrecondition("Optimizer::CaptureStep: parameter " + std::to_string(i) +
                                " took no step yet and dampening is " +
                                std::to_string(options_.dampening) +
                                ", so its first step differs from the later ones; take one "
                                "eager Step before capturing");
    }
  }
  autograd::NoGradGuard no_grad;
  TESS_ASSIGN_OR_RETURN(const op::OpDef* def,
                        op::OpRegistry::Global().Find(sgd ? "sgd_update" : "adam_update_at_step"));
  const int num_states = NumStates(options_.algorithm);
  // SGD: a step after the first (optimizer.h). Adam: the step comes from the counter.
  const op::AttrMap attrs = sgd ? UpdateAttrs(options_, 2) : AdamAttrsWithoutStep(options_);
  std::vector<Tensor> outputs;
  for (size_t i = 0; i < params_.size(); ++i) {
    autograd::Variable& p = *params_[i];
    if (p.meta->grad == nullptr) continue;  // as Step: no gradient, no update
    const Tensor& value = p.value;
    const std::vector<Tensor>& state = states_[i];
    Status s;
    if (sgd) {
      s = ApplyUpdate(*def, i, attrs, &outputs);
    } else {
      Result<Tensor> step = CaptureStepNumber(value, steps_[i]);
      s = step.ok() ? ApplyUpdate(*def, i, attrs, &outputs, &*step) : step.status();
    }
    if (s.ok()) s = plan::CaptureAssign(value, outputs[0]);
    for (int k = 0; s.ok() && k < num_states; ++k) {
      s = plan::CaptureAssign(state[k], outputs[1 + k]);
    }
    if (!s.ok()) {
      return Status(s.code(),
                    "Optimizer::CaptureStep: parameter " + std::to_string(i) + ": " + s.message());
    }
  }
  for (autograd::Variable* p : params_) p->meta->grad = nullptr;
  return Status::Ok();
}

}  // namespace optim
}  // namespace tessera
