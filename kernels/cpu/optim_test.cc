// sgd_update, adam_update (and adam_update_at_step, bit for bit adam_update) against
// PyTorch's documented update rules
// (torch.optim.SGD / Adam / AdamW "Algorithm" boxes), written here as a naive loop per
// element, and against values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/op/op_registry.h"
#include "kernels/common/kernel_family.h"
#include "kernels/cpu/kernel_test_util.h"
#include "kernels/cpu/register_cpu_kernels.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

struct Sgd {
  double lr = 0.1, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false;
};

// torch.optim.SGD: g += wd * p; if mu != 0: b = g at t = 1, else mu * b + (1 - tau) * g;
// g = nesterov ? g + mu * b : b; p -= lr * g.
void SgdReference(const Sgd& o, int t, std::vector<double>& p, const std::vector<double>& grad,
                  std::vector<double>& b) {
  for (size_t i = 0; i < p.size(); ++i) {
    double g = grad[i];
    if (o.weight_decay != 0) g = g + o.weight_decay * p[i];
    if (o.momentum != 0) {
      if (t > 1) {
        b[i] = o.momentum * b[i] + (1 - o.dampening) * g;
      } else {
        b[i] = g;
      }
      if (o.nesterov) {
        g = g + o.momentum * b[i];
      } else {
        g = b[i];
      }
    }
    p[i] = p[i] - o.lr * g;
  }
}

struct Adam {
  double lr = 0.01, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
  bool decoupled = false;
};

// torch.optim.Adam (and AdamW when decoupled), amsgrad off.
void AdamReference(const Adam& o, int t, std::vector<double>& p, const std::vector<double>& grad,
                   std::vector<double>& m, std::vector<double>& v) {
  for (size_t i = 0; i < p.size(); ++i) {
    double g = grad[i];
    if (o.decoupled) {
      p[i] = p[i] - o.lr * o.weight_decay * p[i];
    } else if (o.weight_decay != 0) {
      g = g + o.weight_decay * p[i];
    }
    m[i] = o.beta1 * m[i] + (1 - o.beta1) * g;
    v[i] = o.beta2 * v[i] + (1 - o.beta2) * g * g;
    const double m_hat = m[i] / (1 - std::pow(o.beta1, t));
    const double v_hat = v[i] / (1 - std::pow(o.beta2, t));
    p[i] = p[i] - o.lr * m_hat / (std::sqrt(v_hat) + o.eps);
  }
}

AttrMap SgdAttrs(const Sgd& o, int t) {
  return {{"lr", AttrValue::Float(o.lr)},
          {"momentum", AttrValue::Float(o.momentum)},
          {"dampening", AttrValue::Float(o.dampening)},
          {"weight_decay", AttrValue::Float(o.weight_decay)},
          {"nesterov", AttrValue::Bool(o.nesterov)},
          {"first_step", AttrValue::Bool(t == 1)}};
}

AttrMap AdamAttrs(const Adam& o, int t) {
  return {{"lr", AttrValue::Float(o.lr)},
          {"beta1", AttrValue::Float(o.beta1)},
          {"beta2", AttrValue::Float(o.beta2)},
          {"eps", AttrValue::Float(o.eps)},
          {"weight_decay", AttrValue::Float(o.weight_decay)},
          {"decoupled", AttrValue::Bool(o.decoupled)},
          {"step", AttrValue::Int(t)}};
}

const Shape kShape{2, 3};

// Three steps of the kernel with fresh random gradients, each compared to the reference.
void CheckSgd(const Sgd& o, DType dtype) {
  std::mt19937 rng(5);
  HostTensor param = Random(kShape, dtype, &rng);
  HostTensor buf = FromValues(kShape, dtype, std::vector<double>(6, 0.0));
  std::vector<double> p = param.Values(), b = buf.Values();
  for (int t = 1; t <= 3; ++t) {
    SCOPED_TRACE(t);
    HostTensor grad = Random(kShape, dtype, &rng);
    auto out = RunOp("sgd_update", {param, grad, buf}, SgdAttrs(o, t));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    SgdReference(o, t, p, grad.Values(), b);
    ExpectValues((*out)[0], p);
    ExpectValues((*out)[1], b);
    param = (*out)[0];
    buf = (*out)[1];
  }
}

