// What the tensor, DLPack and op functions of the C API share: checking their
// arguments, naming the failing function in messages, and wrapping core tensors in
// handles.
#ifndef TESSERA_CAPI_SRC_TENSOR_ARGS_H_
#define TESSERA_CAPI_SRC_TENSOR_ARGS_H_

#include <cstddef>
#include <cstdint>

#include "capi/src/handles.h"
#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/tensor/global_tensor.h"
#include "tessera/tessera.h"

namespace tessera::capi {

// Reports `status` (if not OK) with its message prefixed by "function: ".
tess_status ReportIn(const char* function, const Status& status);

// `dims` (ndim of them) as a Shape; `what` names the argument in messages.
Result<Shape> ShapeArg(const char* what, const int64_t* dims, size_t ndim);
// A dtype value of the C API; INVALID_ARGUMENT listing the known ones otherwise.
Result<DType> DTypeArg(tess_dtype dtype);

// A new handle sharing `tensor`. The one allocation the C API adds to an op.
inline tess_tensor* NewTensorHandle(tensor::Tensor tensor) {
  return new tess_tensor{std::move(tensor), {}, {}, nullptr};
}
// *out = a handle for `tensor`, or the error reported in `function`'s name.
tess_status EmitTensor(const char* function, tess_tensor** out, Result<tensor::Tensor> tensor);

// Lends `shape`'s dims (never NULL, also for 0 dims) and count: the borrowed shape
// getters' one way of answering, valid while the object holding `shape` lives.
inline tess_status LendShape(const Shape& shape, const int64_t** out_dims, size_t* out_ndim) {
  *out_dims = shape.data();
  *out_ndim = static_cast<size_t>(shape.ndim());
  return TESS_OK;
}

// FAILED_PRECONDITION unless this rank holds a piece of `tensor`.
Status RequireLocal(const tensor::GlobalTensor& tensor);

}  // namespace tessera::capi

#endif  // TESSERA_CAPI_SRC_TENSOR_ARGS_H_
