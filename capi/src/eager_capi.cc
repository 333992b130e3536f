// tess_op_call_apply, tess_explanation_last and what the generated typed ops (ops_generated.cc)
// share with them (typed_ops.h): run ops on eager tensors through eager::Apply.
//
// Hot path (a typed op whose inference is cached and whose inputs need no boxing):
// unwrap the handles, record the call for explain (thread-local buffers that keep
// their capacity), eager::Apply, one handle per output. The op definitions are
// looked up once per process and each op's attribute map is per thread and changes
// only when a value does, so nothing else allocates and nothing takes a lock.
#include <algorithm>
#include <string>
#include <vector>

#include "capi/src/capi_error.h"
#include "capi/src/handles.h"
#include "capi/src/tensor_args.h"
#include "capi/src/typed_ops.h"
#include "core/autograd/variable.h"
#include "core/eager/interpreter.h"
#include "core/infer/explain.h"
#include "core/infer/explain_json.h"
#include "core/op/attr.h"
#include "core/op/op_registry.h"
#include "tessera/tessera.h"

using tessera::FailedPrecondition;
using tessera::Internal;
using tessera::InvalidArgument;
using tessera::Result;
using tessera::Status;
using tessera::capi::NewTensorHandle;
using tessera::capi::ReportIn;
using tessera::infer::SbpConstraint;
using tessera::infer::TensorMeta;
using tessera::op::AttrMap;
using tessera::op::AttrValue;
using tessera::op::OpDef;
using tessera::tensor::Tensor;

namespace {

const std::vector<SbpConstraint>& NoConstraints() {
  static const std::vector<SbpConstraint>* none = new std::vector<SbpConstraint>();
  return *none;
}

// Per-thread state, reused by every op so a warm call allocates nothing here.
struct OpScratch {
  std::vector<const tess_tensor*> handles;  // a repeated input's handles (TypedOpInputs)
  std::vector<Tensor> inputs;               // the inputs' tensors as one array
  std::vector<Tensor> outputs;              // eager::Apply's outputs
  // The autograd path (an input requires a gradient): its inputs and outputs, and the
  // outputs' records, parallel to `outputs`.
  std::vector<tessera::autograd::Variable> variables;
  std::vector<tessera::autograd::Variable> variable_outputs;
  std::vector<std::shared_ptr<tessera::autograd::AutogradMeta>> output_records;
  // The last op call, for tess_explanation_last: metas rather than tensors, so that no
  // tensor's storage outlives the caller's last handle to it.
  const OpDef* last_def = nullptr;
  std::vector<TensorMeta> last_inputs;
  AttrMap last_attrs;
  std::vector<SbpConstraint> last_constraints;
};

OpScratch& ThreadScratch() {
  thread_local OpScratch scratch;
  return scratch;
}

void RecordCall(OpScratch& s, const OpDef& def, const Tensor* inputs, size_t num_inputs,
                const AttrMap& attrs, const std::vector<SbpConstraint>& constraints) {
  s.last_def = &def;
  s.last_inputs.clear();
  for (size_t i = 0; i < num_inputs; ++i) s.last_inputs.push_back(inputs[i]->meta());
  s.last_attrs = attrs;
  s.last_constraints = constraints;
}

// Runs `def` on the handles' tensors into s.outputs (and their autograd records into
// s.output_records when the call was recorded). Plain eager::Apply unless an input
// requires a gradient and grad mode is on, so the hot path is unchanged.
Status ApplyOp(OpScratch& s, const OpDef& def, const tess_tensor* const* handles, size_t num_inputs,
               const AttrMap& attrs, const std::vector<SbpConstraint>& constraints) {
  s.inputs.clear();
  s.output_records.clear();
  bool needs_grad = false;
  for (size_t i = 0; i < num_inputs; ++i) {
    s.inputs.push_back(handles[i]->value);
    const auto& record = handles[i]->autograd;
    needs_grad |= record != nullptr && (record->requires_grad || record->grad_fn != nullptr);
  }
  RecordCall(s, def, s.inputs.data(), num_inputs, attrs, constraints);
  if (!needs_grad || !tessera::autograd::GradModeEnabled()) {
    Status st =
        tessera::eager::Apply(def, s.inputs.data(), num_inputs, attrs, &s.outputs, constraints);
    s.inputs.clear();  // the caller's handles keep the inputs alive, not this thread
    return st;
  }
  s.variables.clear();
  for (size_t i = 0; i < num_inputs; ++i) {
    s.variables.push_back({std::move(s.inputs[i]), handles[i]->autograd});
  }
  s.inputs.clear();
  Status st = tessera::autograd::Apply(def, s.variables.data(), num_inputs, attrs,
                                       &s.variable_outputs, constraints);
  s.variables.clear();
  s.outputs.clear();
  for (auto& v : s.variable_outputs) {
    s.outputs.push_back(std::move(v.value));
    s.output_records.push_back(std::move(v.meta));
  }
  s.variable_outputs.clear();
  return st;
}

// A handle for output i of the last ApplyOp, with its autograd record.
tess_tensor* NewOutputHandle(OpScratch& s, size_t i) {
  tess_tensor* t = NewTensorHandle(std::move(s.outputs[i]));
  if (i < s.output_records.size()) t->autograd = std::move(s.output_records[i]);
  return t;
}

}  // namespace

