// Proves an op's declared SBP signatures numerically through the eager interpreter:
// every unfiltered candidate that inference lists for a call is pinned with
// constraints and run, and the gathered outputs are compared with the op's CPU kernel
// run on the whole logical tensors in one process. A wrong signature makes the
// gathered result differ.
//
// Partial inputs are built twice. FromLogical puts the value on one rank of each P axis
// (0 on the others) and copies it along P(max)/P(min) axes, which hides some wrong
// signatures (P * P -> P holds when all but one rank hold 0; P(max) * P(max) -> P(max)
// holds for copies); PartialPiece gives every rank a non-trivial share, which does not.
//
// Every function here is collective over the MPI world (SPMD): all ranks call it with
// the same arguments.
#ifndef TESSERA_TESTS_EAGER_SIGNATURE_CHECK_H_
#define TESSERA_TESTS_EAGER_SIGNATURE_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/status.h"
#include "core/op/attr.h"
#include "core/op/op_def.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"
#include "kernels/cpu/kernel_test_util.h"

namespace tessera {
namespace eager_test {

using kernels::cpu::HostTensor;

// Rank `rank`'s local piece of `logical` held as (placement, nd_sbp): its split
// ranges, and on each partial hierarchy axis a share that depends on the element's
// logical index and the rank's coordinate there. Shares of P (sum) add up to the value
// (rank 0 of the axis holds the remainder), shares of P(max) are at most the value and
// one rank per element holds it exactly, and P(min) mirrors that; nested partial axes
// share the previous axis's share. Shares are small multiples of 1/4 (integers for
// integer dtypes), so sums stay exact. NOT_FOUND when the placement lacks `rank`.
Result<HostTensor> PartialPiece(const HostTensor& logical, const Placement& placement,
                                const NdSbp& nd_sbp, int32_t rank);

// "" when `got` matches `want` (same shape and dtype; bit for bit when `exact`,
// otherwise within kernel_test_util's Tolerance relative to max(1, |want|); NaN matches
// NaN), else the first mismatch: "element 4 [1,0]: got 2.5, want 3".
std::string Mismatch(const HostTensor& got, const HostTensor& want, bool exact);

// One call to check: the op, its whole-tensor inputs and attributes, and the outputs
// of its kernel on those inputs (the oracle).
struct OpCall {
  const op::OpDef* def = nullptr;
  std::string label;
  std::vector<HostTensor> inputs;
  op::AttrMap attrs;
  std::vector<HostTensor> want;
  bool exact = true;
};

struct SignatureReport {
  int candidates = 0;    // listed by Explain (0 on a 1-rank placement)
  int filtered = 0;      // dropped by inference (a split input axis smaller than its ranks)
  int checked = 0;       // unfiltered candidates run and compared
  int partial_runs = 0;  // of those, candidates with partial inputs also run with shares
  // One line per failure: "<op> <label> on <placement>: <signature> [<fill>]: <what>".
  std::vector<std::string> failures;
};

// Checks every unfiltered candidate of `call` on `placement` (inputs all-B when
// listing; each candidate then gets its own input nd-sbps). On a 1-rank placement
// the call runs once, unconstrained, and counts as one check.
SignatureReport CheckSignatures(const OpCall& call, const Placement& placement);

}  // namespace eager_test
}  // namespace tessera

#endif  // TESSERA_TESTS_EAGER_SIGNATURE_CHECK_H_
