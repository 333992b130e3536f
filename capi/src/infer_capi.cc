// tess_dtype_*, tess_op_*, tess_op_call_infer*, tess_op_call_explain*: describe an op call, infer
// its SBP signature (through the per-thread inference cache) and explain the choice.
#include <string>
#include <vector>

#include "capi/src/capi_error.h"
#include "capi/src/handles.h"
#include "capi/src/struct_args.h"
#include "capi/src/tensor_args.h"
#include "core/common/dtype.h"
#include "core/infer/explain_json.h"
#include "core/infer/infer_cache.h"
#include "core/infer/op_call.h"
#include "core/op/op_registry.h"
#include "tessera/tessera.h"

using tessera::InvalidArgument;
using tessera::NdSbp;
using tessera::OutOfRange;
using tessera::Placement;
using tessera::Result;
using tessera::Status;
using tessera::capi::Report;
using tessera::infer::InferResult;
using tessera::infer::OpCall;
using tessera::op::AttrValue;

namespace {

static_assert(TESS_DTYPE_F32 == static_cast<int>(tessera::DType::kF32) &&
                  TESS_DTYPE_F64 == static_cast<int>(tessera::DType::kF64) &&
                  TESS_DTYPE_I32 == static_cast<int>(tessera::DType::kI32) &&
                  TESS_DTYPE_I64 == static_cast<int>(tessera::DType::kI64) &&
                  TESS_DTYPE_F16 == static_cast<int>(tessera::DType::kF16) &&
                  TESS_DTYPE_BF16 == static_cast<int>(tessera::DType::kBF16) &&
                  TESS_DTYPE_BOOL == static_cast<int>(tessera::DType::kBool),
              "tess_dtype values must match tessera::DType");

tess_status SetAttr(const char* function, tess_op_call* call, const char* name, AttrValue value) {
  Status s = call->value.SetAttr(name, std::move(value));
  if (!s.ok()) return Report(InvalidArgument(std::string(function) + ": " + s.message()));
  return TESS_OK;
}

// OUT_OF_RANGE unless index < count; `what` is "output" or "input".
Status CheckIndex(const char* function, const char* what, size_t index, size_t count) {
  if (index < count) return Status::Ok();
  return OutOfRange(std::string(function) + ": " + what + " " + std::to_string(index) +
                    " is outside a result with " + std::to_string(count) + " " + what +
                    (count == 1 ? "" : "s"));
}

// The one shape of every indexed result getter: OUT_OF_RANGE (naming `function`,
// `what` and the count) unless index < items.size(), else *out = get(items[index]).
template <typename Out, typename Items, typename Get>
tess_status GetIndexed(const char* function, const char* what, Out* out, const Items& items,
                       size_t index, Get get) {
  Status s = CheckIndex(function, what, index, items.size());
  if (!s.ok()) return Report(s);
  *out = get(items[index]);
  return TESS_OK;
}

tess_nd_sbp* NewNdSbp(const NdSbp& nd) { return new tess_nd_sbp{nd, nd.ToString()}; }

tess_status Constrain(const char* function, tess_op_call* call, bool is_output, size_t slot,
                      const tess_nd_sbp* nd_sbp) {
  // Larger than any op's slot count; keeps the int conversion exact.
  const size_t kMaxSlot = 1u << 30;
  Status s = call->value.Constrain(is_output, slot > kMaxSlot ? -1 : static_cast<int>(slot),
                                   nd_sbp->value);
  if (!s.ok()) {
    std::string message = s.message();
    if (slot > kMaxSlot) {
      message = call->value.def().name() + ": constraint names " +
                (is_output ? "output" : "input") + " slot " + std::to_string(slot) +
                ", past the op's last (" + call->value.def().Signature() + ")";
    }
    return Report(InvalidArgument(std::string(function) + ": " + message));
  }
  return TESS_OK;
}

}  // namespace

extern "C" {

tess_status tess_dtype_parse(tess_dtype* out, const char* text) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(text);
  TESS_CAPI_BEGIN
  Result<tessera::DType> dtype = tessera::ParseDType(text);
  if (!dtype.ok()) return Report(dtype.status());
  *out = static_cast<tess_dtype>(*dtype);
  return TESS_OK;
  TESS_CAPI_END
}

