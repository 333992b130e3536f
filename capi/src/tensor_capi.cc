// tess_tensor_*: make global tensors, ask their metadata, get their data out and
// move them between layouts.
#include <mutex>
#include <string>

#include "capi/src/capi_error.h"
#include "capi/src/handles.h"
#include "capi/src/tensor_args.h"
#include "core/comm/call_check.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"
#include "tessera/tessera.h"

using tessera::DType;
using tessera::InvalidArgument;
using tessera::Result;
using tessera::Shape;
using tessera::Status;
using tessera::capi::DTypeArg;
using tessera::capi::EmitTensor;
using tessera::capi::ReportIn;
using tessera::capi::RequireLocal;
using tessera::capi::ShapeArg;
using tessera::tensor::Tensor;

namespace {

// The (shape, dtype) pair every creation function takes, checked.
struct ShapeAndDType {
  Shape shape;
  DType dtype;
};

Result<ShapeAndDType> ShapeAndDTypeArgs(const char* what, const int64_t* dims, size_t ndim,
                                        tess_dtype dtype) {
  TESS_ASSIGN_OR_RETURN(Shape shape, ShapeArg(what, dims, ndim));
  TESS_ASSIGN_OR_RETURN(DType type, DTypeArg(dtype));
  return ShapeAndDType{shape, type};
}

// The shape of the local getters: *out = get(tensor) on a rank that holds a piece.
template <typename Out, typename Get>
tess_status GetLocal(const char* function, Out* out, const tess_tensor* tensor, Get get) {
  if (out == nullptr) return tessera::capi::NullArgument(function, "out");
  if (tensor == nullptr) return tessera::capi::NullArgument(function, "tensor");
  TESS_CAPI_BEGIN
  Status s = RequireLocal(*tensor->value);
  if (!s.ok()) return ReportIn(function, s);
  Result<Out> value = get(tensor->value->local_shape());
  if (!value.ok()) return ReportIn(function, value.status());
  *out = *value;
  return TESS_OK;
  TESS_CAPI_END
}

// INVALID_ARGUMENT unless `bytes` holds `elements` elements of `dtype`.
Status CheckBytes(const char* buffer, size_t bytes, int64_t elements, DType dtype) {
  const size_t need = static_cast<size_t>(elements) * tessera::DTypeSize(dtype);
  if (bytes >= need) return Status::Ok();
  return InvalidArgument(std::string(buffer) + " has " + std::to_string(bytes) + " bytes but " +
                         std::to_string(elements) + " " + tessera::DTypeName(dtype) +
                         " elements need " + std::to_string(need));
}

// The shape of tess_tensor_from_host, _full, _rand and _randn: the argument checks,
// then make(shape, dtype) reported in `function`'s name.
template <typename Make>
tess_status Create(const char* function, tess_tensor** out, const int64_t* shape, size_t ndim,
                   tess_dtype dtype, const tess_placement* placement, const tess_nd_sbp* nd_sbp,
                   Make make) {
  if (out == nullptr) return tessera::capi::NullArgument(function, "out");
  if (ndim > 0 && shape == nullptr) return tessera::capi::NullArgument(function, "shape");
  if (placement == nullptr) return tessera::capi::NullArgument(function, "placement");
  if (nd_sbp == nullptr) return tessera::capi::NullArgument(function, "nd_sbp");
  TESS_CAPI_BEGIN
  Result<ShapeAndDType> args = ShapeAndDTypeArgs("shape", shape, ndim, dtype);
  if (!args.ok()) return ReportIn(function, args.status());
  return EmitTensor(function, out, make(args->shape, args->dtype));
  TESS_CAPI_END
}

}  // namespace

