// What the boxing and collective functions of the C API share: the checks of their
// dtype and reduce-op arguments.
#ifndef TESSERA_CAPI_SRC_COMM_ARGS_H_
#define TESSERA_CAPI_SRC_COMM_ARGS_H_

#include "core/comm/communicator.h"
#include "core/common/dtype.h"
#include "core/common/status.h"
#include "tessera/tessera.h"

namespace tessera::capi {

// A dtype that can move between ranks (f32, f64, i32, i64, bool): INVALID_ARGUMENT for an
// unknown value, UNIMPLEMENTED for f16/bf16.
Result<DType> MovableDTypeArg(tess_dtype dtype);

// A tess_reduce_op value; INVALID_ARGUMENT listing the known ones otherwise.
Result<comm::ReduceOp> ReduceOpArg(tess_reduce_op op);

}  // namespace tessera::capi

#endif  // TESSERA_CAPI_SRC_COMM_ARGS_H_
