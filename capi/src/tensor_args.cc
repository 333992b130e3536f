#include "capi/src/tensor_args.h"

#include <string>
#include <utility>

#include "capi/src/capi_error.h"
#include "core/comm/mpi_world.h"

namespace tessera::capi {

tess_status ReportIn(const char* function, const Status& status) {
  if (status.ok()) return TESS_OK;
  return Report(Status(status.code(), std::string(function) + ": " + status.message()));
}

Result<Shape> ShapeArg(const char* what, const int64_t* dims, size_t ndim) {
  Result<Shape> shape = Shape::Make(dims, ndim);
  if (!shape.ok()) return InvalidArgument(std::string(what) + ": " + shape.status().message());
  return shape;
}

Result<DType> DTypeArg(tess_dtype dtype) {
  if (!IsValidDType(dtype)) {
    return InvalidArgument(
        "dtype " + std::to_string(dtype) +
        " is not a known dtype (f32 0, f64 1, i32 2, i64 3, f16 4, bf16 5, bool 6)");
  }
  return static_cast<DType>(dtype);
}

tess_status EmitTensor(const char* function, tess_tensor** out, Result<tensor::Tensor> tensor) {
  if (!tensor.ok()) return ReportIn(function, tensor.status());
  *out = NewTensorHandle(std::move(tensor).value());
  return TESS_OK;
}

Status RequireLocal(const tensor::GlobalTensor& tensor) {
  if (tensor.has_local()) return Status::Ok();
  if (tensor.is_placeholder()) {
    return FailedPrecondition(tensor.meta().ToString() +
                              " is a placeholder of a program being captured: it has no data "
                              "(compile the program and run the plan)");
  }
  Result<int32_t> rank = comm::WorldRank();
  return FailedPrecondition("rank " + (rank.ok() ? std::to_string(*rank) : std::string("?")) +
                            " holds no local piece of " + tensor.meta().ToString() +
                            ": the placement does not hold it");
}

}  // namespace tessera::capi
