#include "tests/optim/mlp.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/autograd/backward.h"
#include "core/comm/mpi_world.h"
#include "core/eager/interpreter.h"
#include "core/op/op_registry.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"

namespace tessera::optim_test {
namespace {

using autograd::Variable;

// Step `step`'s batch: x in [-1, 1], labels in [0, classes).
std::vector<double> Inputs(const MlpConfig& c, int step) {
  std::vector<double> x(c.batch * c.in);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * i + 1.3 * step);
  return x;
}
std::vector<int32_t> Labels(const MlpConfig& c, int step) {
  std::vector<int32_t> y(c.batch);
  for (int64_t i = 0; i < c.batch; ++i) y[i] = static_cast<int32_t>((i * 7 + step * 3) % c.classes);
  return y;
}

Result<tensor::Tensor> MakeTensor(const std::vector<double>& v, const Shape& shape, DType dtype,
                                  const Placement& p, const NdSbp& sbp) {
  if (dtype == DType::kF64) return tensor::FromLogical(v.data(), shape, dtype, p, sbp);
  std::vector<float> f(v.begin(), v.end());
  return tensor::FromLogical(f.data(), shape, dtype, p, sbp);
}

Result<Variable> Call(const char* op, std::vector<Variable> in, const op::AttrMap& attrs = {},
                      int output = 0) {
  TESS_ASSIGN_OR_RETURN(const op::OpDef* def, op::OpRegistry::Global().Find(op));
  std::vector<Variable> out;
  TESS_RETURN_IF_ERROR(autograd::Apply(*def, in.data(), in.size(), attrs, &out));
  return out[output];
}

std::vector<Shape> ParamShapes(const MlpConfig& c) {
  return {Shape{c.in, c.hidden}, Shape{c.hidden}, Shape{c.hidden, c.classes}, Shape{c.classes}};
}

}  // namespace

MlpConfig DataParallel(DType dtype) {
  std::vector<int32_t> ranks(comm::WorldSize().value());
  std::iota(ranks.begin(), ranks.end(), 0);
  MlpConfig c(
      Placement::Make(DeviceType::kCpu, ranks, {static_cast<int64_t>(ranks.size())}).value());
  c.dtype = dtype;
  c.data_sbp = NdSbp(Sbp::Split(0));
  c.param_sbps.assign(4, NdSbp(Sbp::Broadcast()));
  return c;
}

Values InitialParams(const MlpConfig& c) {
  Values v;
  int k = 0;
  for (const Shape& s : ParamShapes(c)) {
    std::vector<double> p(s.num_elements());
    for (size_t i = 0; i < p.size(); ++i) p[i] = 0.5 * std::cos(0.9 * i + 2.1 * k);
    v.push_back(p);
    ++k;
  }
  return v;
}

Result<Mlp> Mlp::Make(const MlpConfig& c) {
  Mlp m{{}, c};
  const Values init = InitialParams(c);
  const std::vector<Shape> shapes = ParamShapes(c);
  for (size_t i = 0; i < shapes.size(); ++i) {
    TESS_ASSIGN_OR_RETURN(tensor::Tensor t,
                          MakeTensor(init[i], shapes[i], c.dtype, c.placement, c.param_sbps[i]));
    TESS_ASSIGN_OR_RETURN(Variable v, autograd::MakeLeaf(t));
    m.params.push_back(v);
  }
  return m;
}

std::vector<Variable*> Mlp::Params() {
  std::vector<Variable*> out;
  for (Variable& v : params) out.push_back(&v);
  return out;
}

Result<std::pair<tensor::Tensor, tensor::Tensor>> Mlp::Batch(int step) const {
  const MlpConfig& c = config;
  TESS_ASSIGN_OR_RETURN(tensor::Tensor xt, MakeTensor(Inputs(c, step), Shape{c.batch, c.in},
                                                      c.dtype, c.placement, c.data_sbp));
  const std::vector<int32_t> labels = Labels(c, step);
  TESS_ASSIGN_OR_RETURN(
      tensor::Tensor yt,
      tensor::FromLogical(labels.data(), Shape{c.batch}, DType::kI32, c.placement, c.data_sbp));
  return std::make_pair(xt, yt);
}

