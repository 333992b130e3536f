// tessera/optim.h through the C API, at 1 and 3 ranks: a few SGD (momentum, dampening,
// weight decay) and AdamW steps on a data-parallel linear model (weight and bias
// broadcast, data rows split over the ranks, unevenly at 3) against plain-loop
// references written from PyTorch's documented update rules; fused equal to per-tensor;
// set_lr taking effect; get_stats' fields.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/tessera.h"
#include "tests/capi/world_test_util.h"

namespace tessera::capi_test {
namespace {

constexpr int kRows = 5, kIn = 3, kOut = 2, kSteps = 3;

std::string World() { return CpuOf(WorldRanks()); }

std::vector<double> XValues() {
  std::vector<double> x(kRows * kIn);
  for (size_t i = 0; i < x.size(); ++i) x[i] = -1.0 + 0.25 * static_cast<double>(i) / 1.4;
  return x;
}
const std::vector<double> kW0 = {0.5, -1, 2, 0.25, -3, 1};
const std::vector<double> kB0 = {0.1, -0.2};

// Parameters as plain vectors: {w [3,2], b [2]}.
using Params = std::vector<std::vector<double>>;

// loss = sum((x w + b)^2) / 2: dw = x^T y, db = column sums of y (plain loops).
Params Grads(const Params& p) {
  const std::vector<double> x = XValues();
  Params g = {std::vector<double>(kIn * kOut, 0.0), std::vector<double>(kOut, 0.0)};
  for (int i = 0; i < kRows; ++i) {
    for (int j = 0; j < kOut; ++j) {
      double y = p[1][j];
      for (int k = 0; k < kIn; ++k) y += x[i * kIn + k] * p[0][k * kOut + j];
      for (int k = 0; k < kIn; ++k) g[0][k * kOut + j] += x[i * kIn + k] * y;
      g[1][j] += y;
    }
  }
  return g;
}

// torch.optim.SGD's algorithm, one lr per step.
Params SgdReference(const std::vector<double>& lrs, double momentum, double dampening,
                    double weight_decay) {
  Params p = {kW0, kB0}, buf = {{}, {}};
  for (size_t step = 0; step < lrs.size(); ++step) {
    const double lr = lrs[step];
    const Params g = Grads(p);
    for (size_t t = 0; t < p.size(); ++t) {
      if (buf[t].empty()) buf[t].assign(p[t].size(), 0.0);
      for (size_t e = 0; e < p[t].size(); ++e) {
        double d = g[t][e] + weight_decay * p[t][e];
        if (momentum != 0) {  // the first step's buffer is the gradient itself
          buf[t][e] = step == 0 ? d : momentum * buf[t][e] + (1 - dampening) * d;
          d = buf[t][e];
        }
        p[t][e] -= lr * d;
      }
    }
  }
  return p;
}

// torch.optim.AdamW's algorithm (decoupled weight decay).
Params AdamWReference(double lr, double b1, double b2, double eps, double weight_decay) {
  Params p = {kW0, kB0};
  Params m = {std::vector<double>(kW0.size()), std::vector<double>(kB0.size())}, v = m;
  for (int step = 1; step <= kSteps; ++step) {
    const Params g = Grads(p);
    for (size_t t = 0; t < p.size(); ++t) {
      for (size_t e = 0; e < p[t].size(); ++e) {
        p[t][e] *= 1 - lr * weight_decay;
        m[t][e] = b1 * m[t][e] + (1 - b1) * g[t][e];
        v[t][e] = b2 * v[t][e] + (1 - b2) * g[t][e] * g[t][e];
        const double m_hat = m[t][e] / (1 - std::pow(b1, step));
        const double v_hat = v[t][e] / (1 - std::pow(b2, step));
        p[t][e] -= lr * m_hat / (std::sqrt(v_hat) + eps);
      }
    }
  }
  return p;
}

struct OptimizerDeleter {
  void operator()(tess_optimizer* o) const { tess_optimizer_destroy(o); }
};
using OptimizerPtr = std::unique_ptr<tess_optimizer, OptimizerDeleter>;

struct Model {
  TensorPtr x = FromHost<double>(XValues(), {kRows, kIn}, World(), "S(0)");
  TensorPtr w = FromHost<double>(kW0, {kIn, kOut}, World(), "B");
  TensorPtr b = FromHost<double>(kB0, {kOut}, World(), "B");
  OptimizerPtr opt;

  explicit Model(const tess_optimizer_options& o) {
    EXPECT_EQ(tess_tensor_set_requires_grad(w.get(), 1), TESS_OK) << LastError();
    EXPECT_EQ(tess_tensor_set_requires_grad(b.get(), 1), TESS_OK) << LastError();
    tess_tensor* params[] = {w.get(), b.get()};
    tess_optimizer* made = nullptr;
    EXPECT_EQ(tess_optimizer_create(&made, params, 2, &o), TESS_OK) << LastError();
    opt.reset(made);
  }