const char* tess_dtype_name(tess_dtype dtype) {
  if (!tessera::IsValidDType(dtype)) return "";
  return tessera::DTypeName(static_cast<tessera::DType>(dtype));
}

size_t tess_op_count(void) {
  try {
    return tessera::op::OpRegistry::Global().size();
  } catch (...) {
    return 0;
  }
}

const char* tess_op_name(size_t index) {
  try {
    // The registry is immutable after construction, so its sorted names are too.
    static const std::vector<std::string>* names =
        new std::vector<std::string>(tessera::op::OpRegistry::Global().Names());
    return index < names->size() ? (*names)[index].c_str() : "";
  } catch (...) {
    return "";
  }
}

tess_status tess_op_call_create(tess_op_call** out, const char* op_name) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(op_name);
  TESS_CAPI_BEGIN
  Result<OpCall> call = OpCall::Make(op_name);
  if (!call.ok()) return Report(call.status());
  std::string signature = call->def().Signature();
  *out = new tess_op_call{std::move(call).value(), std::move(signature)};
  return TESS_OK;
  TESS_CAPI_END
}

void tess_op_call_destroy(tess_op_call* call) { delete call; }

const char* tess_op_call_signature(const tess_op_call* call) {
  return call ? call->signature.c_str() : "";
}

tess_status tess_op_call_set_attr_int(tess_op_call* call, const char* name, int64_t value) {
  TESS_CAPI_REQUIRE(call);
  TESS_CAPI_REQUIRE(name);
  TESS_CAPI_BEGIN
  return SetAttr(__func__, call, name, AttrValue::Int(value));
  TESS_CAPI_END
}

tess_status tess_op_call_set_attr_float(tess_op_call* call, const char* name, double value) {
  TESS_CAPI_REQUIRE(call);
  TESS_CAPI_REQUIRE(name);
  TESS_CAPI_BEGIN
  return SetAttr(__func__, call, name, AttrValue::Float(value));
  TESS_CAPI_END
}

tess_status tess_op_call_set_attr_bool(tess_op_call* call, const char* name, int32_t value) {
  TESS_CAPI_REQUIRE(call);
  TESS_CAPI_REQUIRE(name);
  TESS_CAPI_BEGIN
  return SetAttr(__func__, call, name, AttrValue::Bool(value != 0));
  TESS_CAPI_END
}

tess_status tess_op_call_set_attr_ints(tess_op_call* call, const char* name, const int64_t* values,
                                       size_t num_values) {
  TESS_CAPI_REQUIRE(call);
  TESS_CAPI_REQUIRE(name);
  if (num_values > 0) TESS_CAPI_REQUIRE(values);
  TESS_CAPI_BEGIN
  return SetAttr(__func__, call, name,
                 AttrValue::Ints(std::vector<int64_t>(values, values + num_values)));
  TESS_CAPI_END
}

tess_status tess_op_call_set_attr_dtype(tess_op_call* call, const char* name, tess_dtype value) {
  TESS_CAPI_REQUIRE(call);
  TESS_CAPI_REQUIRE(name);
  TESS_CAPI_BEGIN
  if (!tessera::IsValidDType(value)) {
    return Report(InvalidArgument(std::string(__func__) + ": attribute \"" + name +
                                  "\": dtype value " + std::to_string(value) +
                                  " is not a known dtype (f32 0, f64 1, i32 2, i64 3, f16 4, "
                                  "bf16 5, bool 6)"));
  }
  return SetAttr(__func__, call, name, AttrValue::OfDType(static_cast<tessera::DType>(value)));
  TESS_CAPI_END
}

