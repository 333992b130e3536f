#include "core/optim/optimizer.h"

#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <utility>

#include "core/common/double_text.h"
#include "core/eager/interpreter.h"
#include "core/op/op_registry.h"
#include "core/optim/fused_buckets.h"
#include "core/tensor/creation.h"

namespace tessera {
namespace optim {
namespace {

using autograd::Variable;
using tensor::Tensor;

Status CheckParams(const std::vector<Variable*>& params) {
  std::set<const autograd::AutogradMeta*> seen;
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string name = "Optimizer: parameter " + std::to_string(i);
    const Variable* p = params[i];
    if (p == nullptr) return InvalidArgument(name + " is null");
    if (p->value == nullptr) return InvalidArgument(name + " has no tensor");
    // The result of a recorded op first: its record requires no gradient of its own,
    // and "not a leaf" is the useful message.
    if (p->meta != nullptr && !p->meta->is_leaf()) {
      return InvalidArgument(name + " (" + p->value->meta().ToString() +
                             ") is the result of an op, not a leaf; detach it first");
    }
    if (p->meta == nullptr || !p->meta->requires_grad) {
      return InvalidArgument(name + " (" + p->value->meta().ToString() +
                             ") does not require a gradient; only leaves that do are optimized");
    }
    if (!autograd::IsFloatingDType(p->value->dtype())) {
      return InvalidArgument(name + " has dtype " + DTypeName(p->value->dtype()) +
                             "; expected a floating dtype");
    }
    if (!seen.insert(p->meta.get()).second) {
      return InvalidArgument(name + " is listed twice (the same Variable record appears earlier)");
    }
  }
  return Status::Ok();
}

// Copies `src`'s local piece over `dst`'s: the parameter update in place (the one
// place a tensor's data changes after it was built; see optimizer.h).
Status OverwriteLocal(const Tensor& dst, const Tensor& src) {
  if (!dst->has_local()) return Status::Ok();
  void* to = const_cast<tensor::GlobalTensor&>(*dst).mutable_local_data();
  const size_t bytes = static_cast<size_t>(dst->local_bytes());
  if (dst->cuda_device() != nullptr) {
    return tensor::CopyDeviceToDevice(*dst->cuda_device(), to, src->local_data(), bytes);
  }
  if (bytes > 0) std::memcpy(to, src->local_data(), bytes);
  return Status::Ok();
}

}  // namespace

Optimizer::Optimizer(std::vector<Variable*> params, const OptimizerOptions& options)
    : params_(std::move(params)),
      options_(options),
      steps_(params_.size(), 0),
      states_(params_.size()) {}

Optimizer::~Optimizer() = default;

Result<std::unique_ptr<Optimizer>> Optimizer::Create(const std::vector<Variable*>& params,
                                                     const OptimizerOptions& options) {
  TESS_RETURN_IF_ERROR(ValidateOptions(options));
  TESS_RETURN_IF_ERROR(CheckParams(params));
  std::unique_ptr<Optimizer> opt(new Optimizer(params, options));
  if (options.fused) {
    TESS_ASSIGN_OR_RETURN(opt->fused_, FusedBuckets::Create(params, options, &opt->steps_));
  }
  return opt;
}

Status Optimizer::Step() {
  autograd::NoGradGuard no_grad;
  return fused_ != nullptr ? fused_->Step() : StepPerTensor();
}

Status Optimizer::ZeroGrad() {
  for (Variable* p : params_) p->meta->grad = nullptr;
  return fused_ != nullptr ? fused_->ZeroGrad() : Status::Ok();
}

Status Optimizer::SetLr(double lr) {
  if (!std::isfinite(lr) || lr < 0) {
    return InvalidArgument("Optimizer::SetLr: lr is " + DoubleText(lr) +
                           "; expected a finite value >= 0");
  }
  options_.lr = lr;
  if (fused_ != nullptr) fused_->SetLr(lr);
  return Status::Ok();
}

OverlapStats Optimizer::overlap_stats() const {
  return fused_ != nullptr ? fused_->stats() : OverlapStats{};
}

Status Optimizer::ApplyUpdate(const op::OpDef& def, size_t i, const op::AttrMap& attrs,
                              std::vector<Tensor>* outputs, const Tensor* step) {
  const Variable& p = *params_[i];
  const Tensor& value = p.value;
  const int num_states = NumStates(options_.algorithm);
  std::vector<Tensor>& state = states_[i];
  if (state.empty()) {
    for (int s = 0; s < num_states; ++s) {
      TESS_ASSIGN_OR_RETURN(Tensor zeros, tensor::Zeros(value->shape(), value->dtype(),
                                                        value->placement(), value->nd_sbp()));
      state.push_back(std::move(zeros));
    }
  }
  std::vector<Tensor> inputs = {value, p.meta->grad};
  inputs.insert(inputs.end(), state.begin(), state.end());
  if (step != nullptr) inputs.push_back(*step);
  // The parameter's layout for the parameter and every output: inference boxes the
  // gradient (and nothing else) to it.
  std::vector<infer::SbpConstraint> pins = {{false, 0, value->nd_sbp()}};
  for (int o = 0; o <= num_states; ++o) pins.push_back({true, o, value->nd_sbp()});
  return eager::Apply(def, inputs.data(), inputs.size(), attrs, outputs, pins);
}

Status Optimizer::StepPerTensor() {
  TESS_ASSIGN_OR_RETURN(const op::OpDef* def,
                        op::OpRegistry::Global().Find(UpdateOpName(options_.algorithm)));
  std::vector<Tensor> outputs;
  for (size_t i = 0; i < params_.size(); ++i) {
    Variable& p = *params_[i];
    if (p.meta->grad == nullptr) continue;  // no gradient reached it: skipped, as PyTorch
    const Tensor& value = p.value;
    std::vector<Tensor>& state = states_[i];
    Status s = ApplyUpdate(*def, i, UpdateAttrs(options_, steps_[i] + 1), &outputs);
    if (!s.ok()) {
      return Status(s.code(),
                    "Optimizer::Step: parameter " + std::to_string(i) + ": " + s.message());
    }
    TESS_RETURN_IF_ERROR(OverwriteLocal(value, outputs[0]));
    state.assign(outputs.begin() + 1, outputs.end());
    ++steps_[i];
  }
  return Status::Ok();
}

}  // namespace optim
}  // namespace tessera
