// Explain: the full record of one inference — every candidate with its declared
// index, boxing cost, matching-input count, OneFlow order value, and whether it was
// filtered (and why); the chosen signature; the boxing each input needs; and what
// OneFlow's 1-d order-value rule would have picked — plus a readable rendering.
#ifndef TESSERA_CORE_INFER_EXPLAIN_H_
#define TESSERA_CORE_INFER_EXPLAIN_H_

#include <string>
#include <vector>

#include "core/common/status.h"
#include "core/infer/tensor_meta.h"
#include "core/op/attr.h"
#include "core/op/op_def.h"
#include "core/op/signature.h"

namespace tessera {
namespace infer {

struct CandidateRecord {
  int index = 0;  // declared order
  op::NdSbpSignature signature;
  std::string text;  // "x:S(0), y:B -> out:S(0)"
  bool filtered = false;
  std::string filter_reason;  // set when filtered
  // Meaningful when not filtered.
  std::vector<double> input_costs;
  double cost = 0;
  int matching_inputs = 0;
  // OneFlow's CalcOrderValue4SbpSig: -10 per input whose nd-sbp already matches
  // (0 for every candidate when constraints are given). Lower sorts first there.
  int order_value = 0;
  // Position in Tessera's ranking among unfiltered candidates (0 = chosen); -1 when
  // filtered.
  int rank = -1;
};

struct InputBoxing {
  int input = 0;
  std::string name;
  NdSbp from;
  NdSbp to;
  double cost = 0;
};

struct Explanation {
  std::string op;
  std::string attrs;  // "{transpose_b=true}"
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  std::vector<TensorMeta> inputs;
  std::vector<SbpConstraint> constraints;
  // A 1-rank placement: no candidates, no boxing.
  bool trivial = false;
  std::vector<CandidateRecord> candidates;
  // Index into `candidates` of the chosen one; -1 when trivial or when none fits.
  int chosen = -1;
  // What OneFlow's 1-d rule (sort by order value, then its copy cost: 0 if equal,
  // INT64_MAX for a partial consumer, INT32_MAX for a broadcast producer, else T;
  // first declared on ties) would pick; -1 on N-d or trivial placements.
  int oneflow_choice = -1;
  std::vector<InputBoxing> boxing;  // inputs whose nd-sbp changes
  std::vector<TensorMeta> outputs;
  // Non-empty when no candidate survived; the same text InferSignature returns.
  std::string failure;

  // Multi-line human-readable rendering.
  std::string ToString() const;
};

// Records the inference InferSignature would run. Fails only where inference fails
// before ranking (bad inputs, attributes, shapes, constraints); "no signature fits"
// is returned as an Explanation with `failure` set.
Result<Explanation> Explain(const op::OpDef& def, const std::vector<TensorMeta>& inputs,
                            const op::AttrMap& attrs,
                            const std::vector<SbpConstraint>& constraints = {});

}  // namespace infer
}  // namespace tessera

#endif  // TESSERA_CORE_INFER_EXPLAIN_H_