void CheckAdam(const Adam& o, DType dtype) {
  std::mt19937 rng(7);
  HostTensor param = Random(kShape, dtype, &rng);
  HostTensor m = FromValues(kShape, dtype, std::vector<double>(6, 0.0));
  HostTensor v = m;
  std::vector<double> rp = param.Values(), rm = m.Values(), rv = v.Values();
  for (int t = 1; t <= 3; ++t) {
    SCOPED_TRACE(t);
    HostTensor grad = Random(kShape, dtype, &rng);
    auto out = RunOp("adam_update", {param, grad, m, v}, AdamAttrs(o, t));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    // adam_update_at_step reads the same step from a tensor: the same bits.
    const AttrMap attrs = AdamAttrs(o, t);
    AttrMap without_step;
    for (const auto& [name, value] : attrs.entries()) {
      if (name != "step") without_step.Set(name, value);
    }
    const HostTensor step = FromValues(Shape{}, DType::kI64, {static_cast<double>(t)});
    auto at_step = RunOp("adam_update_at_step", {param, grad, m, v, step}, without_step);
    ASSERT_TRUE(at_step.ok()) << at_step.status().ToString();
    for (int k = 0; k < 3; ++k) ExpectValues((*at_step)[k], (*out)[k].Values(), 0);
    AdamReference(o, t, rp, grad.Values(), rm, rv);
    ExpectValues((*out)[0], rp, dtype == DType::kF32 ? 1e-5 : 1e-12);
    ExpectValues((*out)[1], rm);
    ExpectValues((*out)[2], rv);
    param = (*out)[0];
    m = (*out)[1];
    v = (*out)[2];
  }
}

TEST(SgdUpdateKernelTest, MatchesTorchRules) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(DTypeName(dtype));
    CheckSgd({}, dtype);
    CheckSgd({0.05, 0.9, 0, 0, false}, dtype);
    CheckSgd({0.05, 0.9, 0.3, 0.01, false}, dtype);
    CheckSgd({0.05, 0.8, 0, 0.1, true}, dtype);
  }
}

TEST(AdamUpdateKernelTest, MatchesTorchRules) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(DTypeName(dtype));
    CheckAdam({}, dtype);
    CheckAdam({0.1, 0.8, 0.99, 1e-6, 0.05, false}, dtype);  // Adam, L2 weight decay
    CheckAdam({0.1, 0.8, 0.99, 1e-6, 0.05, true}, dtype);   // AdamW
  }
}

// A constant gradient 0.5 on parameter 1 with lr 0.1, by hand. SGD with momentum 0.9:
// b = 0.5, 0.95, 1.355; p = 0.95, 0.855, 0.7195. Adam: m_hat = 0.5 and v_hat = 0.25 at
// every step, so p moves by 0.1 * 0.5 / (0.5 + 1e-8) = 0.099999998 per step.
TEST(OptimUpdateKernelTest, HandComputedSteps) {
  HostTensor p = FromValues(Shape{1}, DType::kF64, {1});
  HostTensor g = FromValues(Shape{1}, DType::kF64, {0.5});
  HostTensor b = FromValues(Shape{1}, DType::kF64, {0});
  const double sgd_p[] = {0.95, 0.855, 0.7195}, sgd_b[] = {0.5, 0.95, 1.355};
  for (int t = 1; t <= 3; ++t) {
    auto out = RunOp("sgd_update", {p, g, b}, SgdAttrs({0.1, 0.9, 0, 0, false}, t));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ExpectValues((*out)[0], {sgd_p[t - 1]});
    ExpectValues((*out)[1], {sgd_b[t - 1]});
    p = (*out)[0];
    b = (*out)[1];
  }
  p = FromValues(Shape{1}, DType::kF64, {1});
  HostTensor m = FromValues(Shape{1}, DType::kF64, {0});
  HostTensor v = m;
  const double adam_m[] = {0.05, 0.095, 0.1355}, adam_v[] = {0.00025, 0.00049975, 0.00074925025};
  for (int t = 1; t <= 3; ++t) {
    auto out = RunOp("adam_update", {p, g, m, v}, AdamAttrs({0.1, 0.9, 0.999, 1e-8, 0, false}, t));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ExpectValues((*out)[0], {1 - t * 0.099999998}, 1e-9);
    ExpectValues((*out)[1], {adam_m[t - 1]}, 1e-12);
    ExpectValues((*out)[2], {adam_v[t - 1]}, 1e-12);
    p = (*out)[0];
    m = (*out)[1];
    v = (*out)[2];
  }
}

