// The explain record as JSON, for tools and bindings that want the structure rather
// than the text (`tessera explain --json`, tess_explanation_json).
//
// One object:
//   op, attrs (the text form, "{transpose_b=true}"), placement, trivial,
//   inputs:      [{name, shape, dtype, nd_sbp, bytes}],
//   constraints: [{side: "input"|"output", slot, name, nd_sbp}],
//   candidates:  [{index, text, inputs: [nd_sbp], outputs: [nd_sbp], filtered,
//                  filter_reason (null unless filtered), input_costs, cost,
//                  matching_inputs, order_value, rank}],
//   chosen, oneflow_choice (candidate index, or -1),
//   boxing:      [{input, name, from, to, cost}],
//   outputs:     [{name, shape, dtype, nd_sbp}],
//   failure (null unless no candidate fits).
// nd-sbps are their text form ("(S(0), B)"); non-finite numbers are null.
#ifndef TESSERA_CORE_INFER_EXPLAIN_JSON_H_
#define TESSERA_CORE_INFER_EXPLAIN_JSON_H_

#include <string>
#include <string_view>

#include "core/infer/explain.h"

namespace tessera {
namespace infer {

// Pretty-printed with two-space indents, ending in a newline.
std::string ExplanationToJson(const Explanation& e);

// `text` as a JSON string literal, quotes included: escapes '"', '\\' and control
// characters; other bytes pass through (Tessera's text is ASCII).
std::string JsonQuote(std::string_view text);

}  // namespace infer
}  // namespace tessera

#endif  // TESSERA_CORE_INFER_EXPLAIN_JSON_H_
