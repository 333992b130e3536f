// MPI reduction ops for P(max) / P(min) on floats that propagate NaN and order -0.0
// below +0.0 (core/common/exact_minmax.h). MPI's built-in MPI_MAX / MPI_MIN do not:
// Open MPI's float max is `a > b ? a : b`-style (and its AVX component uses
// vmaxps), so a NaN survives or vanishes depending on which operand it is, i.e. on
// the algorithm, the rank count and the rank that holds it. Integer types keep the
// built-in ops (no NaN, no signed zero: they are already exact).
//
// f16 and bf16 travel as MPI_UINT16_T (MPI has no 2-byte float) and reduce with
// user-defined ops for sum, max and min that convert to float, combine, and round the
// result to nearest even: each combining step rounds once, as a 2-byte collective in
// NCCL does.
#ifndef TESSERA_CORE_COMM_MPI_EXACT_OPS_H_
#define TESSERA_CORE_COMM_MPI_EXACT_OPS_H_

#include <mpi.h>

#include "core/comm/communicator.h"
#include "core/common/dtype.h"

namespace tessera::comm {

// The MPI_Op that reduces `dtype` with `op` as Tessera defines it: MPI_SUM for sums,
// MPI_MAX / MPI_MIN for integers, a user-defined commutative op (created on first use,
// after MPI_Init; thread-safe) for f32 / f64 max and min and for every f16 / bf16
// reduction. MPI_OP_NULL if MPI cannot create the op or for values outside the enums.
MPI_Op ToMpiOp(ReduceOp op, DType dtype);

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_MPI_EXACT_OPS_H_