// core/optim's fused mode runs the kernels with outputs aliasing their inputs.
TEST(OptimUpdateKernelTest, OutputsMayAliasInputs) {
  auto def = op::OpRegistry::Global().Find("adam_update");
  ASSERT_TRUE(def.ok());
  KernelRegistry registry;
  ASSERT_TRUE(RegisterCpuKernels(&registry).ok());
  std::vector<double> p = {1, -2, 3}, g = {0.5, 0.25, -1}, m = {0.1, 0, 0.2}, v = {0.3, 0.1, 0};
  std::vector<double> rp = p, rm = m, rv = v;
  const Adam o{0.1, 0.9, 0.99, 1e-8, 0.1, true};
  AdamReference(o, 2, rp, g, rm, rv);
  const Shape s{3};
  LocalTensor ins[] = {{p.data(), s, DType::kF64},
                       {g.data(), s, DType::kF64},
                       {m.data(), s, DType::kF64},
                       {v.data(), s, DType::kF64}};
  LocalTensor outs[] = {ins[0], ins[2], ins[3]};
  const AttrMap attrs = AdamAttrs(o, 2);
  KernelContext ctx{*def, &attrs, ins, 4, outs, 3, nullptr};
  ASSERT_TRUE(registry.Find("adam_update", Device::kCpu)(ctx).ok());
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(p[i], rp[i], 1e-12);
    EXPECT_NEAR(m[i], rm[i], 1e-12);
    EXPECT_NEAR(v[i], rv[i], 1e-12);
  }
}

TEST(OptimUpdateKernelTest, MismatchedOperandsAreErrors) {
  HostTensor a = FromValues(Shape{3}, DType::kF32, {1, 2, 3});
  HostTensor b = FromValues(Shape{2}, DType::kF32, {1, 2});
  std::vector<HostTensor> outs = {a, a};
  EXPECT_EQ(ErrorOf("sgd_update", {a, a, b}, {}, outs),
            "sgd_update: input \"momentum_buf\" is [2] f32 but \"param\" is [3] f32");
  HostTensor i = FromValues(Shape{3}, DType::kI32, {1, 2, 3});
  EXPECT_EQ(
      ErrorOf("sgd_update", {i, i, i}, {}, {i, i}),
      "sgd_update: input \"param\" has dtype i32; the cpu kernel supports f32, f64, f16, bf16");
  EXPECT_EQ(ErrorOf("adam_update", {a, a, a, a}, {{"step", AttrValue::Int(0)}}, {a, a, a}),
            "adam_update: attribute \"step\" is 0; expected >= 1");
  const HostTensor step0 = FromValues(Shape{}, DType::kI64, {0});
  EXPECT_EQ(ErrorOf("adam_update_at_step", {a, a, a, a, step0}, {}, {a, a, a}),
            "adam_update_at_step: input \"step\" is 0; expected >= 1 (the number of this step, "
            "counting from 1)");
  EXPECT_EQ(ErrorOf("adam_update_at_step", {a, a, b, a, step0}, {}, {a, a, a}),
            "adam_update_at_step: input \"exp_avg\" is [2] f32 but \"param\" is [3] f32");
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
