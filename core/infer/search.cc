#include "core/infer/search.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/infer/cost_model.h"
#include "core/op/op_context.h"
#include "core/op/signature.h"

// Search runs the steps infer.h lists, one function each, in this order:
//   CheckCall            1-2. inputs share a placement, nd-sbps fit, shapes inferred
//   IndexConstraints          constraints checked and looked up by slot
//   OneRankResult        3.   the 1-rank shortcut
//   EnumerateCandidates  4.   the per-axis 1-d lists whose product is the candidates
//   RuleOut*             5.   split-too-small and constraint filters
//   BoxingCost           6.   each input's boxing cost under a candidate
//   CheckAndCost         5-6. both, for one candidate
//   Beats / PickCheapest 6.   the tie-break and the walk over every candidate
//   NoSignatureFits           the error when every candidate is filtered
//   FillResult                the winner as an InferResult
//   Record*                   the explain record (only when a trace is asked for)
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

// Equal on every hierarchy axis of more than one rank (size-1 axes: one local piece).
bool SameLayout(const NdSbp& a, const NdSbp& b, const std::vector<int64_t>& hierarchy) {
  for (int i = 0; i < a.num_axes(); ++i) {
    if (hierarchy[i] > 1 && a[i] != b[i]) return false;
  }
  return true;
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

// ---- Steps 1-2: check the call and infer its output shapes.

// Later steps assume one placement, fitting nd-sbps and known output shapes; checking
// them first names the bad input instead of a "no signature fits" listing candidates.
Result<op::OpContext> CheckCall(const op::OpDef& def, const std::vector<TensorMeta>& inputs,
                                const op::AttrMap& attrs) {
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
  // Shape functions build outputs dim by dim (broadcasting, matmul, concat); inputs
  // whose counts fit can still give an output whose count or byte size does not.
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const op::TensorDesc& out = ctx.output(i);
    Result<Shape> checked = Shape::Make(out.shape.data(), static_cast<size_t>(out.shape.ndim()));
    Status s = checked.ok() ? out.shape.CheckByteSize(DTypeSize(out.dtype), DTypeName(out.dtype))
                            : checked.status();
    if (!s.ok()) {
      return InvalidArgument(def.name() + ": output \"" + ctx.OutputName(i) + "\": " + s.message());
    }
  }
  return ctx;
}

// The caller's constraints by slot; null where a slot is free.
struct SlotConstraints {
  std::vector<const NdSbp*> in;
  std::vector<const NdSbp*> out;
  // The constraints' nd-sbps with S(-k) resolved against the slot's rank; `in` and
  // `out` point here (reserved up front, so the pointers stay valid).
  std::vector<NdSbp> resolved;
};

// Constraints looked up by slot once here. One no candidate could meet (bad slot, an
// nd-sbp that does not fit, two on one slot) fails with its own message.
Status IndexConstraints(const op::OpDef& def, const op::OpContext& ctx, const Placement& placement,
                        const std::vector<SbpConstraint>& constraints, SlotConstraints* con) {
  const int n_in = ctx.num_inputs();
  const int n_out = ctx.num_outputs();
  con->in.assign(static_cast<size_t>(n_in), nullptr);
  con->out.assign(static_cast<size_t>(n_out), nullptr);
  con->resolved.clear();
  con->resolved.reserve(constraints.size());
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
    Result<NdSbp> resolved = ResolveNdSbp(c.nd_sbp, shape);
    Status s = resolved.ok() ? ValidateNdSbp(*resolved, placement, shape) : resolved.status();
    if (!s.ok()) {
      return InvalidArgument(def.name() + ": constraint on " + side + " \"" + name +
                             "\": " + s.message());
    }
    const NdSbp*& slot = c.is_output ? con->out[c.slot] : con->in[c.slot];
    if (slot != nullptr) {
      return InvalidArgument(def.name() + ": two constraints on " + side + " \"" + name + "\"");
    }
    con->resolved.push_back(*resolved);
    slot = &con->resolved.back();
  }
  return Status::Ok();
}

// A checked call: what every step after the checks reads.
struct Call {
  const std::vector<TensorMeta>& inputs;
  const op::OpContext& ctx;
  const Placement& placement;
  const std::vector<int64_t>& hierarchy;
  const SlotConstraints& con;
  bool constrained;  // the caller gave constraints (OneFlow's order value ignores matches then)
  int n_in;
  int n_out;
};

