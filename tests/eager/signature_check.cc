#include "tests/eager/signature_check.h"

#include <mpi.h>

#include <memory>

#include "core/comm/mpi_world.h"
#include "core/eager/interpreter.h"
#include "core/infer/explain.h"
#include "core/infer/tensor_meta.h"
#include "core/sbp/physical_layout.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"

namespace tessera {
namespace eager_test {
namespace {

using kernels::cpu::Ravel;
using kernels::cpu::Unravel;

// Element `i`'s share on coordinate `c` of a partial hierarchy axis `axis` with `n`
// ranks (see PartialPiece). `q` is the share granularity: 1/4, or 1 for integers.
double Share(SbpKind kind, double v, int64_t i, int axis, int64_t c, int64_t n, double q) {
  if (n == 1) return v;
  if (kind == SbpKind::kPartialSum) {
    auto offset = [&](int64_t r) {
      return static_cast<double>((i * 5 + axis * 3 + r * 7) % 9 - 4) * q;
    };
    if (c != 0) return offset(c);
    double rest = v;
    for (int64_t r = 1; r < n; ++r) rest -= offset(r);
    return rest;
  }
  // One rank per element (which one varies with the element) holds the value itself.
  const double e =
      c == (i + axis) % n ? 0 : static_cast<double>((i * 3 + c * 5 + axis * 2) % 4 + 1) * q;
  return kind == SbpKind::kPartialMax ? v - e : v + e;
}

bool IsInteger(DType dtype) { return dtype == DType::kI32 || dtype == DType::kI64; }

// Whether every rank of the world passes `ok`: a step that failed on one rank must
// stop every rank before the next collective, or the others would wait forever.
bool AllRanksOk(bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) return false;
  return all == 1;
}

enum class InputFill { kFromLogical, kShares };

class Checker {
 public:
  Checker(const OpCall& call, const Placement& placement)
      : call_(call), placement_(placement), rank_(comm::WorldRank().value()) {}

  // Builds the inputs as `sig` wants them, applies the op (pinned to `sig` unless
  // `index` is -1), and compares every gathered output with the oracle. Returns one
  // line per failure.
  std::vector<std::string> Run(const op::NdSbpSignature& sig, const std::string& text, int index,
                               InputFill fill) {
    const char* fill_name = fill == InputFill::kShares ? "shares" : "from_logical";
    std::vector<std::string> failures;
    auto fail = [&](const std::string& what) -> std::vector<std::string>& {
      failures.push_back(call_.def->name() + " " + call_.label + " on " + placement_.ToString() +
                         ": " + text + " [" + fill_name + "]: " + what);
      return failures;
    };
    std::vector<tensor::Tensor> inputs;
    for (size_t i = 0; i < call_.inputs.size(); ++i) {
      Result<tensor::Tensor> t = MakeInput(call_.inputs[i], sig.inputs[i], fill);
      if (!AllRanksOk(t.ok())) {
        return fail("making input #" + std::to_string(i) + ": " + t.status().ToString());
      }
      inputs.push_back(*t);
    }

    std::vector<infer::SbpConstraint> constraints;
    if (index >= 0) {
      for (size_t i = 0; i < sig.inputs.size(); ++i) {
        constraints.push_back({false, static_cast<int>(i), sig.inputs[i]});
      }
      for (size_t o = 0; o < sig.outputs.size(); ++o) {
        constraints.push_back({true, static_cast<int>(o), sig.outputs[o]});
      }
    }
    std::vector<tensor::Tensor> outputs;
    Status status =
        eager::Apply(*call_.def, inputs.data(), inputs.size(), call_.attrs, &outputs, constraints);
    if (!AllRanksOk(status.ok())) return fail("Apply: " + status.ToString());

    if (index >= 0) {
      // The constraints leave exactly this candidate, and the inputs already match it.
      std::shared_ptr<const infer::InferResult> ran = eager::LastInferResult();
      if (ran == nullptr || ran->signature_index != index) {
        return fail("inference ran candidate #" +
                    std::to_string(ran == nullptr ? -2 : ran->signature_index) + ", not #" +
                    std::to_string(index));
      }
      for (size_t i = 0; i < ran->needs_boxing.size(); ++i) {
        if (ran->needs_boxing[i]) return fail("input #" + std::to_string(i) + " was boxed");
      }
    }
    if (outputs.size() != call_.want.size()) {
      return fail(std::to_string(outputs.size()) + " outputs, want " +
                  std::to_string(call_.want.size()));
    }
    for (size_t o = 0; o < outputs.size(); ++o) {
      const HostTensor& want = call_.want[o];
      const std::string name = "output \"" + call_.def->outputs()[o].name + "\"";
      if (outputs[o]->shape() != want.shape() || outputs[o]->dtype() != want.dtype()) {
        return fail(name + " is " + outputs[o]->meta().ToString() + ", want " +
                    want.shape().ToString() + " " + DTypeName(want.dtype()));
      }
      if (index >= 0 && outputs[o]->nd_sbp() != sig.outputs[o]) {
        return fail(name + " has nd-sbp " + outputs[o]->nd_sbp().ToString());
      }
      HostTensor got(want.shape(), want.dtype());
      status = tensor::ToHost(outputs[o], got.View().data);
      if (!AllRanksOk(status.ok())) return fail(name + " ToHost: " + status.ToString());
      const std::string diff = Mismatch(got, want, call_.exact);
      if (!diff.empty()) fail(name + " " + diff);
    }
    return failures;
  }

