#include "core/infer/explain.h"

#include <algorithm>
#include <cstdio>

#include "core/infer/search.h"

namespace tessera {
namespace infer {
namespace {

std::string Bytes(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

Result<Explanation> Explain(const op::OpDef& def, const std::vector<TensorMeta>& inputs,
                            const op::AttrMap& attrs,
                            const std::vector<SbpConstraint>& constraints) {
  Explanation e;
  InferResult result;
  TESS_RETURN_IF_ERROR(Search(def, inputs, attrs, constraints, &result, &e));
  return e;
}

std::string Explanation::ToString() const {
  std::string s = op + " " + attrs + " on " +
                  (inputs.empty() ? std::string("?") : inputs[0].placement.ToString()) + "\n";
  s += "  inputs:\n";
  for (size_t i = 0; i < inputs.size(); ++i) {
    s += "    " + input_names[i] + ": " + inputs[i].nd_sbp.ToString() + " " +
         inputs[i].shape.ToString() + " " + DTypeName(inputs[i].dtype) + " (" +
         Bytes(inputs[i].bytes()) + " bytes)\n";
  }
  if (!constraints.empty()) {
    s += "  constraints:\n";
    for (const SbpConstraint& c : constraints) {
      s += "    " + (c.is_output ? output_names[c.slot] : input_names[c.slot]) + " = " +
           c.nd_sbp.ToString() + "\n";
    }
  }
  if (trivial) {
    s += "  one rank: SBP is symbolic, nothing is boxed\n";
  } else {
    s += "  candidates (cost = modelled bytes to box the inputs; ranked by cost, then matching "
         "inputs, then declared order; order = OneFlow's order value):\n";
    size_t width = 0;
    for (const CandidateRecord& c : candidates) width = std::max(width, c.text.size());
    for (const CandidateRecord& c : candidates) {
      std::string line = "    " + Pad("#" + std::to_string(c.index), 5) + Pad(c.text, width + 2);
      if (c.filtered) {
        line += "filtered: " + c.filter_reason;
      } else {
        line += "cost " + Pad(Bytes(c.cost), 10) + " match " + std::to_string(c.matching_inputs) +
                "  order " + Pad(std::to_string(c.order_value), 5) + " rank " +
                std::to_string(c.rank);
        if (c.index == chosen) line += "  <- chosen";
        if (c.index == oneflow_choice && oneflow_choice != chosen) line += "  <- OneFlow's pick";
      }
      s += line + "\n";
    }
  }
  if (!failure.empty()) return s + "  failure: " + failure + "\n";
  if (chosen >= 0)
    s += "  chosen: #" + std::to_string(chosen) + " " + candidates[chosen].text + "\n";
  if (oneflow_choice >= 0) {
    s += "  OneFlow's 1-d rule: #" + std::to_string(oneflow_choice) +
         (oneflow_choice == chosen ? " (same)" : " " + candidates[oneflow_choice].text) + "\n";
  }
  if (boxing.empty()) {
    s += "  boxing: none\n";
  } else {
    s += "  boxing:\n";
    for (const InputBoxing& b : boxing) {
      s += "    " + b.name + ": " + b.from.ToString() + " -> " + b.to.ToString() + " (cost " +
           Bytes(b.cost) + ")\n";
    }
  }
  s += "  outputs:\n";
  for (size_t o = 0; o < outputs.size(); ++o) {
    s += "    " + output_names[o] + ": " + outputs[o].nd_sbp.ToString() + " " +
         outputs[o].shape.ToString() + " " + DTypeName(outputs[o].dtype) + "\n";
  }
  return s;
}

}  // namespace infer
}  // namespace tessera