// The explain record's description of the call, written before any step can fail
// with "no signature fits", so that failure message can name inputs and outputs.
void RecordCall(const op::OpDef& def, const op::AttrMap& attrs, const Call& call,
                const std::vector<SbpConstraint>& constraints, Explanation* trace) {
  trace->op = def.name();
  trace->attrs = attrs.ToString();
  for (int i = 0; i < call.n_in; ++i) trace->input_names.push_back(call.ctx.InputName(i));
  for (int o = 0; o < call.n_out; ++o) trace->output_names.push_back(call.ctx.OutputName(o));
  trace->inputs = call.inputs;
  trace->constraints = constraints;
}

// Sizes the result once, so OneRankResult and FillResult assign in place.
void PrepareResult(const Call& call, InferResult* result) {
  result->input_nd_sbps.resize(static_cast<size_t>(call.n_in));
  result->needs_boxing.assign(static_cast<size_t>(call.n_in), false);
  result->input_costs.assign(static_cast<size_t>(call.n_in), 0.0);
  result->outputs.clear();
  result->outputs.reserve(static_cast<size_t>(call.n_out));
}

// ---- Step 3: the 1-rank shortcut.

// One rank: every SBP denotes the same local tensor, so nothing is boxed and there is
// nothing to search; a constraint just relabels.
void OneRankResult(const Call& call, InferResult* result, Explanation* trace) {
  NdSbp all_b;
  for (int a = 0; a < call.placement.num_axes(); ++a) all_b.Append(Sbp::Broadcast());
  for (int i = 0; i < call.n_in; ++i) {
    result->input_nd_sbps[i] = call.con.in[i] ? *call.con.in[i] : call.inputs[i].nd_sbp;
  }
  for (int o = 0; o < call.n_out; ++o) {
    result->outputs.push_back(TensorMeta{call.ctx.output(o).shape, call.ctx.output(o).dtype,
                                         call.placement,
                                         call.con.out[o] ? *call.con.out[o] : all_b});
  }
  result->total_cost = 0;
  result->signature_index = -1;
  result->num_candidates = 0;
  if (trace != nullptr) {
    trace->trivial = true;
    trace->outputs = result->outputs;
  }
}

// ---- Step 4: enumerate candidate signatures.

// The N-d candidates, kept as a product rather than a list: one 1-d signature list per
// placement axis. Candidate c is the mixed-radix number c over the lists' sizes (axis 0
// most significant), which is the declared order explain numbers them by. Holds
// pointers into itself, so it is filled in place and never copied.
struct CandidateSpace {
  CandidateSpace() = default;
  CandidateSpace(const CandidateSpace&) = delete;
  CandidateSpace& operator=(const CandidateSpace&) = delete;

  std::vector<std::vector<op::SbpSignature>> distinct;      // one list per distinct axis size
  std::vector<const std::vector<op::SbpSignature>*> lists;  // per placement axis, into distinct
  int64_t count = 1;
};

// One 1-d list per distinct axis size (the op may depend on it). A size-1 axis gets
// only all-B: any SBP there is the same local tensor (OneFlow's dim-reduce also turns
// it into B), and listing the others would only add equivalent ties. A product too
// large to walk is refused here, before any work on it.
Status EnumerateCandidates(const op::OpDef& def, op::OpContext* ctx, const Placement& placement,
                           CandidateSpace* space) {
  const std::vector<int64_t>& hierarchy = placement.hierarchy();
  const int k = placement.num_axes();
  std::vector<int64_t> list_sizes;
  space->distinct.reserve(static_cast<size_t>(k));  // keeps `lists` valid while appending
  space->lists.assign(static_cast<size_t>(k), nullptr);
  for (int a = 0; a < k; ++a) {
    size_t d = 0;
    while (d < list_sizes.size() && list_sizes[d] != hierarchy[a]) ++d;
    if (d == list_sizes.size()) {
      if (hierarchy[a] == 1) {
        op::SbpSignature all_b;
        all_b.inputs.assign(static_cast<size_t>(ctx->num_inputs()), Sbp::Broadcast());
        all_b.outputs.assign(static_cast<size_t>(ctx->num_outputs()), Sbp::Broadcast());
        space->distinct.push_back({std::move(all_b)});
      } else {
        TESS_ASSIGN_OR_RETURN(std::vector<op::SbpSignature> sigs,
                              op::ListSignatures(ctx, hierarchy[a], placement.parallel_num()));
        space->distinct.push_back(std::move(sigs));
      }
      list_sizes.push_back(hierarchy[a]);
    }
    space->lists[a] = &space->distinct[d];
  }
  space->count = 1;
  for (int a = 0; a < k; ++a) {
    space->count *= static_cast<int64_t>(space->lists[a]->size());
    if (space->count > kMaxCandidates) {
      return Status(StatusCode::kResourceExhausted,
                    def.name() + ": the N-d signature product on " + placement.ToString() +
                        " has more than " + std::to_string(kMaxCandidates) + " candidates");
    }
  }
  return Status::Ok();
}

