// Optimizer::CaptureStep: one per-tensor step recorded into a plan (optimizer.h).
//
// SGD records sgd_update as Step runs it. Adam / AdamW cannot: adam_update's bias
// corrections come from its "step" attribute, which a recorded op fixes for every run. So
// each parameter gets a step counter (a scalar program variable, incremented and assigned
// back every run), the moments come from adam_update (they do not depend on the step),
// and the new parameter is adam_update's formula spelled out in elementwise ops on the
// counter:
//   t = count + 1;  bc1 = 1 - beta1^t;  bc2 = 1 - beta2^t
//   new_param = decay * param - lr * m / (sqrt(v) / sqrt(bc2) + eps) / bc1
// (decay = 1 - lr * weight_decay for AdamW, 1 for Adam). adam_update's own new parameter
// is left unused.
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

// A scalar of `like`'s dtype and placement, broadcast.
Result<Tensor> ScalarLike(const Tensor& like, double value) {
  return tensor::Full(Shape{}, like->dtype(), value, like->placement(),
                      AllBroadcast(like->placement()));
}

Result<Tensor> Call(const char* op, const std::vector<Tensor>& inputs, op::AttrMap attrs = {},
                    const std::vector<infer::SbpConstraint>& pins = {}) {
  TESS_ASSIGN_OR_RETURN(std::vector<Tensor> out, eager::Apply(op, inputs, attrs, pins));
  return out[0];
}

op::AttrMap Value(double v) { return {{"value", op::AttrValue::Float(v)}}; }

// 1 - base^t, t a scalar placeholder.
Result<Tensor> OneMinusPow(double base, const Tensor& t) {
  TESS_ASSIGN_OR_RETURN(Tensor b, ScalarLike(t, base));
  TESS_ASSIGN_OR_RETURN(Tensor p, Call("pow", {b, t}));
  TESS_ASSIGN_OR_RETURN(Tensor neg, Call("scalar_mul", {p}, Value(-1)));
  return Call("scalar_add", {neg}, Value(1));
}

// Records Adam's new parameter from the new moments (file comment) and assigns the step
// counter; returns the new parameter.
Result<Tensor> AdamParam(const OptimizerOptions& o, const Tensor& param, const Tensor& m,
                         const Tensor& v, int64_t steps_taken) {
  TESS_ASSIGN_OR_RETURN(Tensor count, ScalarLike(param, static_cast<double>(steps_taken)));
  TESS_ASSIGN_OR_RETURN(Tensor read, plan::CaptureVariable(count));
  TESS_ASSIGN_OR_RETURN(Tensor t, Call("scalar_add", {read}, Value(1)));
  TESS_RETURN_IF_ERROR(plan::CaptureAssign(count, t));
  TESS_ASSIGN_OR_RETURN(Tensor bc1, OneMinusPow(o.beta1, t));
  TESS_ASSIGN_OR_RETURN(Tensor bc2, OneMinusPow(o.beta2, t));
  TESS_ASSIGN_OR_RETURN(Tensor sqrt_v, Call("sqrt", {v}));
  TESS_ASSIGN_OR_RETURN(Tensor sqrt_bc2, Call("sqrt", {bc2}));
  TESS_ASSIGN_OR_RETURN(Tensor scaled, Call("div", {sqrt_v, sqrt_bc2}));
  TESS_ASSIGN_OR_RETURN(Tensor denom, Call("scalar_add", {scaled}, Value(o.eps)));
  TESS_ASSIGN_OR_RETURN(Tensor ratio, Call("div", {m, denom}));
  TESS_ASSIGN_OR_RETURN(Tensor step, Call("scalar_mul", {ratio}, Value(o.lr)));
  TESS_ASSIGN_OR_RETURN(Tensor update, Call("div", {step, bc1}));
  // A placeholder for the parameter: scalar_mul on the real tensor alone would run once,
  // now, instead of at every run.
  TESS_ASSIGN_OR_RETURN(Tensor base, plan::CaptureVariable(param));
  if (o.algorithm == Algorithm::kAdamW) {
    TESS_ASSIGN_OR_RETURN(base, Call("scalar_mul", {base}, Value(1 - o.lr * o.weight_decay)));
  }
  // The parameter's layout, so the result can be assigned to it.
  return Call("sub", {base, update}, {}, {{true, 0, param->nd_sbp()}});
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
                        op::OpRegistry::Global().Find(UpdateOpName(options_.algorithm)));
  const int num_states = NumStates(options_.algorithm);
  // SGD: a step after the first (optimizer.h). Adam: any step; only the moments are used.
  const op::AttrMap attrs = UpdateAttrs(options_, 2);
  std::vector<Tensor> outputs;
  for (size_t i = 0; i < params_.size(); ++i) {
    autograd::Variable& p = *params_[i];
    if (p.meta->grad == nullptr) continue;  // as Step: no gradient, no update
    const Tensor& value = p.value;
    const std::vector<Tensor>& state = states_[i];
    Status s = ApplyUpdate(*def, i, attrs, &outputs);
    Tensor new_value;
    if (s.ok() && sgd) new_value = outputs[0];
    if (s.ok() && !sgd) {
      Result<Tensor> r = AdamParam(options_, value, outputs[1], outputs[2], steps_[i]);
      s = r.status();
      if (r.ok()) new_value = *r;
    }
    if (s.ok()) s = plan::CaptureAssign(value, new_value);
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