 private:
  Result<tensor::Tensor> MakeInput(const HostTensor& logical, const NdSbp& nd_sbp,
                                   InputFill fill) const {
    if (fill == InputFill::kFromLogical) {
      return tensor::FromLogical(logical.View().data, logical.shape(), logical.dtype(), placement_,
                                 nd_sbp);
    }
    if (!placement_.contains(rank_)) {
      return tensor::FromLocal(nullptr, logical.shape(), logical.dtype(), placement_, nd_sbp,
                               &logical.shape());
    }
    TESS_ASSIGN_OR_RETURN(HostTensor piece, PartialPiece(logical, placement_, nd_sbp, rank_));
    return tensor::FromLocal(piece.View().data, piece.shape(), piece.dtype(), placement_, nd_sbp,
                             &logical.shape());
  }

  const OpCall& call_;
  const Placement& placement_;
  const int32_t rank_;
};

// Whether some input of `sig` is partial on some hierarchy axis, counting only P(max)
// and P(min) when `max_min_only`.
bool HasPartialInput(const op::NdSbpSignature& sig, bool max_min_only) {
  for (const NdSbp& nd : sig.inputs) {
    for (int a = 0; a < nd.num_axes(); ++a) {
      if (nd[a].is_partial() && (!max_min_only || nd[a].kind != SbpKind::kPartialSum)) {
        return true;
      }
    }
  }
  return false;
}

void Append(const std::vector<std::string>& lines, std::vector<std::string>* to) {
  to->insert(to->end(), lines.begin(), lines.end());
}

}  // namespace

Result<HostTensor> PartialPiece(const HostTensor& logical, const Placement& placement,
                                const NdSbp& nd_sbp, int32_t rank) {
  TESS_ASSIGN_OR_RETURN(PhysicalLayout layout,
                        PhysicalLayoutOfRank(logical.shape(), placement, nd_sbp, rank));
  const int64_t index = placement.index_of(rank);
  const double q = IsInteger(logical.dtype()) ? 1.0 : 0.25;
  HostTensor local(layout.local_shape, logical.dtype());
  for (int64_t j = 0; j < local.size(); ++j) {
    std::vector<int64_t> at = Unravel(j, layout.local_shape);
    for (size_t d = 0; d < at.size(); ++d) at[d] += layout.ranges[d].begin;
    const int64_t i = Ravel(at, logical.shape());
    double v = logical.Get(i);
    for (int a = 0; a < nd_sbp.num_axes(); ++a) {
      if (!nd_sbp[a].is_partial()) continue;
      v = Share(nd_sbp[a].kind, v, i, a, placement.Coordinate(index, a), placement.hierarchy()[a],
                q);
    }
    local.Set(j, v);
  }
  return local;
}

std::string Mismatch(const HostTensor& got, const HostTensor& want, bool exact) {
  if (got.shape() != want.shape() || got.dtype() != want.dtype()) {
    return "is " + got.shape().ToString() + " " + DTypeName(got.dtype()) + ", want " +
           want.shape().ToString() + " " + DTypeName(want.dtype());
  }
  const double tolerance = exact ? 0 : kernels::cpu::Tolerance(want.dtype());
  for (int64_t i = 0; i < want.size(); ++i) {
    const double a = got.Get(i), e = want.Get(i);
    if (!kernels::cpu::ValueMatches(a, e, tolerance)) {
      return "element " + std::to_string(i) + " " +
             kernels::cpu::IntsString(Unravel(i, want.shape())) + ": got " + std::to_string(a) +
             ", want " + std::to_string(e);
    }
  }
  return "";
}

SignatureReport CheckSignatures(const OpCall& call, const Placement& placement) {
  SignatureReport report;
  NdSbp all_b;
  for (int a = 0; a < placement.num_axes(); ++a) all_b.Append(Sbp::Broadcast());
  std::vector<infer::TensorMeta> metas;
  for (const HostTensor& t : call.inputs) {
    Result<infer::TensorMeta> meta =
        infer::TensorMeta::Make(t.shape(), t.dtype(), placement, all_b);
    if (!meta.ok()) {
      report.failures.push_back(call.label + ": " + meta.status().ToString());
      return report;
    }
    metas.push_back(*meta);
  }
  Result<infer::Explanation> explained = infer::Explain(*call.def, metas, call.attrs);
  if (!explained.ok()) {
    report.failures.push_back(call.def->name() + " " + call.label +
                              ": Explain: " + explained.status().ToString());
    return report;
  }
  Checker checker(call, placement);
  if (explained->trivial) {
    op::NdSbpSignature unconstrained;
    unconstrained.inputs.assign(metas.size(), all_b);
    for (const infer::TensorMeta& out : explained->outputs) {
      unconstrained.outputs.push_back(out.nd_sbp);
    }
    ++report.checked;
    Append(checker.Run(unconstrained, "1 rank, no constraints", -1, InputFill::kFromLogical),
           &report.failures);
    return report;
  }
  for (const infer::CandidateRecord& candidate : explained->candidates) {
    ++report.candidates;
    if (candidate.filtered) {
      ++report.filtered;
      continue;
    }
    ++report.checked;
    const op::NdSbpSignature& sig = candidate.signature;
    std::vector<std::string> logical =
        checker.Run(sig, candidate.text, candidate.index, InputFill::kFromLogical);
    if (!HasPartialInput(sig, /*max_min_only=*/false)) {
      Append(logical, &report.failures);
      continue;
    }
    ++report.partial_runs;
    std::vector<std::string> shares =
        checker.Run(sig, candidate.text, candidate.index, InputFill::kShares);
    Append(shares, &report.failures);
    Append(logical, &report.failures);
  }
  return report;
}

}  // namespace eager_test
}  // namespace tessera