// A candidate's position in the product: one index per placement axis into that
// axis's list. Candidates are walked and rebuilt from it, never stored, so a large
// product costs no memory beyond the lists.
struct Cursor {
  int idx[Placement::kMaxAxes] = {};
};

// Moves to the next candidate in declared order (the last axis varies fastest).
void Advance(const CandidateSpace& space, Cursor* cur) {
  for (int a = static_cast<int>(space.lists.size()) - 1; a >= 0; --a) {
    if (++cur->idx[a] < static_cast<int>(space.lists[a]->size())) break;
    cur->idx[a] = 0;
  }
}

// The cursor of candidate `c`: Advance's inverse, to rebuild the winner after the walk.
Cursor Seek(const CandidateSpace& space, int64_t c) {
  Cursor cur;
  for (int a = static_cast<int>(space.lists.size()) - 1; a >= 0; --a) {
    const int64_t n = static_cast<int64_t>(space.lists[a]->size());
    cur.idx[a] = static_cast<int>(c % n);
    c /= n;
  }
  return cur;
}

// The nd-sbp the candidate at `cur` gives input (or output) `slot`: its 1-d SBP on
// each placement axis.
NdSbp Compose(const CandidateSpace& space, const Cursor& cur, bool output, int slot) {
  NdSbp nd;
  for (size_t a = 0; a < space.lists.size(); ++a) {
    const op::SbpSignature& s = (*space.lists[a])[cur.idx[a]];
    nd.Append(output ? s.outputs[slot] : s.inputs[slot]);
  }
  return nd;
}

// ---- Step 5: check constraints.

// Whether giving input `i` the nd-sbp `want` rules the candidate out: it would split
// an axis over more ranks than elements (some rank would hold an empty piece), or the caller
// constrained the input to something else. `why` (may be null) gets the reason explain shows.
bool RuleOutInput(const Call& call, int i, const NdSbp& want, std::string* why) {
  if (SplitTooSmall(call.inputs[i].shape, want, call.hierarchy, why)) {
    if (why) *why = "input \"" + call.ctx.InputName(i) + "\": " + *why;
    return true;
  }
  // Differing only on size-1 hierarchy axes (where candidates are B) is the same layout.
  if (call.con.in[i] != nullptr && !SameLayout(*call.con.in[i], want, call.hierarchy)) {
    if (why) {
      *why =
          "input \"" + call.ctx.InputName(i) + "\" is constrained to " + call.con.in[i]->ToString();
    }
    return true;
  }
  return false;
}

// Whether an output constraint rules out the candidate at `cur`. Outputs are checked
// after inputs, so a candidate that fails both reports its input reason.
bool RuleOutOutputs(const Call& call, const CandidateSpace& space, const Cursor& cur,
                    std::string* why) {
  for (int o = 0; o < call.n_out; ++o) {
    if (call.con.out[o] != nullptr &&
        !SameLayout(*call.con.out[o], Compose(space, cur, true, o), call.hierarchy)) {
      if (why) {
        *why = "output \"" + call.ctx.OutputName(o) + "\" is constrained to " +
               call.con.out[o]->ToString();
      }
      return true;
    }
  }
  return false;
}

// ---- Step 6: cost each candidate's boxing and pick the cheapest.