  // One forward, backward, step and zero_grad.
  void Step() {
    tess_tensor *xw = nullptr, *y = nullptr, *sq = nullptr, *sum = nullptr, *loss = nullptr;
    ASSERT_EQ(tess_matmul(&xw, x.get(), w.get(), 0, 0), TESS_OK) << LastError();
    TensorPtr xw_owned(xw);
    ASSERT_EQ(tess_bias_add(&y, xw, b.get(), 1), TESS_OK) << LastError();
    TensorPtr y_owned(y);
    ASSERT_EQ(tess_mul(&sq, y, y), TESS_OK) << LastError();
    TensorPtr sq_owned(sq);
    ASSERT_EQ(tess_reduce_sum(&sum, sq, nullptr, 0, 0), TESS_OK) << LastError();
    TensorPtr sum_owned(sum);
    ASSERT_EQ(tess_scalar_mul(&loss, sum, 0.5), TESS_OK) << LastError();
    TensorPtr loss_owned(loss);
    const tess_tensor* roots[] = {loss};
    ASSERT_EQ(tess_autograd_backward(roots, 1, nullptr, nullptr), TESS_OK) << LastError();
    ASSERT_EQ(tess_optimizer_step(opt.get()), TESS_OK) << LastError();
    ASSERT_EQ(tess_optimizer_zero_grad(opt.get()), TESS_OK) << LastError();
  }

  Params Values() const { return {ToHost<double>(w.get()), ToHost<double>(b.get())}; }
};

void ExpectNear(const Params& got, const Params& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t t = 0; t < got.size(); ++t) {
    ASSERT_EQ(got[t].size(), want[t].size());
    for (size_t e = 0; e < got[t].size(); ++e) {
      EXPECT_NEAR(got[t][e], want[t][e], 1e-12 * (1 + std::fabs(want[t][e])))
          << "param " << t << " element " << e;
    }
  }
}

tess_optimizer_options Sgd(double lr, int32_t fused) {
  tess_optimizer_options o = TESS_OPTIMIZER_OPTIONS_INIT;
  o.lr = lr;
  o.momentum = 0.9;
  o.dampening = 0.1;
  o.weight_decay = 0.05;
  o.fused = fused;
  return o;
}

TEST(OptimCapi, SgdMomentumMatchesReferencePerTensorAndFused) {
  for (int32_t fused : {0, 1}) {
    Model m(Sgd(0.01, fused));
    for (int s = 0; s < kSteps; ++s) m.Step();
    ExpectNear(m.Values(), SgdReference({0.01, 0.01, 0.01}, 0.9, 0.1, 0.05));
  }
}

TEST(OptimCapi, AdamWMatchesReferenceAndFusedEqualsPerTensor) {
  Params per_tensor;
  for (int32_t fused : {0, 1}) {
    tess_optimizer_options o = TESS_OPTIMIZER_OPTIONS_INIT;
    o.algorithm = TESS_OPTIMIZER_ADAMW;
    o.lr = 0.1;
    o.weight_decay = 0.1;
    o.fused = fused;
    Model m(o);
    for (int s = 0; s < kSteps; ++s) m.Step();
    const Params got = m.Values();
    ExpectNear(got, AdamWReference(0.1, 0.9, 0.999, 1e-8, 0.1));
    if (fused) {
      EXPECT_EQ(got, per_tensor);  // the same kernels' arithmetic, bit for bit
    } else {
      per_tensor = got;
    }
  }
}

TEST(OptimCapi, SetLrTakesEffectOnTheNextStep) {
  Model m(Sgd(0.5, 0));
  const std::vector<double> lrs = {0.01, 0.0, 0.03};
  for (double lr : lrs) {
    ASSERT_EQ(tess_optimizer_set_lr(m.opt.get(), lr), TESS_OK) << LastError();
    m.Step();
  }
  ExpectNear(m.Values(), SgdReference(lrs, 0.9, 0.1, 0.05));
  EXPECT_EQ(tess_optimizer_set_lr(m.opt.get(), -2), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("lr is -2"));
}

TEST(OptimCapi, StatsCountStepsParamsAndBuckets) {
  Model per_tensor(Sgd(0.01, 0));
  tess_optimizer_stats s = TESS_OPTIMIZER_STATS_INIT;
  ASSERT_EQ(tess_optimizer_get_stats(&s, per_tensor.opt.get()), TESS_OK) << LastError();
  EXPECT_EQ(s.steps, 0);
  EXPECT_EQ(s.num_params, 2);
  EXPECT_EQ(s.num_buckets, 0);
  EXPECT_EQ(s.allreduces_in_backward, 0);
  per_tensor.Step();
  per_tensor.Step();
  ASSERT_EQ(tess_optimizer_get_stats(&s, per_tensor.opt.get()), TESS_OK) << LastError();
  EXPECT_EQ(s.steps, 2);

  Model fused(Sgd(0.01, 1));  // w and b: one dtype and layout, far under 25 MiB
  for (int i = 0; i < kSteps; ++i) fused.Step();
  s = TESS_OPTIMIZER_STATS_INIT;
  ASSERT_EQ(tess_optimizer_get_stats(&s, fused.opt.get()), TESS_OK) << LastError();
  EXPECT_EQ(s.steps, kSteps);
  EXPECT_EQ(s.num_params, 2);
  EXPECT_EQ(s.num_buckets, 1);
  // SGD with momentum keeps one buffer of the bucket's 8 doubles.
  EXPECT_EQ(s.state_bytes, static_cast<int64_t>((kIn * kOut + kOut) * sizeof(double)));
  EXPECT_GE(s.allreduce_seconds, s.allreduce_wait_seconds);
  EXPECT_GE(s.allreduce_wait_seconds, 0.0);
  if (WorldSize() > 1) {
    EXPECT_EQ(s.allreduces_in_backward, kSteps);  // one bucket a step
  }
}

}  // namespace
}  // namespace tessera::capi_test