Result<Variable> Mlp::Loss(const tensor::Tensor& xt, const tensor::Tensor& yt, StepRecord* record) {
  const Variable x{xt, nullptr}, y{yt, nullptr};
  TESS_ASSIGN_OR_RETURN(Variable mm1, Call("matmul", {x, params[0]}));
  TESS_ASSIGN_OR_RETURN(Variable z1, Call("bias_add", {mm1, params[1]}));
  TESS_ASSIGN_OR_RETURN(Variable h, Call("relu", {z1}));
  TESS_ASSIGN_OR_RETURN(Variable mm2, Call("matmul", {h, params[2]}));
  TESS_ASSIGN_OR_RETURN(Variable z2, Call("bias_add", {mm2, params[3]}));
  TESS_ASSIGN_OR_RETURN(Variable per_example,
                        Call("sparse_softmax_cross_entropy", {z2, y}, {}, /*output=*/1));
  const std::shared_ptr<const infer::InferResult> loss_inference = eager::LastInferResult();
  TESS_ASSIGN_OR_RETURN(Variable loss, Call("reduce_mean", {per_example}));
  if (record != nullptr) {
    record->matmul2_sbp = mm2.value->nd_sbp();
    record->logits_sbp = z2.value->nd_sbp();
    // NULL on ranks outside the placement, which infer nothing.
    record->loss_input_sbp = loss_inference ? loss_inference->input_nd_sbps[0] : NdSbp();
  }
  return loss;
}

Status Mlp::ForwardBackward(int step, StepRecord* record) {
  TESS_ASSIGN_OR_RETURN(auto batch, Batch(step));
  TESS_ASSIGN_OR_RETURN(Variable loss, Loss(batch.first, batch.second, record));
  if (record != nullptr) {
    if (loss.value->dtype() == DType::kF64) {
      TESS_RETURN_IF_ERROR(tensor::ToHost(loss.value, &record->loss));
    } else {
      float f = 0;
      TESS_RETURN_IF_ERROR(tensor::ToHost(loss.value, &f));
      record->loss = f;
    }
  }
  return autograd::Backward({loss}, {});
}

Result<Values> Mlp::ParamValues() const {
  Values out;
  for (const Variable& p : params) {
    std::vector<double> v(p.value->shape().num_elements());
    if (p.value->dtype() == DType::kF64) {
      TESS_RETURN_IF_ERROR(tensor::ToHost(p.value, v.data()));
    } else {
      std::vector<float> f(v.size());
      TESS_RETURN_IF_ERROR(tensor::ToHost(p.value, f.data()));
      std::copy(f.begin(), f.end(), v.begin());
    }
    out.push_back(v);
  }
  return out;
}

