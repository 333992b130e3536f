// One-axis boxing on one placement: converts a rank's local tensor from one SBP to
// another among S(i) (any tensor axis, uneven), B, P, P(max) and P(min), with at
// most one collective:
//
//   S(i) -> B          all-gather-v straight into the output when the split parts
//                      are contiguous, i.e. every dim before i is 1 (always for
//                      S(0)); otherwise an all-to-all of blocks: the own part to
//                      every other rank, each received straight into its strided
//                      slab of the output (no staging), the own part copied locally
//   P(x) -> B          all-reduce with x's op
//   P(x) -> S(j)       reduce-scatter-v with x's op (parts packed first unless
//                      contiguous)
//   S(i) -> S(j), i!=j all-to-all-v when both sides' blocks are contiguous, else an
//                      all-to-all of strided blocks read and written in place; the
//                      rank's own block is copied locally
//   B    -> S(j)       local slice, no communication
//   B    -> P          parallel index 0 keeps the value, the others write 0
//   B    -> P(max/min) every rank keeps the value (max and min are idempotent)
//   S(i) -> P(y)       y's identity everywhere, the own slice copied in
//   P(x) -> P, x!=P    reduce to index 0 with x's op, the others write 0
//   P(x) -> P(max/min) all-reduce with x's op: every rank keeps the value
//   same -> same       local copy
//
// Identities: 0 for P; -inf / lowest() for P(max); +inf / max() for P(min). Copies
// are preferred to identities wherever the value is at hand, so local values stay real
// numbers (the op signatures are stated for real values).
#ifndef TESSERA_CORE_BOXING_BOX_1D_H_
#define TESSERA_CORE_BOXING_BOX_1D_H_

#include "core/boxing/boxing_workspace.h"
#include "core/boxing/local_ops.h"
#include "core/comm/communicator.h"
#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera::boxing {

// `in_local` / `out_local` are this rank's local tensors (row-major, shapes given by
// PhysicalLayoutAt for `in` / `out`); either may be NULL when its local tensor is
// empty, and they must not overlap unless in == out. `placement` must have one
// hierarchy axis and `comm` must hold its ranks in placement order (communicator
// rank = parallel index), as MpiCommRegistry::ForPlacement / ForAxis give, and its
// backend must move strided blocks (Communicator::AllToAllBlocks; MPI does). Every
// rank of the placement must call Box1d with the same arguments except the buffers.
// `workspace` (optional) supplies reusable staging; without one, staging is
// allocated for the call. `ops` (optional) does the local copies and fills where the
// pieces live; without it they are host memory (HostLocalOps). Ops on other memory
// need a workspace whose staging is the same kind of memory (INVALID_ARGUMENT
// otherwise), and `comm` must be the communicator those ops are ordered with
// (BoxingBackend::OpsFor). The ops' work may still be queued on return: call
// ops->Finish() before reading out_local. Floating-point P -> B / S / P(y) results are sums in the
// backend's order, so they may differ from a serial sum in the last bits.
Status Box1d(const void* in_local, const Shape& logical_shape, DType dtype,
             const Placement& placement, Sbp in, Sbp out, void* out_local, comm::Communicator& comm,
             BoxingWorkspace* workspace = nullptr, const LocalOps* ops = nullptr);

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_BOX_1D_H_
