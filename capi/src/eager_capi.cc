// tess_apply, the typed ops (tess_add, tess_matmul, ...) and tess_explain_last: run
// ops on eager tensors through eager::Apply.
//
// Hot path (a typed op whose inference is cached and whose inputs need no boxing):
// unwrap the handles, record the call for explain (thread-local buffers that keep
// their capacity), eager::Apply, one handle for the output. The op definitions are
// looked up once per process and the attribute maps of the attribute-free ops and
// matmul are built once, so nothing else allocates and nothing takes a lock.
#include <array>
#include <string>
#include <vector>

#include "capi/src/capi_error.h"
#include "capi/src/handles.h"
#include "capi/src/tensor_args.h"
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
using tessera::tensor::Tensor;
using tessera::infer::SbpConstraint;
using tessera::infer::TensorMeta;
using tessera::op::AttrMap;
using tessera::op::AttrValue;
using tessera::op::OpDef;

namespace {

// The ops with a typed C function.
enum TypedOp {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMaximum,
  kMinimum,
  kRelu,
  kGelu,
  kSigmoid,
  kTanh,
  kExp,
  kNeg,
  kSqrt,
  kMatmul,
  kReduceSum,
  kReduceMean,
  kReduceMax,
  kReduceMin,
  kSoftmax,
  kNumTypedOps,
};

constexpr const char* kTypedOpNames[kNumTypedOps] = {
    "add",        "sub",         "mul",        "div",        "maximum", "minimum", "relu",
    "gelu",       "sigmoid",     "tanh",       "exp",        "neg",     "sqrt",    "matmul",
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "softmax",
};

// Found once (a function-local static: afterwards a guard-flag load); NULL for an op
// the registry lacks, which is a build mistake reported as INTERNAL.
const OpDef* TypedOpDef(TypedOp op) {
  static const std::array<const OpDef*, kNumTypedOps> defs = [] {
    std::array<const OpDef*, kNumTypedOps> found{};
    for (int i = 0; i < kNumTypedOps; ++i) {
      Result<const OpDef*> def = tessera::op::OpRegistry::Global().Find(kTypedOpNames[i]);
      found[i] = def.ok() ? *def : nullptr;
    }
    return found;
  }();
  return defs[op];
}

const AttrMap& NoAttrs() {
  static const AttrMap* none = new AttrMap();
  return *none;
}

const std::vector<SbpConstraint>& NoConstraints() {
  static const std::vector<SbpConstraint>* none = new std::vector<SbpConstraint>();
  return *none;
}

// The four attribute maps of matmul, indexed by transpose_a * 2 + transpose_b.
const AttrMap& MatmulAttrs(bool transpose_a, bool transpose_b) {
  static const std::array<AttrMap, 4>* maps = [] {
    auto* m = new std::array<AttrMap, 4>();
    for (int i = 0; i < 4; ++i) {
      (*m)[i].Set("transpose_a", AttrValue::Bool(i / 2 == 1));
      (*m)[i].Set("transpose_b", AttrValue::Bool(i % 2 == 1));
    }
    return m;
  }();
  return (*maps)[(transpose_a ? 2 : 0) + (transpose_b ? 1 : 0)];
}

// Per-thread state, reused by every op so a warm call allocates nothing here.
struct OpScratch {
  std::vector<Tensor> inputs;   // tess_apply's inputs as one array
  std::vector<Tensor> outputs;  // eager::Apply's outputs
  // The last op call, for tess_explain_last: metas rather than tensors, so that no
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

// Runs `op` (one output) on inputs[0..num_inputs), all non-NULL.
tess_status RunTyped(const char* function, tess_tensor** out, TypedOp op, const Tensor* inputs,
                     size_t num_inputs, const AttrMap& attrs) {
  const OpDef* def = TypedOpDef(op);
  if (def == nullptr) {
    return ReportIn(function, Internal(std::string("op \"") + kTypedOpNames[op] +
                                       "\" is not in the op registry"));
  }
  OpScratch& s = ThreadScratch();
  RecordCall(s, *def, inputs, num_inputs, attrs, NoConstraints());
  Status st = tessera::eager::Apply(*def, inputs, num_inputs, attrs, &s.outputs);
  if (!st.ok()) return ReportIn(function, st);
  *out = NewTensorHandle(std::move(s.outputs[0]));
  s.outputs.clear();
  return TESS_OK;
}

tess_status Binary(const char* function, tess_tensor** out, TypedOp op, const tess_tensor* x,
                   const tess_tensor* y) {
  const Tensor inputs[2] = {x->value, y->value};
  return RunTyped(function, out, op, inputs, 2, NoAttrs());
}

tess_status Reduce(const char* function, tess_tensor** out, TypedOp op, const tess_tensor* x,
                   const int64_t* axes, size_t num_axes, int32_t keepdims) {
  AttrMap attrs;
  attrs.Set("axes", AttrValue::Ints(std::vector<int64_t>(axes, axes + num_axes)));
  attrs.Set("keepdims", AttrValue::Bool(keepdims != 0));
  return RunTyped(function, out, op, &x->value, 1, attrs);
}

}  // namespace

extern "C" {

tess_status tess_apply(tess_tensor** outputs, size_t outputs_capacity, size_t* num_outputs,
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
    return ReportIn(__func__,
                    InvalidArgument("the call of \"" + def.name() + "\" has " +
                                    std::to_string(c.inputs().size()) +
                                    " input metas; tess_op_call_add_input is for inference "
                                    "(tess_infer, tess_explain), while tess_apply takes its "
                                    "inputs as tensors: use a call without input metas"));
  }
  const size_t needed = static_cast<size_t>(def.num_outputs());
  if (outputs_capacity < needed) {
    return ReportIn(__func__,
                    InvalidArgument("outputs_capacity is " + std::to_string(outputs_capacity) +
                                    " but \"" + def.name() + "\" has " + std::to_string(needed) +
                                    " output" + (needed == 1 ? "" : "s")));
  }
  OpScratch& s = ThreadScratch();
  s.inputs.clear();
  for (size_t i = 0; i < num_inputs; ++i) {
    if (inputs[i] == nullptr) {
      s.inputs.clear();
      return ReportIn(__func__, InvalidArgument("inputs[" + std::to_string(i) + "] is NULL"));
    }
    s.inputs.push_back(inputs[i]->value);
  }
  RecordCall(s, def, s.inputs.data(), num_inputs, c.attrs(), c.constraints());
  Status st = tessera::eager::Apply(def, s.inputs.data(), num_inputs, c.attrs(), &s.outputs,
                                    c.constraints());
  s.inputs.clear();  // the caller's handles keep the inputs alive, not this thread
  if (!st.ok()) return ReportIn(__func__, st);
  // Every handle first, so a failed allocation leaves *outputs untouched.
  std::vector<tess_tensor*> made;
  try {
    for (Tensor& t : s.outputs) made.push_back(NewTensorHandle(std::move(t)));
  } catch (...) {
    for (tess_tensor* t : made) delete t;
    s.outputs.clear();
    throw;
  }
  s.outputs.clear();
  for (size_t i = 0; i < made.size(); ++i) outputs[i] = made[i];
  *num_outputs = made.size();
  return TESS_OK;
  TESS_CAPI_END
}

#define TESS_BINARY_OP(NAME, OP)                                                    \
  tess_status NAME(tess_tensor** out, const tess_tensor* x, const tess_tensor* y) { \
    TESS_CAPI_REQUIRE(out);                                                         \
    TESS_CAPI_REQUIRE(x);                                                           \
    TESS_CAPI_REQUIRE(y);                                                           \
    TESS_CAPI_BEGIN                                                                 \
    return Binary(__func__, out, OP, x, y);                                         \
    TESS_CAPI_END                                                                   \
  }

#define TESS_UNARY_OP(NAME, OP)                                  \
  tess_status NAME(tess_tensor** out, const tess_tensor* x) {    \
    TESS_CAPI_REQUIRE(out);                                      \
    TESS_CAPI_REQUIRE(x);                                        \
    TESS_CAPI_BEGIN                                              \
    return RunTyped(__func__, out, OP, &x->value, 1, NoAttrs()); \
    TESS_CAPI_END                                                \
  }

#define TESS_REDUCE_OP(NAME, OP)                                                                  \
  tess_status NAME(tess_tensor** out, const tess_tensor* x, const int64_t* axes, size_t num_axes, \
                   int32_t keepdims) {                                                            \
    TESS_CAPI_REQUIRE(out);                                                                       \
    TESS_CAPI_REQUIRE(x);                                                                         \
    if (num_axes > 0) TESS_CAPI_REQUIRE(axes);                                                    \
    TESS_CAPI_BEGIN                                                                               \
    return Reduce(__func__, out, OP, x, axes, num_axes, keepdims);                                \
    TESS_CAPI_END                                                                                 \
  }

TESS_BINARY_OP(tess_add, kAdd)
TESS_BINARY_OP(tess_sub, kSub)
TESS_BINARY_OP(tess_mul, kMul)
TESS_BINARY_OP(tess_div, kDiv)
TESS_BINARY_OP(tess_maximum, kMaximum)
TESS_BINARY_OP(tess_minimum, kMinimum)
TESS_UNARY_OP(tess_relu, kRelu)
TESS_UNARY_OP(tess_gelu, kGelu)
TESS_UNARY_OP(tess_sigmoid, kSigmoid)
TESS_UNARY_OP(tess_tanh, kTanh)
TESS_UNARY_OP(tess_exp, kExp)
TESS_UNARY_OP(tess_neg, kNeg)
TESS_UNARY_OP(tess_sqrt, kSqrt)
TESS_REDUCE_OP(tess_reduce_sum, kReduceSum)
TESS_REDUCE_OP(tess_reduce_mean, kReduceMean)
TESS_REDUCE_OP(tess_reduce_max, kReduceMax)
TESS_REDUCE_OP(tess_reduce_min, kReduceMin)

tess_status tess_matmul(tess_tensor** out, const tess_tensor* a, const tess_tensor* b,
                        int32_t transpose_a, int32_t transpose_b) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(a);
  TESS_CAPI_REQUIRE(b);
  TESS_CAPI_BEGIN
  const Tensor inputs[2] = {a->value, b->value};
  return RunTyped(__func__, out, kMatmul, inputs, 2,
                  MatmulAttrs(transpose_a != 0, transpose_b != 0));
  TESS_CAPI_END
}

tess_status tess_softmax(tess_tensor** out, const tess_tensor* x, int64_t axis) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(x);
  TESS_CAPI_BEGIN
  AttrMap attrs;
  attrs.Set("axis", AttrValue::Int(axis));
  return RunTyped(__func__, out, kSoftmax, &x->value, 1, attrs);
  TESS_CAPI_END
}

tess_status tess_explain_last(tess_explanation** out) {
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
