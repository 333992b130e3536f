#include "capi/src/comm_args.h"

#include <string>

#include "capi/src/tensor_args.h"

namespace tessera::capi {

static_assert(TESS_REDUCE_SUM == static_cast<int>(comm::ReduceOp::kSum) &&
                  TESS_REDUCE_MAX == static_cast<int>(comm::ReduceOp::kMax) &&
                  TESS_REDUCE_MIN == static_cast<int>(comm::ReduceOp::kMin),
              "tess_reduce_op values must match tessera::comm::ReduceOp");

Result<DType> MovableDTypeArg(tess_dtype dtype) {
  TESS_ASSIGN_OR_RETURN(DType type, DTypeArg(dtype));
  if (!IsSupported(type)) {
    return Unimplemented(
        std::string("dtype ") + DTypeName(type) +
        " cannot move between ranks yet (supported: f32, f64, f16, bf16, i32, i64, bool)");
  }
  return type;
}

Result<comm::ReduceOp> ReduceOpArg(tess_reduce_op op) {
  if (op < TESS_REDUCE_SUM || op > TESS_REDUCE_MIN) {
    return InvalidArgument("op " + std::to_string(op) +
                           " is not a known reduce op (sum 0, max 1, min 2)");
  }
  return static_cast<comm::ReduceOp>(op);
}

}  // namespace tessera::capi
