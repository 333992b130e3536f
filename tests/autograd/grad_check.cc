#include "tests/autograd/grad_check.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <sstream>

#include "core/autograd/backward.h"
#include "core/autograd/variable.h"
#include "core/comm/mpi_world.h"
#include "core/op/op_registry.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"

namespace tessera::autograd_test {
namespace {

using autograd::Variable;
using tensor::Tensor;

// Deterministic values in [-1, 1) from (seed, i), away from 0 so kinks (relu, abs)
// sit far from every sample point.
double Sample(uint64_t seed, int64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(i) * 0xBF58476D1CE4E5B9ull;
  z ^= z >> 31;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 29;
  const double u = static_cast<double>(z >> 11) / 9007199254740992.0;  // [0, 1)
  const double v = 2.0 * u - 1.0;
  return v < 0 ? v - 0.1 : v + 0.1;
}

NdSbp AllBroadcast(const Placement& p) {
  NdSbp b;
  for (int i = 0; i < p.num_axes(); ++i) b.Append(Sbp::Broadcast());
  return b;
}

Result<Tensor> Make(const GradInput& in, const std::vector<double>& values,
                    const Placement& placement) {
  if (in.dtype == DType::kF64) {
    return tensor::FromLogical(values.data(), in.shape, DType::kF64, placement, in.nd_sbp);
  }
  if (in.dtype == DType::kBool) {
    std::vector<uint8_t> bools(values.size());
    for (size_t i = 0; i < values.size(); ++i) bools[i] = values[i] != 0;
    return tensor::FromLogical(bools.data(), in.shape, DType::kBool, placement, in.nd_sbp);
  }
  std::vector<int64_t> ints(values.begin(), values.end());
  return tensor::FromLogical(ints.data(), in.shape, DType::kI64, placement, in.nd_sbp);
}

Result<std::vector<double>> Host(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t->shape().num_elements()));
  TESS_RETURN_IF_ERROR(tensor::ToHost(t, out.data()));
  return out;
}

// L = sum_k sum(out_k * w_k), evaluated on the host from the op's outputs.
struct Loss {
  std::vector<std::vector<double>> weights;  // per floating output

  Result<double> Eval(const std::vector<Variable>& outs) const {
    double loss = 0;
    for (size_t k = 0; k < outs.size() && k < weights.size(); ++k) {
      if (outs[k].value->dtype() != DType::kF64) continue;
      TESS_ASSIGN_OR_RETURN(std::vector<double> v, Host(outs[k].value));
      for (size_t i = 0; i < v.size(); ++i) loss += v[i] * weights[k][i];
    }
    return loss;
  }
};

Result<std::vector<Variable>> Run(const op::OpDef& def, const std::vector<GradInput>& inputs,
                                  const std::vector<std::vector<double>>& values,
                                  const op::AttrMap& attrs, const Placement& placement,
                                  bool leaves) {
  std::vector<Variable> vars;
  for (size_t i = 0; i < inputs.size(); ++i) {
    TESS_ASSIGN_OR_RETURN(Tensor t, Make(inputs[i], values[i], placement));
    Variable v{t, nullptr};
    if (leaves && inputs[i].requires_grad) {
      TESS_ASSIGN_OR_RETURN(v, autograd::MakeLeaf(t));
    }
    vars.push_back(std::move(v));
  }
  std::vector<Variable> outs;
  TESS_RETURN_IF_ERROR(autograd::Apply(def, vars.data(), vars.size(), attrs, &outs));
  if (leaves) outs.insert(outs.end(), vars.begin(), vars.end());  // keep the leaves
  return outs;
}