namespace tessera::capi {

const OpDef* TypedOpDef(const char* name) {
  Result<const OpDef*> def = tessera::op::OpRegistry::Global().Find(name);
  return def.ok() ? *def : nullptr;
}

const AttrMap& NoAttrs() {
  static const AttrMap* none = new AttrMap();
  return *none;
}

std::vector<const tess_tensor*>& TypedOpInputs() { return ThreadScratch().handles; }

tess_status NullListItem(const char* function, const char* list, size_t i) {
  return ReportIn(function,
                  InvalidArgument(std::string(list) + "[" + std::to_string(i) + "] is NULL"));
}

void TypedOpAttrs::SetInt(std::string_view name, int64_t v) {
  const AttrValue* have = map_.Find(name);
  if (have == nullptr || have->type() != tessera::op::AttrType::kInt || have->int_value() != v) {
    map_.Set(name, AttrValue::Int(v));
  }
}

void TypedOpAttrs::SetFloat(std::string_view name, double v) {
  const AttrValue value = AttrValue::Float(v);
  const AttrValue* have = map_.Find(name);
  if (have == nullptr || *have != value) map_.Set(name, value);
}

void TypedOpAttrs::SetBool(std::string_view name, bool v) {
  const AttrValue* have = map_.Find(name);
  if (have == nullptr || have->type() != tessera::op::AttrType::kBool || have->bool_value() != v) {
    map_.Set(name, AttrValue::Bool(v));
  }
}

void TypedOpAttrs::SetInts(std::string_view name, const int64_t* v, size_t n) {
  const AttrValue* have = map_.Find(name);
  if (have != nullptr && have->type() == tessera::op::AttrType::kInts &&
      have->ints_value().size() == n &&
      std::equal(have->ints_value().begin(), have->ints_value().end(), v)) {
    return;
  }
  map_.Set(name, AttrValue::Ints(n == 0 ? std::vector<int64_t>() : std::vector<int64_t>(v, v + n)));
}

bool TypedOpAttrs::SetDType(const char* function, std::string_view name, tess_dtype v) {
  if (!tessera::IsValidDType(v)) {
    ReportIn(function, InvalidArgument("attribute \"" + std::string(name) + "\": dtype value " +
                                       std::to_string(v) +
                                       " is not a known dtype (f32 0, f64 1, i32 2, i64 3, "
                                       "f16 4, bf16 5, bool 6)"));
    return false;
  }
  const AttrValue value = AttrValue::OfDType(static_cast<tessera::DType>(v));
  const AttrValue* have = map_.Find(name);
  if (have == nullptr || *have != value) map_.Set(name, value);
  return true;
}

tess_status RunTypedOp(const char* function, const OpDef* def, const tess_tensor* const* inputs,
                       size_t num_inputs, const AttrMap& attrs, tess_tensor** const* outs,
                       size_t num_outs, std::vector<const tess_tensor*>* release) {
  if (def == nullptr) {
    if (release != nullptr) release->clear();
    return ReportIn(function, Internal("the op is not in the op registry (ops_generated.cc is "
                                       "out of step with it: run tools/opgen.sh)"));
  }
  OpScratch& s = ThreadScratch();
  Status st = ApplyOp(s, *def, inputs, num_inputs, attrs, NoConstraints());
  if (release != nullptr) release->clear();
  if (!st.ok()) return ReportIn(function, st);
  if (s.outputs.size() != num_outs) {
    const size_t made = s.outputs.size();
    s.outputs.clear();
    return ReportIn(function, Internal("the op made " + std::to_string(made) + " outputs, not " +
                                       std::to_string(num_outs)));
  }
  if (num_outs == 1) {  // the hot path: one handle, nothing else allocated
    *outs[0] = NewOutputHandle(s, 0);
    s.outputs.clear();
    s.output_records.clear();
    return TESS_OK;
  }
  // Every handle first, so a failed allocation leaves the out-params untouched.
  tess_tensor* made[16] = {};
  if (num_outs > 16) {
    s.outputs.clear();
    return ReportIn(function, Internal("more than 16 outputs"));
  }
  try {
    for (size_t i = 0; i < num_outs; ++i) made[i] = NewOutputHandle(s, i);
  } catch (...) {
    for (tess_tensor* t : made) delete t;
    s.outputs.clear();
    s.output_records.clear();
    throw;
  }
  s.outputs.clear();
  s.output_records.clear();
  for (size_t i = 0; i < num_outs; ++i) *outs[i] = made[i];
  return TESS_OK;
}

}  // namespace tessera::capi