extern "C" {

tess_status tess_tensor_from_host(tess_tensor** out, const void* data, const int64_t* shape,
                                  size_t ndim, tess_dtype dtype, const tess_placement* placement,
                                  const tess_nd_sbp* nd_sbp) {
  return Create(__func__, out, shape, ndim, dtype, placement, nd_sbp, [&](const Shape& s, DType t) {
    return tessera::tensor::FromLogical(data, s, t, placement->value, nd_sbp->value);
  });
}

tess_status tess_tensor_from_local(tess_tensor** out, const void* local, const int64_t* local_shape,
                                   size_t ndim, tess_dtype dtype, const tess_placement* placement,
                                   const tess_nd_sbp* nd_sbp, const int64_t* logical_shape) {
  TESS_CAPI_REQUIRE(out);
  if (ndim > 0) TESS_CAPI_REQUIRE(local_shape);
  TESS_CAPI_REQUIRE(placement);
  TESS_CAPI_REQUIRE(nd_sbp);
  TESS_CAPI_BEGIN
  Result<ShapeAndDType> args = ShapeAndDTypeArgs("local_shape", local_shape, ndim, dtype);
  if (!args.ok()) return ReportIn(__func__, args.status());
  Shape logical;
  if (logical_shape != nullptr) {
    Result<Shape> s = ShapeArg("logical_shape", logical_shape, ndim);
    if (!s.ok()) return ReportIn(__func__, s.status());
    logical = *s;
  }
  return EmitTensor(
      __func__, out,
      tessera::tensor::FromLocal(local, args->shape, args->dtype, placement->value, nd_sbp->value,
                                 logical_shape != nullptr ? &logical : nullptr));
  TESS_CAPI_END
}

tess_status tess_tensor_full(tess_tensor** out, const int64_t* shape, size_t ndim, tess_dtype dtype,
                             double value, const tess_placement* placement,
                             const tess_nd_sbp* nd_sbp) {
  return Create(__func__, out, shape, ndim, dtype, placement, nd_sbp, [&](const Shape& s, DType t) {
    return tessera::tensor::Full(s, t, value, placement->value, nd_sbp->value);
  });
}

tess_status tess_tensor_arange(tess_tensor** out, double start, double stop, double step,
                               tess_dtype dtype, const tess_placement* placement,
                               const tess_nd_sbp* nd_sbp) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(placement);
  TESS_CAPI_REQUIRE(nd_sbp);
  TESS_CAPI_BEGIN
  Result<DType> type = DTypeArg(dtype);
  if (!type.ok()) return ReportIn(__func__, type.status());
  return EmitTensor(
      __func__, out,
      tessera::tensor::Arange(start, stop, step, *type, placement->value, nd_sbp->value));
  TESS_CAPI_END
}

tess_status tess_tensor_rand(tess_tensor** out, const int64_t* shape, size_t ndim, tess_dtype dtype,
                             uint64_t seed, const tess_placement* placement,
                             const tess_nd_sbp* nd_sbp) {
  return Create(__func__, out, shape, ndim, dtype, placement, nd_sbp, [&](const Shape& s, DType t) {
    return tessera::tensor::Rand(s, t, seed, placement->value, nd_sbp->value);
  });
}

tess_status tess_tensor_randn(tess_tensor** out, const int64_t* shape, size_t ndim,
                              tess_dtype dtype, uint64_t seed, const tess_placement* placement,
                              const tess_nd_sbp* nd_sbp) {
  return Create(__func__, out, shape, ndim, dtype, placement, nd_sbp, [&](const Shape& s, DType t) {
    return tessera::tensor::Randn(s, t, seed, placement->value, nd_sbp->value);
  });
}

void tess_tensor_destroy(tess_tensor* tensor) { delete tensor; }

tess_status tess_tensor_shape(const int64_t** out_dims, size_t* out_ndim,
                              const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(out_dims);
  TESS_CAPI_REQUIRE(out_ndim);
  TESS_CAPI_REQUIRE(tensor);
  return tessera::capi::LendShape(tensor->value->shape(), out_dims, out_ndim);
}

tess_status tess_tensor_local_shape(const int64_t** out_dims, size_t* out_ndim,
                                    const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(out_dims);
  TESS_CAPI_REQUIRE(out_ndim);
  TESS_CAPI_REQUIRE(tensor);
  TESS_CAPI_BEGIN
  Status s = RequireLocal(*tensor->value);
  if (!s.ok()) return ReportIn(__func__, s);
  return tessera::capi::LendShape(tensor->value->local_shape(), out_dims, out_ndim);
  TESS_CAPI_END
}

tess_status tess_tensor_num_elements(int64_t* out, const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(tensor);
  *out = tensor->value->shape().num_elements();
  return TESS_OK;
}

tess_status tess_tensor_dtype(tess_dtype* out, const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(tensor);
  *out = static_cast<tess_dtype>(tensor->value->dtype());
  return TESS_OK;
}