Result<GradCheckResult> Check(const std::string& op_name, const std::vector<GradInput>& inputs,
                              const op::AttrMap& attrs, const Placement& placement, double eps,
                              double tol) {
  TESS_ASSIGN_OR_RETURN(const op::OpDef* def, op::OpRegistry::Global().Find(op_name));
  std::vector<std::vector<double>> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<double> v = inputs[i].values;
    if (v.empty()) {
      v.resize(static_cast<size_t>(inputs[i].shape.num_elements()));
      for (size_t j = 0; j < v.size(); ++j) v[j] = Sample(17 + i, static_cast<int64_t>(j));
    }
    values.push_back(std::move(v));
  }

  // Analytic: backward of L with weights w_k, as the gradient of out_k.
  TESS_ASSIGN_OR_RETURN(std::vector<Variable> outs,
                        Run(*def, inputs, values, attrs, placement, /*leaves=*/true));
  const size_t num_outputs = outs.size() - inputs.size();
  Loss loss;
  std::vector<Variable> roots;
  std::vector<Tensor> root_grads;
  for (size_t k = 0; k < num_outputs; ++k) {
    const Tensor& out = outs[k].value;
    std::vector<double> w(static_cast<size_t>(out->shape().num_elements()));
    for (size_t i = 0; i < w.size(); ++i) w[i] = Sample(1000 + k, static_cast<int64_t>(i));
    loss.weights.push_back(w);
    if (!outs[k].requires_grad()) continue;
    TESS_ASSIGN_OR_RETURN(Tensor wt, tensor::FromLogical(w.data(), out->shape(), DType::kF64,
                                                         placement, AllBroadcast(placement)));
    roots.push_back(outs[k]);
    root_grads.push_back(wt);
  }
  TESS_RETURN_IF_ERROR(autograd::Backward(roots, root_grads));

  GradCheckResult result;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].requires_grad) continue;
    const Variable& leaf = outs[num_outputs + i];
    if (leaf.meta->grad == nullptr) {
      result.message = op_name + ": input #" + std::to_string(i) + " got no gradient";
      return result;
    }
    TESS_ASSIGN_OR_RETURN(std::vector<double> analytic, Host(leaf.meta->grad));
    for (size_t j = 0; j < values[i].size(); ++j) {
      double numeric = 0;
      for (double sign : {1.0, -1.0}) {
        std::vector<std::vector<double>> shifted = values;
        shifted[i][j] += sign * eps;
        autograd::NoGradGuard no_grad;
        TESS_ASSIGN_OR_RETURN(std::vector<Variable> o,
                              Run(*def, inputs, shifted, attrs, placement, /*leaves=*/false));
        TESS_ASSIGN_OR_RETURN(double l, loss.Eval(o));
        numeric += sign * l;
      }
      numeric /= 2 * eps;
      const double err = std::fabs(analytic[j] - numeric) / std::max(1.0, std::fabs(numeric));
      if (!(err <= tol)) {
        std::ostringstream msg;
        msg << op_name << " " << attrs.ToString() << ": d/d input #" << i << "[" << j
            << "] (layout " << inputs[i].nd_sbp.ToString() << " on " << placement.ToString()
            << ") analytic " << analytic[j] << " numeric " << numeric;
        result.message = msg.str();
        return result;
      }
    }
  }
  result.ok = true;
  return result;
}

}  // namespace

Placement WorldPlacement() {
  std::vector<int32_t> ranks(static_cast<size_t>(comm::WorldSize().value()));
  std::iota(ranks.begin(), ranks.end(), 0);
  return Placement::Make(DeviceType::kCpu, ranks, {static_cast<int64_t>(ranks.size())}).value();
}

Placement MeshPlacement() {
  const int n = comm::WorldSize().value();
  std::vector<int32_t> ranks(static_cast<size_t>(n));
  std::iota(ranks.begin(), ranks.end(), 0);
  const std::vector<int64_t> hierarchy =
      n == 4 ? std::vector<int64_t>{2, 2} : std::vector<int64_t>{1, n};
  return Placement::Make(DeviceType::kCpu, ranks, hierarchy).value();
}

NdSbp L(const std::string& text) { return NdSbp::Parse(text).value(); }

std::vector<NdSbp> Layouts(int ndim) {
  std::vector<NdSbp> out;
  for (int i = 0; i < ndim; ++i) out.push_back(L("S(" + std::to_string(i) + ")"));
  out.push_back(L("B"));
  out.push_back(L("P"));
  return out;
}

std::vector<NdSbp> Layouts2d(int ndim) {
  const std::string last = "S(" + std::to_string(ndim - 1) + ")";
  return {L("(S(0), " + last + ")"),
          L("(B, S(0))"),
          L("(" + last + ", B)"),
          L("(P, B)"),
          L("(B, P)"),
          L("(S(0), P)")};
}

std::vector<Case> Cases(int ndim) {
  std::vector<Case> out;
  for (const NdSbp& l : Layouts(ndim)) out.push_back({l, WorldPlacement()});
  for (const NdSbp& l : Layouts2d(ndim)) out.push_back({l, MeshPlacement()});
  return out;
}

NdSbp Like(const NdSbp& l, int ndim, bool index) {
  std::vector<Sbp> sbps;
  for (int i = 0; i < l.num_axes(); ++i) {
    Sbp s = l[i];
    if (index && !s.is_split()) s = Sbp::Broadcast();
    if (s.is_split() && s.axis >= ndim) s.axis = ndim - 1;
    sbps.push_back(s);
  }
  return NdSbp::Make(sbps.data(), static_cast<int>(sbps.size())).value();
}

NdSbp Bcast(const Case& c) { return c.placement.num_axes() == 1 ? L("B") : L("(B, B)"); }

std::vector<double> Range(int n, double from, double by) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = from + by * i;
  return v;
}

GradCheckResult CheckGrad(const std::string& op, const std::vector<GradInput>& inputs,
                          const op::AttrMap& attrs, const Placement& placement, double eps,
                          double tol) {
  Result<GradCheckResult> r = Check(op, inputs, attrs, placement, eps, tol);
  if (r.ok()) return *r;
  return GradCheckResult{false, op + ": " + r.status().ToString()};
}

}  // namespace tessera::autograd_test
