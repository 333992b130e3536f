// The identity element of a reduction, written over a buffer: what a rank holds
// for a P / P(max) / P(min) value it does not own (-0.0 or integer 0; lowest/-inf;
// max/+inf), so reducing over the ranks yields the owner's value bit for bit.
#ifndef TESSERA_CORE_BOXING_REDUCTION_IDENTITY_H_
#define TESSERA_CORE_BOXING_REDUCTION_IDENTITY_H_

#include <cstdint>

#include "core/comm/communicator.h"
#include "core/common/dtype.h"

namespace tessera::boxing {

// Floats use -0.0 for sums (the IEEE additive identity: +0.0 would turn an owned -0.0
// into +0.0) and +-infinity for max/min (so an infinite logical value survives);
// integers use numeric_limits lowest()/max(). Precondition: IsSupported(dtype).
void FillReductionIdentity(void* buffer, int64_t count, DType dtype, comm::ReduceOp op);

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_REDUCTION_IDENTITY_H_
