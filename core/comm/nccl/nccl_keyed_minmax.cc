// NcclCommunicator's exact float max / min (docs/numerics.md, "NCCL"). NCCL's float
// max / min are maxNum / minNum and drop a NaN unless every operand is NaN; its integer
// max / min are exact. So an f32 / f64 max or min reduces the operands'
// order-preserving keys (core/common/ordered_key.h) instead: `send`'s keys go to
// scratch, NCCL reduces them as int32 / int64, and FloatsIfKeyed maps the result back
// in place. ExactMax / ExactMin bit for bit, NaN and -0.0 < +0.0 included, in any
// combining order.
#include "core/comm/nccl/nccl_communicator.h"
#include "core/comm/nccl/ordered_keys.h"

namespace tessera::comm {

Result<const void*> NcclCommunicator::KeysIfNeeded(const void* send, int64_t count, DType dtype,
                                                   ReduceOp op, ncclDataType_t* type) {
  if (op == ReduceOp::kSum || (dtype != DType::kF32 && dtype != DType::kF64)) return send;
  TESS_RETURN_IF_ERROR(ReserveScratch(static_cast<size_t>(count) * DTypeSize(dtype)));
  TESS_RETURN_IF_ERROR(ToOrderedKeysAsync(send, scratch_, count, dtype,
                                          op == ReduceOp::kMax ? NanKey::kHighest : NanKey::kLowest,
                                          stream_));
  *type = dtype == DType::kF32 ? ncclInt32 : ncclInt64;
  return static_cast<const void*>(scratch_);
}

Status NcclCommunicator::FloatsIfKeyed(bool keyed, void* recv, int64_t count, DType dtype) {
  if (!keyed || count == 0) return Status::Ok();
  return FromOrderedKeysAsync(recv, count, dtype, stream_);
}

}  // namespace tessera::comm
