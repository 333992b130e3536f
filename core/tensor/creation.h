// Making global tensors. Every function is called by every rank of the world with the
// same arguments (SPMD), except the per-rank local data of FromLocal; ranks outside
// the placement get a metadata-only tensor.
//
// Partial nd-sbps. A value created "as P" must reduce to the logical value: on each
// P (sum) axis the coordinate-0 rank holds the value and the others 0; on P(max) and
// P(min) axes every rank holds the value (max and min are idempotent), so every local
// value stays a real number (partial_fill.h says why that matters).
//
// cuda placements: each rank builds its piece on the host exactly as for cpu and copies
// it to its CUDA device (cuda_device.h), waiting for the copy, so the caller may reuse
// its buffer at once. Without a CUDA build every rank fails with UNIMPLEMENTED.
#ifndef TESSERA_CORE_TENSOR_CREATION_H_
#define TESSERA_CORE_TENSOR_CREATION_H_

#include <cstdint>

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"
#include "core/tensor/global_tensor.h"

namespace tessera {
namespace tensor {

// `host` holds the whole logical tensor (row-major, shape.num_elements() elements of
// dtype) on every rank; each rank keeps its slice. `host` may be NULL only when the
// tensor is empty or the rank is outside the placement.
Result<Tensor> FromLogical(const void* host, const Shape& shape, DType dtype,
                           const Placement& placement, const NdSbp& nd_sbp);

// Each rank of the placement passes its local piece (`local` holds
// local_shape.num_elements() elements). The locals are shards (S), partial values (P)
// or copies (B: the copy at coordinate 0 of each broadcast axis wins, as in OneFlow).
// With `logical_shape` NULL, the logical shape is computed from every rank's local
// shape (a collective over the WORLD: every rank calls, outside ranks pass anything)
// and must be exactly the balanced split's; otherwise the given shape is checked
// against this rank's local shape without communication.
//
// Errors that depend on one rank's piece (a local shape that is not its part of the
// given logical shape, a NULL buffer) are agreed across the placement in every mode:
// all its ranks return the lowest failing rank's error (comm::AgreeLocalStatus). A
// caller that prepared the piece itself (a DLPack import) passes the outcome as
// `prepared`; the ranks that would communicate next (the world without a logical
// shape, else the placement) agree on it first. Check mode (comm/call_check.h) also
// agrees the call (dtype, placement, nd-sbp, logical shape) and, on each B axis, a hash
// of the local data: ranks that pass different data for a B tensor get
// FAILED_PRECONDITION.
Result<Tensor> FromLocal(const void* local, const Shape& local_shape, DType dtype,
                         const Placement& placement, const NdSbp& nd_sbp,
                         const Shape* logical_shape, const Status* prepared = nullptr);

// Every element `value` (converted to dtype; a value the dtype cannot hold exactly,
// such as 0.5 for i32 or NaN for an integer type, is INVALID_ARGUMENT).
Result<Tensor> Full(const Shape& shape, DType dtype, double value, const Placement& placement,
                    const NdSbp& nd_sbp);
Result<Tensor> Zeros(const Shape& shape, DType dtype, const Placement& placement,
                     const NdSbp& nd_sbp);
Result<Tensor> Ones(const Shape& shape, DType dtype, const Placement& placement,
                    const NdSbp& nd_sbp);

// The 1-d tensor start, start + step, ... (< stop for step > 0, > stop for step < 0).
// Integer dtypes need integral start and step.
Result<Tensor> Arange(double start, double stop, double step, DType dtype,
                      const Placement& placement, const NdSbp& nd_sbp);

// Uniform [0, 1) and standard normal values from a counter-based generator keyed by
// (seed, logical element index): the logical tensor depends only on (shape, dtype,
// seed), never on the placement, the nd-sbp or the world size. Floating dtypes only.
Result<Tensor> Rand(const Shape& shape, DType dtype, uint64_t seed, const Placement& placement,
                    const NdSbp& nd_sbp);
Result<Tensor> Randn(const Shape& shape, DType dtype, uint64_t seed, const Placement& placement,
                     const NdSbp& nd_sbp);

}  // namespace tensor
}  // namespace tessera

#endif  // TESSERA_CORE_TENSOR_CREATION_H_