namespace {

// The model's gradients by hand: dz2 = (softmax(z2) - onehot) / N, dW2 = h^T dz2,
// db2 = sum dz2, dh = dz2 W2^T, dz1 = dh * (z1 > 0), dW1 = x^T dz1, db1 = sum dz1.
Values ReferenceGrads(const MlpConfig& c, const Values& p, int step) {
  const std::vector<double> x = Inputs(c, step);
  const std::vector<int32_t> y = Labels(c, step);
  const int64_t N = c.batch, I = c.in, H = c.hidden, C = c.classes;
  std::vector<double> z1(N * H), h(N * H), z2(N * C), dz2(N * C), dh(N * H, 0);
  Values g = {std::vector<double>(I * H, 0), std::vector<double>(H, 0),
              std::vector<double>(H * C, 0), std::vector<double>(C, 0)};
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t j = 0; j < H; ++j) {
      double s = p[1][j];
      for (int64_t i = 0; i < I; ++i) s += x[n * I + i] * p[0][i * H + j];
      z1[n * H + j] = s;
      h[n * H + j] = s > 0 ? s : 0;
    }
    double mx = -1e300;
    for (int64_t k = 0; k < C; ++k) {
      double s = p[3][k];
      for (int64_t j = 0; j < H; ++j) s += h[n * H + j] * p[2][j * C + k];
      z2[n * C + k] = s;
      mx = std::max(mx, s);
    }
    double sum = 0;
    for (int64_t k = 0; k < C; ++k) sum += std::exp(z2[n * C + k] - mx);
    for (int64_t k = 0; k < C; ++k) {
      const double prob = std::exp(z2[n * C + k] - mx) / sum;
      dz2[n * C + k] = (prob - (k == y[n] ? 1 : 0)) / N;
    }
  }
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t k = 0; k < C; ++k) {
      g[3][k] += dz2[n * C + k];
      for (int64_t j = 0; j < H; ++j) {
        g[2][j * C + k] += h[n * H + j] * dz2[n * C + k];
        dh[n * H + j] += dz2[n * C + k] * p[2][j * C + k];
      }
    }
    for (int64_t j = 0; j < H; ++j) {
      const double dz1 = z1[n * H + j] > 0 ? dh[n * H + j] : 0;
      g[1][j] += dz1;
      for (int64_t i = 0; i < I; ++i) g[0][i * H + j] += x[n * I + i] * dz1;
    }
  }
  return g;
}

}  // namespace

Values ReferenceTraining(const MlpConfig& c, const optim::OptimizerOptions& o, int steps) {
  Values p = InitialParams(c);
  Values buf(p.size()), m(p.size()), v(p.size());
  for (size_t k = 0; k < p.size(); ++k) {
    buf[k].assign(p[k].size(), 0);
    m[k].assign(p[k].size(), 0);
    v[k].assign(p[k].size(), 0);
  }
  for (int t = 1; t <= steps; ++t) {
    const Values grads = ReferenceGrads(c, p, t);
    for (size_t k = 0; k < p.size(); ++k) {
      for (size_t i = 0; i < p[k].size(); ++i) {
        double g = grads[k][i];
        double& w = p[k][i];
        if (o.algorithm == optim::Algorithm::kSgd) {
          // torch.optim.SGD
          if (o.weight_decay != 0) g += o.weight_decay * w;
          if (o.momentum != 0) {
            buf[k][i] = t > 1 ? o.momentum * buf[k][i] + (1 - o.dampening) * g : g;
            g = o.nesterov ? g + o.momentum * buf[k][i] : buf[k][i];
          }
          w -= o.lr * g;
        } else {
          // torch.optim.Adam / AdamW
          if (o.algorithm == optim::Algorithm::kAdamW) {
            w -= o.lr * o.weight_decay * w;
          } else {
            g += o.weight_decay * w;
          }
          m[k][i] = o.beta1 * m[k][i] + (1 - o.beta1) * g;
          v[k][i] = o.beta2 * v[k][i] + (1 - o.beta2) * g * g;
          const double m_hat = m[k][i] / (1 - std::pow(o.beta1, t));
          const double v_hat = v[k][i] / (1 - std::pow(o.beta2, t));
          w -= o.lr * m_hat / (std::sqrt(v_hat) + o.eps);
        }
      }
    }
  }
  return p;
}

double MaxRelativeError(const Values& a, const Values& b) {
  double worst = a.size() == b.size() ? 0 : 1e300;
  for (size_t k = 0; k < a.size() && k < b.size(); ++k) {
    if (a[k].size() != b[k].size()) return 1e300;
    for (size_t i = 0; i < a[k].size(); ++i) {
      worst = std::max(worst, std::abs(a[k][i] - b[k][i]) / std::max(1.0, std::abs(b[k][i])));
    }
  }
  return worst;
}

}  // namespace tessera::optim_test
