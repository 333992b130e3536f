#include "core/autograd/variable.h"

#include <atomic>
#include <string>

#include "core/eager/interpreter.h"
#include "core/op/op_registry.h"
#include "core/tensor/global_cast.h"

namespace tessera {
namespace autograd {
namespace {

thread_local bool grad_mode = true;

std::atomic<uint64_t> next_sequence{1};

// Per-thread scratch, so a call whose inputs need no gradient allocates only what
// eager::Apply does.
struct Scratch {
  std::vector<tensor::Tensor> inputs;
  std::vector<tensor::Tensor> outputs;
};

Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

// Every declared attribute, with the call's value or the schema's default, so a
// gradient rule reads any attribute without knowing which the caller set.
op::AttrMap FilledAttrs(const op::OpDef& def, const op::AttrMap& attrs) {
  op::AttrMap filled = attrs;
  for (const op::AttrDef& a : def.attrs()) {
    if (filled.Find(a.name) == nullptr && a.default_value.has_value()) {
      filled.Set(a.name, *a.default_value);
    }
  }
  return filled;
}

Edge EdgeOf(const Variable& v) {
  if (!v.requires_grad()) return Edge{};
  if (v.meta->grad_fn != nullptr) return Edge{v.meta->grad_fn, v.meta->output_slot, nullptr};
  return Edge{nullptr, 0, v.meta};
}

}  // namespace

Result<Variable> MakeLeaf(tensor::Tensor value) {
  Variable v{std::move(value), nullptr};
  TESS_RETURN_IF_ERROR(SetRequiresGrad(&v, true));
  return v;
}

Status SetRequiresGrad(Variable* v, bool requires_grad) {
  if (v == nullptr || v->value == nullptr) return InvalidArgument("requires_grad: tensor is NULL");
  if (v->meta != nullptr && v->meta->grad_fn != nullptr) {
    return InvalidArgument(
        "requires_grad: the tensor is the result of op " + v->meta->grad_fn->def->name() +
        " recorded for autograd, not a leaf; only leaves take requires_grad (detach it first)");
  }
  if (requires_grad && !IsFloatingDType(v->value->dtype())) {
    return InvalidArgument(std::string("requires_grad: only floating tensors have gradients; "
                                       "this one is ") +
                           DTypeName(v->value->dtype()));
  }
  if (v->meta == nullptr) {
    if (!requires_grad) return Status::Ok();
    v->meta = std::make_shared<AutogradMeta>();
  }
  v->meta->requires_grad = requires_grad;
  return Status::Ok();
}

bool GradModeEnabled() { return grad_mode; }
void SetGradModeEnabled(bool enabled) { grad_mode = enabled; }
NoGradGuard::NoGradGuard() : previous_(grad_mode) { grad_mode = false; }
NoGradGuard::~NoGradGuard() { grad_mode = previous_; }

Status Apply(const op::OpDef& def, const Variable* inputs, size_t num_inputs,
             const op::AttrMap& attrs, std::vector<Variable>* outputs,
             const std::vector<infer::SbpConstraint>& constraints) {
  if (outputs == nullptr) return InvalidArgument(def.name() + ": outputs vector is NULL");
  outputs->clear();
  if (num_inputs > 0 && inputs == nullptr) {
    return InvalidArgument(def.name() + ": inputs is NULL but num_inputs is " +
                           std::to_string(num_inputs));
  }
  Scratch& s = ThreadScratch();
  s.inputs.clear();
  bool record = false;
  for (size_t i = 0; i < num_inputs; ++i) {
    s.inputs.push_back(inputs[i].value);
    record |= inputs[i].requires_grad();
  }
  record &= grad_mode;
  TESS_RETURN_IF_ERROR(
      eager::Apply(def, s.inputs.data(), num_inputs, attrs, &s.outputs, constraints));
  std::shared_ptr<Node> node;
  if (record) {
    node = std::make_shared<Node>();
    node->def = &def;
    node->attrs = FilledAttrs(def, attrs);
    node->inputs = s.inputs;
    node->outputs = s.outputs;
    node->next.reserve(num_inputs);
    for (size_t i = 0; i < num_inputs; ++i) node->next.push_back(EdgeOf(inputs[i]));
    node->sequence = next_sequence.fetch_add(1, std::memory_order_relaxed);
  }
  for (size_t i = 0; i < s.outputs.size(); ++i) {
    Variable out{std::move(s.outputs[i]), nullptr};
    // Integer and bool outputs (argmax, comparisons) carry no gradient.
    if (node != nullptr && IsFloatingDType(out.value->dtype())) {
      out.meta = std::make_shared<AutogradMeta>();
      out.meta->grad_fn = node;
      out.meta->output_slot = static_cast<int>(i);
    }
    outputs->push_back(std::move(out));
  }
  s.inputs.clear();  // hold no tensor past the call
  s.outputs.clear();
  return Status::Ok();
}

Result<Variable> ToGlobal(const Variable& x, const Placement& placement, const NdSbp& nd_sbp) {
  if (x.value == nullptr) return InvalidArgument("to_global: tensor is NULL");
  if (!x.requires_grad() || !grad_mode) {
    TESS_ASSIGN_OR_RETURN(tensor::Tensor moved, tensor::ToGlobal(x.value, placement, nd_sbp));
    return Variable{std::move(moved), nullptr};
  }
  if (!(placement == x.value->placement())) {
    return Unimplemented("to_global: the tensor requires a gradient, and a move from " +
                         x.value->placement().ToString() + " to " + placement.ToString() +
                         " is not differentiable yet (only layout changes on one placement "
                         "are); detach it first");
  }
  TESS_RETURN_IF_ERROR(ValidateNdSbp(nd_sbp, placement, x.value->shape()));
  TESS_ASSIGN_OR_RETURN(const op::OpDef* identity, op::OpRegistry::Global().Find("identity"));
  std::vector<Variable> out;
  TESS_RETURN_IF_ERROR(Apply(*identity, &x, 1, {}, &out, {infer::SbpConstraint{true, 0, nd_sbp}}));
  return std::move(out[0]);
}

}  // namespace autograd
}  // namespace tessera
