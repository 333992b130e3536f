// SBP signature inference for one op call on global tensors.
//
// Given the inputs' metas (shape, dtype, placement, nd-sbp), the op's attributes and
// optional user constraints, inference
//   1. checks the inputs share one placement (boxing to a common placement is the
//      caller's move, via to_global) and that each nd-sbp fits its tensor;
//   2. runs the op's shape function;
//   3. on a 1-rank placement stops: SBP is symbolic there, nothing is boxed, inputs
//      keep their nd-sbp and outputs are B (constraints still apply);
//   4. otherwise lists candidates: the op's 1-d signature list (all-B appended) on a
//      1-d placement, the Cartesian product of the per-axis lists on an N-d one
//      (axis 0 varies slowest: that is the declared order); a hierarchy axis of size
//      1 contributes only all-B;
//   5. drops candidates that split an input axis with fewer elements than the ranks
//      splitting it (nested N-d splits divide successively; uneven is fine), and
//      candidates that contradict a constraint;
//   6. ranks the rest by total input boxing cost (cost_model.h), then by the number of
//      inputs that already match, then by declared order, and takes the first.
//
// OneFlow's 1-d rule instead sorts by an order value (-10 per matching input) and
// charges INT32_MAX for a broadcast producer, so `S(0) + B` picks B and gathers x,
// where S(0) only slices y locally; Tessera's cost-first rule picks S(0).
#ifndef TESSERA_CORE_INFER_INFER_H_
#define TESSERA_CORE_INFER_INFER_H_

#include <vector>

#include "core/common/status.h"
#include "core/infer/tensor_meta.h"
#include "core/op/attr.h"
#include "core/op/op_def.h"
#include "core/sbp/sbp.h"

namespace tessera {
namespace infer {

struct InferResult {
  // Output metas: inferred shape and dtype, the inputs' placement, the chosen nd-sbp.
  std::vector<TensorMeta> outputs;
  // The nd-sbp each input must be boxed into (equal to its own when no boxing).
  std::vector<NdSbp> input_nd_sbps;
  // Per input: whether data must move (its nd-sbp changes on some hierarchy axis of
  // more than one rank; a change on a size-1 axis is a relabel), and the modelled
  // cost of that boxing.
  std::vector<bool> needs_boxing;
  std::vector<double> input_costs;
  double total_cost = 0;
  // Position of the chosen candidate in declared order; -1 on a 1-rank placement.
  int signature_index = -1;
  int num_candidates = 0;
};

// Uncached inference. Errors: INVALID_ARGUMENT for bad inputs, attributes, shapes or
// constraints, and when no signature fits (the message lists the input nd-sbps and
// every candidate with the reason it was dropped).
Result<InferResult> InferSignature(const op::OpDef& def, const std::vector<TensorMeta>& inputs,
                                   const op::AttrMap& attrs,
                                   const std::vector<SbpConstraint>& constraints = {});

}  // namespace infer
}  // namespace tessera

#endif  // TESSERA_CORE_INFER_INFER_H_