tess_status tess_tensor_placement(tess_placement** out, const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(tensor);
  TESS_CAPI_BEGIN
  *out = new tess_placement{tensor->value->placement()};
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_tensor_nd_sbp(tess_nd_sbp** out, const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(tensor);
  TESS_CAPI_BEGIN
  const tessera::NdSbp& nd = tensor->value->nd_sbp();
  *out = new tess_nd_sbp{nd, nd.ToString()};
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_tensor_has_local(int32_t* out, const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(tensor);
  *out = tensor->value->has_local() ? 1 : 0;
  return TESS_OK;
}

tess_status tess_tensor_local_num_elements(int64_t* out, const tess_tensor* tensor) {
  return GetLocal(__func__, out, tensor,
                  [](const Shape& local) -> Result<int64_t> { return local.num_elements(); });
}

tess_status tess_tensor_synchronize(const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(tensor);
  TESS_CAPI_BEGIN
  const tessera::Status status = tensor->value->Synchronize();
  if (!status.ok()) return ReportIn(__func__, status);
  return TESS_OK;
  TESS_CAPI_END
}

const char* tess_tensor_string(const tess_tensor* tensor) {
  if (tensor == nullptr) return "";
  try {
    std::call_once(tensor->text_once,
                   [tensor] { tensor->text = tensor->value->meta().ToString(); });
  } catch (...) {
    // Out of memory making the text: the flag stays unset, so a later call retries.
    return "";
  }
  return tensor->text.c_str();
}

tess_status tess_tensor_to_host(void* out, size_t out_bytes, const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(tensor);
  TESS_CAPI_BEGIN
  const Tensor& t = tensor->value;
  Status s = CheckBytes("out", out_bytes, t->shape().num_elements(), t->dtype());
  if (s.ok() && out == nullptr && t->shape().num_elements() > 0) {
    s = InvalidArgument("argument \"out\" is NULL but " + t->meta().ToString() + " has " +
                        std::to_string(t->shape().num_elements()) + " elements");
  }
  if (s.ok() && tessera::comm::CheckModeEnabled() && !t->is_placeholder()) {
    // ToHost boxes to B on the whole world.
    tessera::comm::CallFingerprint fp("boxing", "to_host");
    fp.AddLayout(t->shape(), t->dtype(), t->placement(), t->nd_sbp());
    s = tessera::comm::AgreeCallOnWorld(fp);
  }
  if (s.ok()) s = tessera::tensor::ToHost(t, out);
  return ReportIn(__func__, s);
  TESS_CAPI_END
}

tess_status tess_tensor_copy_local(void* out, size_t out_bytes, const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(tensor);
  TESS_CAPI_BEGIN
  const tessera::tensor::GlobalTensor& t = *tensor->value;
  Status s = RequireLocal(t);
  if (s.ok()) s = CheckBytes("out", out_bytes, t.local_shape().num_elements(), t.dtype());
  if (!s.ok()) return ReportIn(__func__, s);
  if (t.local_bytes() > 0) {
    TESS_CAPI_REQUIRE(out);
  }
  // From a cuda tensor's device memory this waits for the kernels that wrote it.
  return ReportIn(__func__, t.CopyLocalToHost(out));
  TESS_CAPI_END
}

tess_status tess_tensor_to_global(tess_tensor** out, const tess_tensor* tensor,
                                  const tess_placement* placement, const tess_nd_sbp* nd_sbp) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(tensor);
  TESS_CAPI_REQUIRE(placement);
  TESS_CAPI_REQUIRE(nd_sbp);
  TESS_CAPI_BEGIN
  const tessera::tensor::Tensor& x = tensor->value;
  if (tessera::comm::CheckModeEnabled() && !x->is_placeholder()) {
    Status agreed =
        tessera::comm::AgreeBoxingCall("to_global", x->shape(), x->dtype(), x->placement(),
                                       x->nd_sbp(), placement->value, nd_sbp->value);
    if (!agreed.ok()) return ReportIn(__func__, agreed);
  }
  if (tensor->autograd == nullptr) {
    return EmitTensor(__func__, out, tessera::tensor::ToGlobal(x, placement->value, nd_sbp->value));
  }
  // Gradients flow through a layout change (tessera/autograd.h).
  tessera::Result<tessera::autograd::Variable> moved = tessera::autograd::ToGlobal(
      tessera::autograd::Variable{x, tensor->autograd}, placement->value, nd_sbp->value);
  if (!moved.ok()) return ReportIn(__func__, moved.status());
  tess_tensor* made = tessera::capi::NewTensorHandle(std::move(moved->value));
  made->autograd = std::move(moved->meta);
  *out = made;
  return TESS_OK;
  TESS_CAPI_END
}

}  // extern "C"