tess_status tess_op_call_add_input(tess_op_call* call, const int64_t* shape, size_t ndim,
                                   tess_dtype dtype, const tess_placement* placement,
                                   const tess_nd_sbp* nd_sbp) {
  TESS_CAPI_REQUIRE(call);
  if (ndim > 0) TESS_CAPI_REQUIRE(shape);
  TESS_CAPI_REQUIRE(placement);
  TESS_CAPI_REQUIRE(nd_sbp);
  TESS_CAPI_BEGIN
  Status s = call->value.AddInput(std::vector<int64_t>(shape, shape + ndim), dtype,
                                  placement->value, nd_sbp->value);
  if (!s.ok()) return Report(InvalidArgument(std::string(__func__) + ": " + s.message()));
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_op_call_num_inputs(size_t* out, const tess_op_call* call) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(call);
  *out = call->value.inputs().size();
  return TESS_OK;
}

tess_status tess_op_call_constrain_input(tess_op_call* call, size_t slot,
                                         const tess_nd_sbp* nd_sbp) {
  TESS_CAPI_REQUIRE(call);
  TESS_CAPI_REQUIRE(nd_sbp);
  TESS_CAPI_BEGIN
  return Constrain(__func__, call, false, slot, nd_sbp);
  TESS_CAPI_END
}

tess_status tess_op_call_constrain_output(tess_op_call* call, size_t slot,
                                          const tess_nd_sbp* nd_sbp) {
  TESS_CAPI_REQUIRE(call);
  TESS_CAPI_REQUIRE(nd_sbp);
  TESS_CAPI_BEGIN
  return Constrain(__func__, call, true, slot, nd_sbp);
  TESS_CAPI_END
}

tess_status tess_op_call_infer(tess_infer_result** out, const tess_op_call* call) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(call);
  TESS_CAPI_BEGIN
  Result<std::shared_ptr<const InferResult>> r =
      call->value.Infer(&tessera::infer::ThreadLocalInferCache());
  if (!r.ok()) return Report(r.status());
  *out = new tess_infer_result{std::move(r).value()};
  return TESS_OK;
  TESS_CAPI_END
}

void tess_infer_result_destroy(tess_infer_result* result) { delete result; }

tess_status tess_infer_result_num_outputs(size_t* out, const tess_infer_result* result) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(result);
  *out = result->value->outputs.size();
  return TESS_OK;
}

tess_status tess_infer_result_output_shape(const int64_t** out_dims, size_t* out_ndim,
                                           const tess_infer_result* result, size_t output) {
  TESS_CAPI_REQUIRE(out_dims);
  TESS_CAPI_REQUIRE(out_ndim);
  TESS_CAPI_REQUIRE(result);
  TESS_CAPI_BEGIN
  const InferResult& r = *result->value;
  Status s = CheckIndex(__func__, "output", output, r.outputs.size());
  if (!s.ok()) return Report(s);
  return tessera::capi::LendShape(r.outputs[output].shape, out_dims, out_ndim);
  TESS_CAPI_END
}

tess_status tess_infer_result_output_dtype(tess_dtype* out, const tess_infer_result* result,
                                           size_t output) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(result);
  TESS_CAPI_BEGIN
  return GetIndexed(__func__, "output", out, result->value->outputs, output,
                    [](const auto& item) { return static_cast<tess_dtype>(item.dtype); });
  TESS_CAPI_END
}

tess_status tess_infer_result_output_placement(tess_placement** out,
                                               const tess_infer_result* result, size_t output) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(result);
  TESS_CAPI_BEGIN
  return GetIndexed(__func__, "output", out, result->value->outputs, output,
                    [](const auto& item) { return new tess_placement{item.placement}; });
  TESS_CAPI_END
}

tess_status tess_infer_result_output_nd_sbp(tess_nd_sbp** out, const tess_infer_result* result,
                                            size_t output) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(result);
  TESS_CAPI_BEGIN
  return GetIndexed(__func__, "output", out, result->value->outputs, output,
                    [](const auto& item) { return NewNdSbp(item.nd_sbp); });
  TESS_CAPI_END
}

tess_status tess_infer_result_num_inputs(size_t* out, const tess_infer_result* result) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(result);
  *out = result->value->input_nd_sbps.size();
  return TESS_OK;
}

