#include "core/infer/search.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/infer/cost_model.h"
#include "core/op/op_context.h"
#include "core/op/signature.h"

namespace tessera {
namespace infer {
namespace {

// Costs are sums of byte counts times rationals; treat relative differences below
// this as ties so the matching-count and declared-order tie-breaks decide.
constexpr double kRelTolerance = 1e-9;

// -1, 0, 1.
int CompareCost(double a, double b) {
  const double tol = kRelTolerance * std::max({1.0, std::fabs(a), std::fabs(b)});
  if (a < b - tol) return -1;
  if (a > b + tol) return 1;
  return 0;
}

// Beyond this many N-d candidates the product is refused rather than enumerated.
constexpr int64_t kMaxCandidates = int64_t{1} << 20;

// True when `nd` splits some axis of `shape` over more ranks than it has elements;
// nested splits of one axis divide successively (OneFlow's rule). Uneven is fine.
bool SplitTooSmall(const Shape& shape, const NdSbp& nd, const std::vector<int64_t>& hierarchy,
                   std::string* why) {
  int64_t remaining[Shape::kMaxDims];
  for (int t = 0; t < shape.ndim(); ++t) remaining[t] = shape.dim(t);
  for (int a = 0; a < nd.num_axes(); ++a) {
    if (!nd[a].is_split() || hierarchy[a] <= 1) continue;
    const int t = nd[a].axis;
    if (remaining[t] < hierarchy[a]) {
      if (why != nullptr) {
        *why = nd.ToString() + " splits axis " + std::to_string(t) + " of shape " +
               shape.ToString() + " (" + std::to_string(remaining[t]) + " element" +
               (remaining[t] == 1 ? "" : "s") +
               (remaining[t] != shape.dim(t) ? " after earlier splits" : "") + ") over " +
               std::to_string(hierarchy[a]) + " ranks on placement axis " + std::to_string(a);
      }
      return true;
    }
    remaining[t] /= hierarchy[a];
  }
  return false;
}

// Equal on every hierarchy axis of more than one rank: on a size-1 axis every SBP
// denotes the same local tensor.
bool SameLayout(const NdSbp& a, const NdSbp& b, const std::vector<int64_t>& hierarchy) {
  for (int i = 0; i < a.num_axes(); ++i) {
    if (hierarchy[i] > 1 && a[i] != b[i]) return false;
  }
  return true;
}

NdSbp Compose(const std::vector<const std::vector<op::SbpSignature>*>& lists, const int* idx,
              bool output, int slot) {
  NdSbp nd;
  for (size_t a = 0; a < lists.size(); ++a) {
    const op::SbpSignature& s = (*lists[a])[idx[a]];
    nd.Append(output ? s.outputs[slot] : s.inputs[slot]);
  }
  return nd;
}

std::string FailureMessage(const Explanation& e) {
  std::string s = e.op + ": no SBP signature fits the inputs ";
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    if (i) s += ", ";
    s += e.input_names[i] + ": " + e.inputs[i].nd_sbp.ToString() + " " +
         e.inputs[i].shape.ToString();
  }
  s += " on " + e.inputs[0].placement.ToString();
  if (!e.constraints.empty()) {
    s += " with constraints ";
    for (size_t i = 0; i < e.constraints.size(); ++i) {
      const SbpConstraint& c = e.constraints[i];
      if (i) s += ", ";
      s += (c.is_output ? e.output_names[c.slot] : e.input_names[c.slot]) + " = " +
           c.nd_sbp.ToString();
    }
  }
  s += "; candidates:";
  for (const CandidateRecord& c : e.candidates) {
    s += "\n  #" + std::to_string(c.index) + " " + c.text + ": " + c.filter_reason;
  }
  return s;
}

// OneFlow's 1-d choice among the unfiltered candidates (see Explanation).
int OneFlowChoice(const Explanation& e) {
  const double kInt64Max = static_cast<double>(std::numeric_limits<int64_t>::max());
  const double kInt32Max = static_cast<double>(std::numeric_limits<int32_t>::max());
  int best = -1;
  int best_order = 0;
  double best_cost = 0;
  for (const CandidateRecord& c : e.candidates) {
    if (c.filtered) continue;
    double cost = 0;
    for (size_t i = 0; i < e.inputs.size(); ++i) {
      const NdSbp& want = c.signature.inputs[i];
      const NdSbp& have = e.inputs[i].nd_sbp;
      if (want == have) continue;
      if (want[0].is_partial()) {
        cost += kInt64Max;
      } else if (have[0].is_broadcast()) {
        cost += kInt32Max;
      } else {
        cost += e.inputs[i].bytes();
      }
    }
    if (best < 0 || c.order_value < best_order ||
        (c.order_value == best_order && cost < best_cost)) {
      best = c.index;
      best_order = c.order_value;
      best_cost = cost;
    }
  }
  return best;
}

}  // namespace

Status Search(const op::OpDef& def, const std::vector<TensorMeta>& inputs, const op::AttrMap& attrs,
              const std::vector<SbpConstraint>& constraints, InferResult* result,
              Explanation* trace) {
  std::vector<op::TensorDesc> descs;
  descs.reserve(inputs.size());
  for (const TensorMeta& m : inputs) descs.push_back({m.shape, m.dtype});
  TESS_ASSIGN_OR_RETURN(op::OpContext ctx, op::OpContext::Make(def, std::move(descs), attrs));
  if (inputs.empty()) {
    return InvalidArgument(def.name() +
                           ": inference needs at least one input to take the placement from");
  }
  const int n_in = ctx.num_inputs();
  const Placement& placement = inputs[0].placement;
  for (int i = 1; i < n_in; ++i) {
    if (inputs[i].placement != placement) {
      return InvalidArgument(def.name() + ": input \"" + ctx.InputName(i) + "\" is on placement " +
                             inputs[i].placement.ToString() + " but input \"" + ctx.InputName(0) +
                             "\" is on " + placement.ToString() +
                             "; inputs must share one placement (move one there with to_global)");
    }
  }
  for (int i = 0; i < n_in; ++i) {
    Status s = ValidateNdSbp(inputs[i].nd_sbp, placement, inputs[i].shape);
    if (!s.ok()) {
      return InvalidArgument(def.name() + ": input \"" + ctx.InputName(i) + "\": " + s.message());
    }
  }
  TESS_RETURN_IF_ERROR(def.shape_fn()(&ctx));
  const int n_out = ctx.num_outputs();

  // Constraints, indexed by slot.
  std::vector<const NdSbp*> in_con(static_cast<size_t>(n_in), nullptr);
  std::vector<const NdSbp*> out_con(static_cast<size_t>(n_out), nullptr);
  for (const SbpConstraint& c : constraints) {
    const int limit = c.is_output ? n_out : n_in;
    const char* side = c.is_output ? "output" : "input";
    if (c.slot < 0 || c.slot >= limit) {
      return InvalidArgument(def.name() + ": constraint names " + side + " slot " +
                             std::to_string(c.slot) + " but the op has " + std::to_string(limit) +
                             " " + side + "s");
    }
    const std::string name = c.is_output ? ctx.OutputName(c.slot) : ctx.InputName(c.slot);
    const Shape& shape = c.is_output ? ctx.output(c.slot).shape : ctx.input(c.slot).shape;
    Status s = ValidateNdSbp(c.nd_sbp, placement, shape);
    if (!s.ok()) {
      return InvalidArgument(def.name() + ": constraint on " + side + " \"" + name +
                             "\": " + s.message());
    }
    const NdSbp*& slot = c.is_output ? out_con[c.slot] : in_con[c.slot];
    if (slot != nullptr) {
      return InvalidArgument(def.name() + ": two constraints on " + side + " \"" + name + "\"");
    }
    slot = &c.nd_sbp;
  }

  if (trace != nullptr) {
    trace->op = def.name();
    trace->attrs = attrs.ToString();
    for (int i = 0; i < n_in; ++i) trace->input_names.push_back(ctx.InputName(i));
    for (int o = 0; o < n_out; ++o) trace->output_names.push_back(ctx.OutputName(o));
    trace->inputs = inputs;
    trace->constraints = constraints;
  }

  const std::vector<int64_t>& hierarchy = placement.hierarchy();
  const int k = placement.num_axes();
  result->input_nd_sbps.resize(static_cast<size_t>(n_in));
  result->needs_boxing.assign(static_cast<size_t>(n_in), false);
  result->input_costs.assign(static_cast<size_t>(n_in), 0.0);
  result->outputs.clear();
  result->outputs.reserve(static_cast<size_t>(n_out));

  if (placement.parallel_num() == 1) {
    // One rank: every SBP denotes the same local tensor, so nothing is boxed; a
    // constraint just relabels.
    NdSbp all_b;
    for (int a = 0; a < k; ++a) all_b.Append(Sbp::Broadcast());
    for (int i = 0; i < n_in; ++i) {
      result->input_nd_sbps[i] = in_con[i] ? *in_con[i] : inputs[i].nd_sbp;
    }
    for (int o = 0; o < n_out; ++o) {
      result->outputs.push_back(TensorMeta{ctx.output(o).shape, ctx.output(o).dtype, placement,
                                           out_con[o] ? *out_con[o] : all_b});
    }
    result->total_cost = 0;
    result->signature_index = -1;
    result->num_candidates = 0;
    if (trace != nullptr) {
      trace->trivial = true;
      trace->outputs = result->outputs;
    }
    return Status::Ok();
  }

  // One 1-d list per distinct axis size (the op may depend on it). A size-1 axis
  // gets only all-B: any SBP there is the same local tensor (OneFlow's dim-reduce
  // also turns it into B), and listing the others would only add equivalent ties.
  std::vector<int64_t> list_sizes;
  std::vector<std::vector<op::SbpSignature>> distinct;
  distinct.reserve(static_cast<size_t>(k));
  std::vector<const std::vector<op::SbpSignature>*> lists(static_cast<size_t>(k));
  for (int a = 0; a < k; ++a) {
    size_t d = 0;
    while (d < list_sizes.size() && list_sizes[d] != hierarchy[a]) ++d;
    if (d == list_sizes.size()) {
      if (hierarchy[a] == 1) {
        op::SbpSignature all_b;
        all_b.inputs.assign(static_cast<size_t>(n_in), Sbp::Broadcast());
        all_b.outputs.assign(static_cast<size_t>(n_out), Sbp::Broadcast());
        distinct.push_back({std::move(all_b)});
      } else {
        TESS_ASSIGN_OR_RETURN(std::vector<op::SbpSignature> sigs,
                              op::ListSignatures(&ctx, hierarchy[a], placement.parallel_num()));
        distinct.push_back(std::move(sigs));
      }
      list_sizes.push_back(hierarchy[a]);
    }
    lists[a] = &distinct[d];
  }
  int64_t count = 1;
  for (int a = 0; a < k; ++a) {
    count *= static_cast<int64_t>(lists[a]->size());
    if (count > kMaxCandidates) {
      return Status(StatusCode::kResourceExhausted,
                    def.name() + ": the N-d signature product on " + placement.ToString() +
                        " has more than " + std::to_string(kMaxCandidates) + " candidates");
    }
  }

  int idx[Placement::kMaxAxes] = {};
  std::vector<double> costs(static_cast<size_t>(n_in));
  int64_t best = -1;
  double best_cost = 0;
  int best_match = 0;
  std::string why;
  for (int64_t c = 0; c < count; ++c) {
    bool filtered = false;
    double total = 0;
    int match = 0;
    std::string* reason = trace != nullptr ? &why : nullptr;
    for (int i = 0; i < n_in && !filtered; ++i) {
      NdSbp want = Compose(lists, idx, false, i);
      if (SplitTooSmall(inputs[i].shape, want, hierarchy, reason)) {
        filtered = true;
        if (reason) why = "input \"" + ctx.InputName(i) + "\": " + why;
      } else if (in_con[i] != nullptr && *in_con[i] != want) {
        filtered = true;
        if (reason) {
          why = "input \"" + ctx.InputName(i) + "\" is constrained to " + in_con[i]->ToString();
        }
      } else {
        costs[i] = NdSbpCopyCost(inputs[i].nd_sbp, want, hierarchy, inputs[i].bytes());
        total += costs[i];
        if (SameLayout(want, inputs[i].nd_sbp, hierarchy)) ++match;
      }
    }
    for (int o = 0; o < n_out && !filtered; ++o) {
      if (out_con[o] != nullptr && *out_con[o] != Compose(lists, idx, true, o)) {
        filtered = true;
        if (reason) {
          why = "output \"" + ctx.OutputName(o) + "\" is constrained to " + out_con[o]->ToString();
        }
      }
    }
    if (trace != nullptr) {
      CandidateRecord rec;
      rec.index = static_cast<int>(c);
      for (int i = 0; i < n_in; ++i) rec.signature.inputs.push_back(Compose(lists, idx, false, i));
      for (int o = 0; o < n_out; ++o) rec.signature.outputs.push_back(Compose(lists, idx, true, o));
      rec.text = rec.signature.ToString(ctx);
      rec.filtered = filtered;
      if (filtered) {
        rec.filter_reason = why;
      } else {
        rec.input_costs = costs;
        rec.cost = total;
        rec.matching_inputs = match;
        rec.order_value = constraints.empty() ? -10 * match : 0;
      }
      trace->candidates.push_back(std::move(rec));
    }
    if (!filtered) {
      int cmp = best < 0 ? -1 : CompareCost(total, best_cost);
      if (cmp < 0 || (cmp == 0 && match > best_match)) {
        best = c;
        best_cost = total;
        best_match = match;
      }
    }
    for (int a = k - 1; a >= 0; --a) {
      if (++idx[a] < static_cast<int>(lists[a]->size())) break;
      idx[a] = 0;
    }
  }

  if (best < 0) {
    if (trace != nullptr) {
      trace->failure = FailureMessage(*trace);
      return Status::Ok();
    }
    Explanation e;
    InferResult scratch;
    TESS_RETURN_IF_ERROR(Search(def, inputs, attrs, constraints, &scratch, &e));
    return InvalidArgument(e.failure);
  }

  int64_t rest = best;
  for (int a = k - 1; a >= 0; --a) {
    idx[a] = static_cast<int>(rest % static_cast<int64_t>(lists[a]->size()));
    rest /= static_cast<int64_t>(lists[a]->size());
  }
  result->total_cost = 0;
  for (int i = 0; i < n_in; ++i) {
    NdSbp want = Compose(lists, idx, false, i);
    result->input_nd_sbps[i] = want;
    result->needs_boxing[i] = !SameLayout(want, inputs[i].nd_sbp, hierarchy);
    result->input_costs[i] = NdSbpCopyCost(inputs[i].nd_sbp, want, hierarchy, inputs[i].bytes());
    result->total_cost += result->input_costs[i];
  }
  for (int o = 0; o < n_out; ++o) {
    result->outputs.push_back(TensorMeta{ctx.output(o).shape, ctx.output(o).dtype, placement,
                                         Compose(lists, idx, true, o)});
  }
  result->signature_index = static_cast<int>(best);
  result->num_candidates = static_cast<int>(count);

  if (trace != nullptr) {
    trace->chosen = static_cast<int>(best);
    trace->outputs = result->outputs;
    for (int i = 0; i < n_in; ++i) {
      if (result->needs_boxing[i]) {
        trace->boxing.push_back({i, ctx.InputName(i), inputs[i].nd_sbp, result->input_nd_sbps[i],
                                 result->input_costs[i]});
      }
    }
    std::vector<CandidateRecord*> ranked;
    for (CandidateRecord& r : trace->candidates) {
      if (!r.filtered) ranked.push_back(&r);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const CandidateRecord* a, const CandidateRecord* b) {
                       int cmp = CompareCost(a->cost, b->cost);
                       if (cmp != 0) return cmp < 0;
                       return a->matching_inputs > b->matching_inputs;
                     });
    for (size_t r = 0; r < ranked.size(); ++r) ranked[r]->rank = static_cast<int>(r);
    if (k == 1) trace->oneflow_choice = OneFlowChoice(*trace);
  }
  return Status::Ok();
}

}  // namespace infer
}  // namespace tessera
