// tessera/autograd.h: the autograd record lives in the tensor handle (tess_tensor's
// `autograd`), beside its immutable data; ops record through eager_capi.cc's ApplyOp.
#include <string>
#include <vector>

#include "capi/src/capi_error.h"
#include "capi/src/handles.h"
#include "capi/src/struct_args.h"
#include "capi/src/tensor_args.h"
#include "core/autograd/backward.h"
#include "core/autograd/variable.h"
#include "tessera/tessera.h"

using tessera::InvalidArgument;
using tessera::Status;
using tessera::autograd::Variable;
using tessera::capi::NewTensorHandle;
using tessera::capi::ReadOptions;
using tessera::capi::ReportIn;

namespace {

Variable VariableOf(const tess_tensor* t) { return Variable{t->value, t->autograd}; }

}  // namespace

extern "C" {

tess_status tess_tensor_set_requires_grad(tess_tensor* tensor, int32_t requires_grad) {
  TESS_CAPI_REQUIRE(tensor);
  TESS_CAPI_BEGIN
  Variable v = VariableOf(tensor);
  Status s = tessera::autograd::SetRequiresGrad(&v, requires_grad != 0);
  if (!s.ok()) return ReportIn(__func__, s);
  tensor->autograd = std::move(v.meta);
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_tensor_requires_grad(int32_t* out, const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(tensor);
  *out = VariableOf(tensor).requires_grad() ? 1 : 0;
  return TESS_OK;
}

tess_status tess_tensor_is_leaf(int32_t* out, const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(tensor);
  *out = tensor->autograd == nullptr || tensor->autograd->is_leaf() ? 1 : 0;
  return TESS_OK;
}

tess_status tess_tensor_grad(tess_tensor** out, const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(tensor);
  TESS_CAPI_BEGIN
  const auto& record = tensor->autograd;
  *out = record == nullptr || record->grad == nullptr ? nullptr : NewTensorHandle(record->grad);
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_tensor_zero_grad(tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(tensor);
  if (tensor->autograd != nullptr) tensor->autograd->grad = nullptr;
  return TESS_OK;
}

tess_status tess_tensor_detach(tess_tensor** out, const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(tensor);
  TESS_CAPI_BEGIN
  *out = NewTensorHandle(tensor->value);
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_autograd_backward(const tess_tensor* const* roots, size_t num_roots,
                                   const tess_tensor* const* grads,
                                   const tess_backward_options* options) {
  TESS_CAPI_REQUIRE(roots);
  TESS_CAPI_BEGIN
  tess_backward_options opts = TESS_BACKWARD_OPTIONS_INIT;
  Status s = ReadOptions(__func__, "options", "tess_backward_options", options,
                         TESS_STRUCT_SIZE_UP_TO(tess_backward_options, retain_graph), &opts);
  if (!s.ok()) return ReportIn(__func__, s);
  if (num_roots == 0) return ReportIn(__func__, InvalidArgument("num_roots is 0"));
  std::vector<Variable> root_vars;
  std::vector<tessera::tensor::Tensor> root_grads;
  for (size_t i = 0; i < num_roots; ++i) {
    if (roots[i] == nullptr) {
      return ReportIn(__func__, InvalidArgument("roots[" + std::to_string(i) + "] is NULL"));
    }
    root_vars.push_back(VariableOf(roots[i]));
    if (grads != nullptr) root_grads.push_back(grads[i] == nullptr ? nullptr : grads[i]->value);
  }
  s = tessera::autograd::Backward(root_vars, root_grads, opts.retain_graph != 0);
  return ReportIn(__func__, s);
  TESS_CAPI_END
}

tess_status tess_autograd_set_grad_enabled(int32_t enabled, int32_t* previous) {
  if (previous != nullptr) *previous = tessera::autograd::GradModeEnabled() ? 1 : 0;
  tessera::autograd::SetGradModeEnabled(enabled != 0);
  return TESS_OK;
}

tess_status tess_autograd_is_grad_enabled(int32_t* out) {
  TESS_CAPI_REQUIRE(out);
  *out = tessera::autograd::GradModeEnabled() ? 1 : 0;
  return TESS_OK;
}

}  // extern "C"