// The modelled cost of boxing input `i` from its own nd-sbp into `want`
// (cost_model.h); both the ranking and the result's per-input costs use it.
double BoxingCost(const Call& call, int i, const NdSbp& want) {
  return NdSbpCopyCost(call.inputs[i].nd_sbp, want, call.hierarchy, call.inputs[i].bytes());
}

// What the ranking compares: total boxing cost, then how many inputs already have the
// layout the candidate wants.
struct Score {
  double cost = 0;
  int matching = 0;
};

// The documented tie-break (infer.h, step 6): the cheaper candidate wins; costs within
// kRelTolerance tie, and then the one with more inputs already in place wins. On a
// full tie neither beats the other, so a walk or stable sort keeps the earlier
// declared one. Choosing and explain's ranking share it so rank 0 is the choice.
bool Beats(const Score& a, const Score& b) {
  const int cmp = CompareCost(a.cost, b.cost);
  if (cmp != 0) return cmp < 0;
  return a.matching > b.matching;
}

// Checks the candidate at `cur` and, when it survives, costs it: false when filtered
// (the reason in `why` when non-null); else `costs` (per input) and `score` are set.
// An input's cost is only computed once that input passes its checks.
bool CheckAndCost(const Call& call, const CandidateSpace& space, const Cursor& cur,
                  std::vector<double>* costs, Score* score, std::string* why) {
  *score = Score();
  for (int i = 0; i < call.n_in; ++i) {
    const NdSbp want = Compose(space, cur, false, i);
    if (RuleOutInput(call, i, want, why)) return false;
    (*costs)[i] = BoxingCost(call, i, want);
    score->cost += (*costs)[i];
    if (SameLayout(want, call.inputs[i].nd_sbp, call.hierarchy)) ++score->matching;
  }
  return !RuleOutOutputs(call, space, cur, why);
}

// Explain's entry for candidate `c`: its signature and text always, its filter reason
// or its costs, matching count and OneFlow order value.
void RecordCandidate(const Call& call, const CandidateSpace& space, const Cursor& cur, int64_t c,
                     bool survived, const std::string& why, const std::vector<double>& costs,
                     const Score& score, Explanation* trace) {
  CandidateRecord rec;
  rec.index = static_cast<int>(c);
  for (int i = 0; i < call.n_in; ++i) rec.signature.inputs.push_back(Compose(space, cur, false, i));
  for (int o = 0; o < call.n_out; ++o) {
    rec.signature.outputs.push_back(Compose(space, cur, true, o));
  }
  rec.text = rec.signature.ToString(call.ctx);
  rec.filtered = !survived;
  if (!survived) {
    rec.filter_reason = why;
  } else {
    rec.input_costs = costs;
    rec.cost = score.cost;
    rec.matching_inputs = score.matching;
    rec.order_value = call.constrained ? 0 : -10 * score.matching;
  }
  trace->candidates.push_back(std::move(rec));
}

// Walks every candidate once in declared order, keeping the first one nothing Beats.
// Returns its index, or -1 when every candidate was filtered. The walk is the same
// with or without a trace; the trace only adds a record per candidate.
int64_t PickCheapest(const Call& call, const CandidateSpace& space, Explanation* trace) {
  Cursor cur;
  std::vector<double> costs(static_cast<size_t>(call.n_in));
  int64_t best = -1;
  Score best_score;
  std::string why;
  std::string* reason = trace != nullptr ? &why : nullptr;
  for (int64_t c = 0; c < space.count; ++c) {
    Score score;
    const bool survived = CheckAndCost(call, space, cur, &costs, &score, reason);
    if (trace != nullptr) RecordCandidate(call, space, cur, c, survived, why, costs, score, trace);
    if (survived && (best < 0 || Beats(score, best_score))) {
      best = c;
      best_score = score;
    }
    Advance(space, &cur);
  }
  return best;
}

// ---- The outcome.

// "No signature fits" lists every candidate with its reason, which only a traced
// search records; the plain search skips that work, so on failure it searches again
// with a trace. The rerun is rare (the call is about to fail) and keeps the message
// identical to explain's `failure`.
Status NoSignatureFits(const op::OpDef& def, const std::vector<TensorMeta>& inputs,
                       const op::AttrMap& attrs, const std::vector<SbpConstraint>& constraints,
                       Explanation* trace) {
  if (trace != nullptr) {
    trace->failure = FailureMessage(*trace);
    return Status::Ok();
  }
  Explanation e;
  InferResult scratch;
  TESS_RETURN_IF_ERROR(Search(def, inputs, attrs, constraints, &scratch, &e));
  return InvalidArgument(e.failure);
}