tess_status tess_infer_result_input_nd_sbp(tess_nd_sbp** out, const tess_infer_result* result,
                                           size_t input) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(result);
  TESS_CAPI_BEGIN
  return GetIndexed(__func__, "input", out, result->value->input_nd_sbps, input,
                    [](const auto& item) { return NewNdSbp(item); });
  TESS_CAPI_END
}

tess_status tess_infer_result_needs_boxing(int32_t* out, const tess_infer_result* result,
                                           size_t input) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(result);
  TESS_CAPI_BEGIN
  return GetIndexed(__func__, "input", out, result->value->needs_boxing, input,
                    [](bool boxed) { return boxed ? 1 : 0; });
  TESS_CAPI_END
}

tess_status tess_infer_result_input_cost(double* out, const tess_infer_result* result,
                                         size_t input) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(result);
  TESS_CAPI_BEGIN
  return GetIndexed(__func__, "input", out, result->value->input_costs, input,
                    [](const auto& item) { return item; });
  TESS_CAPI_END
}

tess_status tess_infer_result_total_cost(double* out, const tess_infer_result* result) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(result);
  *out = result->value->total_cost;
  return TESS_OK;
}

tess_status tess_infer_result_signature_index(int32_t* out, const tess_infer_result* result) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(result);
  *out = result->value->signature_index;
  return TESS_OK;
}

tess_status tess_infer_result_num_candidates(int32_t* out, const tess_infer_result* result) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(result);
  *out = result->value->num_candidates;
  return TESS_OK;
}

tess_status tess_op_call_explain(tess_explanation** out, const tess_op_call* call) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(call);
  TESS_CAPI_BEGIN
  Result<tessera::infer::Explanation> e = call->value.Explain();
  if (!e.ok()) return Report(e.status());
  auto* handle = new tess_explanation{std::move(e).value(), "", ""};
  handle->text = handle->value.ToString();
  handle->json = tessera::infer::ExplanationToJson(handle->value);
  *out = handle;
  return TESS_OK;
  TESS_CAPI_END
}

void tess_explanation_destroy(tess_explanation* explanation) { delete explanation; }

const char* tess_explanation_text(const tess_explanation* explanation) {
  return explanation ? explanation->text.c_str() : "";
}

const char* tess_explanation_json(const tess_explanation* explanation) {
  return explanation ? explanation->json.c_str() : "";
}

const char* tess_explanation_failure(const tess_explanation* explanation) {
  return explanation ? explanation->value.failure.c_str() : "";
}

tess_status tess_infer_cache_get_stats(tess_infer_cache_stats* out) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_BEGIN
  const tessera::infer::InferCache::Stats stats = tessera::infer::ThreadLocalInferCache().stats();
  tess_infer_cache_stats full = TESS_INFER_CACHE_STATS_INIT;
  full.hits = stats.hits;
  full.misses = stats.misses;
  full.evictions = stats.evictions;
  full.size = stats.size;
  full.capacity = stats.capacity;
  return Report(tessera::capi::WriteStats(__func__, "out", "tess_infer_cache_stats", full,
                                          TESS_STRUCT_SIZE_UP_TO(tess_infer_cache_stats, capacity),
                                          out));
  TESS_CAPI_END
}

void tess_infer_cache_clear(void) {
  try {
    tessera::infer::ThreadLocalInferCache().Clear();
  } catch (...) {
    // Clear only frees memory; nothing to report.
  }
}

tess_status tess_infer_cache_set_capacity(size_t capacity) {
  TESS_CAPI_BEGIN
  if (capacity < 1) {
    return Report(InvalidArgument("tess_infer_cache_set_capacity: capacity is 0; expected >= 1"));
  }
  constexpr size_t kMax = tessera::infer::InferCache::kMaxCapacity;
  if (capacity > kMax) {
    return Report(InvalidArgument("tess_infer_cache_set_capacity: capacity is " +
                                  std::to_string(capacity) + "; the largest is " +
                                  std::to_string(kMax) + " (2^30)"));
  }
  tessera::infer::ThreadLocalInferCache().SetCapacity(capacity);
  return TESS_OK;
  TESS_CAPI_END
}

}  // extern "C"
