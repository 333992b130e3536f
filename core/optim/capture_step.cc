// Optimizer::CaptureStep: one per-tensor step recorded into a plan (optimizer.h).
#include <string>
#include <vector>

#include "core/eager/interpreter.h"
#include "core/op/op_registry.h"
#include "core/optim/optimizer.h"
#include "core/plan/capture.h"
#include "core/tensor/creation.h"

namespace tessera {
namespace optim {

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
  if (options_.algorithm != Algorithm::kSgd) {
    return Unimplemented(std::string("Optimizer::CaptureStep: algorithm ") +
                         AlgorithmName(options_.algorithm) +
                         " is not captured: its bias correction depends on the step number, "
                         "which a recorded op fixes; use sgd");
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    if (options_.momentum != 0 && options_.dampening != 0 && steps_[i] == 0 &&
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
                        op::OpRegistry::Global().Find(UpdateOpName(options_.algorithm)));
  const int num_states = NumStates(options_.algorithm);
  // A step after the first: see optimizer.h.
  const op::AttrMap attrs = UpdateAttrs(options_, 2);
  std::vector<tensor::Tensor> inputs, outputs;
  for (size_t i = 0; i < params_.size(); ++i) {
    autograd::Variable& p = *params_[i];
    if (p.meta->grad == nullptr) continue;  // as Step: no gradient, no update
    const std::string where = "Optimizer::CaptureStep: parameter " + std::to_string(i) + ": ";
    const tensor::Tensor& value = p.value;
    std::vector<tensor::Tensor>& state = states_[i];
    if (state.empty()) {
      for (int s = 0; s < num_states; ++s) {
        TESS_ASSIGN_OR_RETURN(
            tensor::Tensor zeros,
            tensor::Zeros(value->shape(), value->dtype(), value->placement(), value->nd_sbp()));
        state.push_back(std::move(zeros));
      }
    }
    inputs = {value, p.meta->grad};
    inputs.insert(inputs.end(), state.begin(), state.end());
    std::vector<infer::SbpConstraint> pins = {{false, 0, value->nd_sbp()}};
    for (int o = 0; o <= num_states; ++o) pins.push_back({true, o, value->nd_sbp()});
    Status s = eager::Apply(*def, inputs.data(), inputs.size(), attrs, &outputs, pins);
    if (s.ok()) s = plan::CaptureAssign(value, outputs[0]);
    for (int k = 0; s.ok() && k < num_states; ++k) {
      s = plan::CaptureAssign(state[k], outputs[1 + k]);
    }
    if (!s.ok()) return Status(s.code(), where + s.message());
  }
  for (autograd::Variable* p : params_) p->meta->grad = nullptr;
  return Status::Ok();
}

}  // namespace optim
}  // namespace tessera