// The winner as an InferResult. Costs are recomputed rather than kept from the walk,
// which would mean copying the per-input costs at every new best.
void FillResult(const Call& call, const CandidateSpace& space, int64_t best, InferResult* result) {
  const Cursor cur = Seek(space, best);
  result->total_cost = 0;
  for (int i = 0; i < call.n_in; ++i) {
    NdSbp want = Compose(space, cur, false, i);
    result->input_nd_sbps[i] = want;
    result->needs_boxing[i] = !SameLayout(want, call.inputs[i].nd_sbp, call.hierarchy);
    result->input_costs[i] = BoxingCost(call, i, want);
    result->total_cost += result->input_costs[i];
  }
  for (int o = 0; o < call.n_out; ++o) {
    result->outputs.push_back(TensorMeta{call.ctx.output(o).shape, call.ctx.output(o).dtype,
                                         call.placement, Compose(space, cur, true, o)});
  }
  result->signature_index = static_cast<int>(best);
  result->num_candidates = static_cast<int>(space.count);
}

// Explain's rank for each surviving candidate, by the same Beats the walk used
// (stable, so declared order breaks full ties): rank 0 is the chosen candidate.
void RankCandidates(Explanation* trace) {
  std::vector<CandidateRecord*> ranked;
  for (CandidateRecord& r : trace->candidates) {
    if (!r.filtered) ranked.push_back(&r);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const CandidateRecord* a, const CandidateRecord* b) {
                     return Beats({a->cost, a->matching_inputs}, {b->cost, b->matching_inputs});
                   });
  for (size_t r = 0; r < ranked.size(); ++r) ranked[r]->rank = static_cast<int>(r);
}

// Explain's account of the choice: which candidate won, the boxing each input needs,
// the outputs, every survivor's rank, and (1-d only) what OneFlow's rule would pick.
void RecordChoice(const Call& call, const InferResult& result, int64_t best, Explanation* trace) {
  trace->chosen = static_cast<int>(best);
  trace->outputs = result.outputs;
  for (int i = 0; i < call.n_in; ++i) {
    if (result.needs_boxing[i]) {
      trace->boxing.push_back({i, call.ctx.InputName(i), call.inputs[i].nd_sbp,
                               result.input_nd_sbps[i], result.input_costs[i]});
    }
  }
  RankCandidates(trace);
  if (call.placement.num_axes() == 1) trace->oneflow_choice = OneFlowChoice(*trace);
}

}  // namespace

Status Search(const op::OpDef& def, const std::vector<TensorMeta>& inputs, const op::AttrMap& attrs,
              const std::vector<SbpConstraint>& constraints, InferResult* result,
              Explanation* trace) {
  TESS_ASSIGN_OR_RETURN(op::OpContext ctx, CheckCall(def, inputs, attrs));
  const Placement& placement = inputs[0].placement;
  SlotConstraints con;
  TESS_RETURN_IF_ERROR(IndexConstraints(def, ctx, placement, constraints, &con));
  const Call call{inputs,
                  ctx,
                  placement,
                  placement.hierarchy(),
                  con,
                  !constraints.empty(),
                  ctx.num_inputs(),
                  ctx.num_outputs()};
  if (trace != nullptr) RecordCall(def, attrs, call, constraints, trace);
  PrepareResult(call, result);

  if (placement.parallel_num() == 1) {
    OneRankResult(call, result, trace);
    return Status::Ok();
  }
  CandidateSpace space;
  TESS_RETURN_IF_ERROR(EnumerateCandidates(def, &ctx, placement, &space));
  const int64_t best = PickCheapest(call, space, trace);
  if (best < 0) return NoSignatureFits(def, inputs, attrs, constraints, trace);
  FillResult(call, space, best, result);
  if (trace != nullptr) RecordChoice(call, *result, best, trace);
  return Status::Ok();
}

}  // namespace infer
}  // namespace tessera