extern "C" {

tess_status tess_op_call_apply(tess_tensor** outputs, size_t outputs_capacity, size_t* num_outputs,
                               const tess_op_call* call, const tess_tensor* const* inputs,
                               size_t num_inputs) {
  TESS_CAPI_REQUIRE(outputs);
  TESS_CAPI_REQUIRE(num_outputs);
  TESS_CAPI_REQUIRE(call);
  if (num_inputs > 0) TESS_CAPI_REQUIRE(inputs);
  TESS_CAPI_BEGIN
  const tessera::infer::OpCall& c = call->value;
  const OpDef& def = c.def();
  if (!c.inputs().empty()) {
    return ReportIn(
        __func__,
        InvalidArgument(
            "the call of \"" + def.name() + "\" has " + std::to_string(c.inputs().size()) +
            " input metas; tess_op_call_add_input is for inference "
            "(tess_op_call_infer, tess_op_call_explain), while tess_op_call_apply takes its "
            "inputs as tensors: use a call without input metas"));
  }
  const size_t needed = static_cast<size_t>(def.num_outputs());
  if (outputs_capacity < needed) {
    return ReportIn(__func__,
                    InvalidArgument("outputs_capacity is " + std::to_string(outputs_capacity) +
                                    " but \"" + def.name() + "\" has " + std::to_string(needed) +
                                    " output" + (needed == 1 ? "" : "s")));
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    if (inputs[i] == nullptr) {
      return ReportIn(__func__, InvalidArgument("inputs[" + std::to_string(i) + "] is NULL"));
    }
  }
  OpScratch& s = ThreadScratch();
  Status st = ApplyOp(s, def, inputs, num_inputs, c.attrs(), c.constraints());
  if (!st.ok()) return ReportIn(__func__, st);
  // Every handle first, so a failed allocation leaves *outputs untouched.
  std::vector<tess_tensor*> made;
  try {
    for (size_t i = 0; i < s.outputs.size(); ++i) made.push_back(NewOutputHandle(s, i));
  } catch (...) {
    for (tess_tensor* t : made) delete t;
    s.outputs.clear();
    s.output_records.clear();
    throw;
  }
  s.outputs.clear();
  s.output_records.clear();
  for (size_t i = 0; i < made.size(); ++i) outputs[i] = made[i];
  *num_outputs = made.size();
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_explanation_last(tess_explanation** out) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_BEGIN
  const OpScratch& s = ThreadScratch();
  if (s.last_def == nullptr) {
    return ReportIn(__func__, FailedPrecondition("this thread has run no op yet"));
  }
  Result<tessera::infer::Explanation> e =
      tessera::infer::Explain(*s.last_def, s.last_inputs, s.last_attrs, s.last_constraints);
  if (!e.ok()) return ReportIn(__func__, e.status());
  auto* handle = new tess_explanation{std::move(e).value(), "", ""};
  handle->text = handle->value.ToString();
  handle->json = tessera::infer::ExplanationToJson(handle->value);
  *out = handle;
  return TESS_OK;
  TESS_CAPI_END
}

}  // extern "C"
