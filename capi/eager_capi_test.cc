// Ops on eager tensors through the C API in a world of one rank: tess_op_call_apply, every
// typed op against a plain-loop oracle, bad inputs, and tess_explanation_last.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/tessera.h"

namespace tessera::capi_test {
namespace {

tess_tensor* const kSentinel = reinterpret_cast<tess_tensor*>(0x1);

class EagerCapiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(tess_runtime_init(), TESS_OK) << LastError(); }
};

// x: [2,3], y: [3] (broadcast along dim 0). Values avoid 0 so div is defined.
const std::vector<float> kX = {-1.5f, 2.0f, 0.5f, 3.0f, -4.0f, 1.0f};
const std::vector<float> kY = {2.0f, -0.5f, 4.0f};

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol * (1.0f + std::fabs(want[i]))) << "element " << i;
  }
}

TEST_F(EagerCapiTest, BinaryOpsBroadcastLikeNumpy) {
  TensorPtr x = FromHost(kX, {2, 3}, "cpu:[0]", "S(0)");
  TensorPtr y = FromHost(kY, {3}, "cpu:[0]", "B");
  using Fn = tess_status (*)(tess_tensor**, const tess_tensor*, const tess_tensor*);
  struct Case {
    const char* name;
    Fn fn;
    std::function<float(float, float)> oracle;
  };
  const std::vector<Case> cases = {
      {"add", tess_add, [](float a, float b) { return a + b; }},
      {"sub", tess_sub, [](float a, float b) { return a - b; }},
      {"mul", tess_mul, [](float a, float b) { return a * b; }},
      {"div", tess_div, [](float a, float b) { return a / b; }},
      {"maximum", tess_maximum, [](float a, float b) { return std::max(a, b); }},
      {"minimum", tess_minimum, [](float a, float b) { return std::min(a, b); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    tess_tensor* out = nullptr;
    ASSERT_EQ(c.fn(&out, x.get(), y.get()), TESS_OK) << LastError();
    TensorPtr owned(out);
    std::vector<float> want(6);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) want[i * 3 + j] = c.oracle(kX[i * 3 + j], kY[j]);
    }
    EXPECT_EQ(ShapeOf(out), (std::vector<int64_t>{2, 3}));
    ExpectNear(ToHost<float>(out), want, 1e-6f);
    // Bad inputs: NULLs, and shapes that do not broadcast.
    tess_tensor* untouched = kSentinel;
    EXPECT_EQ(c.fn(nullptr, x.get(), y.get()), TESS_INVALID_ARGUMENT);
    EXPECT_EQ(c.fn(&untouched, nullptr, y.get()), TESS_INVALID_ARGUMENT);
    EXPECT_EQ(LastError(), std::string("tess_") + c.name + ": argument \"x\" is NULL");
    EXPECT_EQ(c.fn(&untouched, x.get(), nullptr), TESS_INVALID_ARGUMENT);
    EXPECT_EQ(LastError(), std::string("tess_") + c.name + ": argument \"y\" is NULL");
    TensorPtr z = FromHost(std::vector<float>{1, 2}, {2}, "cpu:[0]", "B");
    EXPECT_EQ(c.fn(&untouched, x.get(), z.get()), TESS_INVALID_ARGUMENT);
    EXPECT_TRUE(ErrorHas(std::string("tess_") + c.name + ": " + c.name));
    EXPECT_TRUE(ErrorHas("[2,3]"));
    EXPECT_EQ(untouched, kSentinel);
  }
}

TEST_F(EagerCapiTest, UnaryOps) {
  const std::vector<float> v = {-2.0f, -0.5f, 0.0f, 0.25f, 1.0f, 3.0f};
  const std::vector<float> positive = {0.25f, 1.0f, 2.25f, 4.0f, 9.0f, 16.0f};
  using Fn = tess_status (*)(tess_tensor**, const tess_tensor*);
  struct Case {
    const char* name;
    Fn fn;
    std::function<float(float)> oracle;
    bool needs_positive;
  };
  const std::vector<Case> cases = {
      {"relu", tess_relu, [](float a) { return a > 0 ? a : 0.0f; }, false},
      {"gelu", tess_gelu, [](float a) { return 0.5f * a * (1.0f + std::erf(a / std::sqrt(2.0f))); },
       false},
      {"sigmoid", tess_sigmoid, [](float a) { return 1.0f / (1.0f + std::exp(-a)); }, false},
      {"tanh", tess_tanh, [](float a) { return std::tanh(a); }, false},
      {"exp", tess_exp, [](float a) { return std::exp(a); }, false},
      {"neg", tess_neg, [](float a) { return -a; }, false},
      {"sqrt", tess_sqrt, [](float a) { return std::sqrt(a); }, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::vector<float>& in = c.needs_positive ? positive : v;
    TensorPtr x = FromHost(in, {2, 3}, "cpu:[0]", "S(1)");
    tess_tensor* out = nullptr;
    ASSERT_EQ(c.fn(&out, x.get()), TESS_OK) << LastError();
    TensorPtr owned(out);
    std::vector<float> want;
    for (float a : in) want.push_back(c.oracle(a));
    // gelu may use the tanh approximation (|error| < 1e-3).
    ExpectNear(ToHost<float>(out), want, std::string(c.name) == "gelu" ? 1e-3f : 1e-5f);
    tess_tensor* untouched = kSentinel;
    EXPECT_EQ(c.fn(&untouched, nullptr), TESS_INVALID_ARGUMENT);
    EXPECT_EQ(LastError(), std::string("tess_") + c.name + ": argument \"x\" is NULL");
    EXPECT_EQ(c.fn(nullptr, x.get()), TESS_INVALID_ARGUMENT);
    EXPECT_EQ(untouched, kSentinel);
  }
  // Floating-only ops reject integers, naming the op.
  TensorPtr ints = FromHost(std::vector<int32_t>{1, 2}, {2}, "cpu:[0]", "B");
  tess_tensor* out = kSentinel;
  EXPECT_EQ(tess_gelu(&out, ints.get()), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("tess_gelu: gelu"));
  EXPECT_TRUE(ErrorHas("i32"));
  EXPECT_EQ(out, kSentinel);
  // relu and neg take integers.
  ASSERT_EQ(tess_neg(&out, ints.get()), TESS_OK) << LastError();
  TensorPtr negated(out);
  EXPECT_EQ(ToHost<int32_t>(out), (std::vector<int32_t>{-1, -2}));
}

std::vector<double> MatmulOracle(const std::vector<double>& a, const std::vector<double>& b,
                                 int64_t m, int64_t k, int64_t n, bool ta, bool tb) {
  std::vector<double> out(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t p = 0; p < k; ++p) {
        const double av = ta ? a[p * m + i] : a[i * k + p];
        const double bv = tb ? b[j * k + p] : b[p * n + j];
        out[i * n + j] += av * bv;
      }
    }
  }
  return out;
}

TEST_F(EagerCapiTest, MatmulEveryTranspose) {
  const int64_t m = 3, k = 4, n = 2;
  std::vector<double> a(m * k), b(k * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i % 5) - 2;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<double>(i % 3) + 0.5;
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      SCOPED_TRACE(std::to_string(ta) + std::to_string(tb));
      TensorPtr at = FromHost(a, ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k},
                              "cpu:[0]", "S(0)");
      TensorPtr bt =
          FromHost(b, tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, "cpu:[0]", "B");
      tess_tensor* out = nullptr;
      ASSERT_EQ(tess_matmul(&out, at.get(), bt.get(), ta, tb), TESS_OK) << LastError();
      TensorPtr owned(out);
      EXPECT_EQ(ShapeOf(out), (std::vector<int64_t>{m, n}));
      EXPECT_EQ(ToHost<double>(out), MatmulOracle(a, b, m, k, n, ta, tb));
    }
  }
  TensorPtr a34 = FromHost(a, {3, 4}, "cpu:[0]", "B");
  TensorPtr b34 = FromHost(a, {3, 4}, "cpu:[0]", "B");
  tess_tensor* out = kSentinel;
  EXPECT_EQ(tess_matmul(&out, a34.get(), b34.get(), 0, 0), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("tess_matmul: matmul"));
  EXPECT_TRUE(ErrorHas("[3,4]"));
  EXPECT_EQ(tess_matmul(&out, nullptr, b34.get(), 0, 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_matmul: argument \"a\" is NULL");
  EXPECT_EQ(tess_matmul(&out, a34.get(), nullptr, 0, 1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_matmul: argument \"b\" is NULL");
  EXPECT_EQ(out, kSentinel);
  // transpose_b makes the same pair fit: [3,4] x [4,3].
  ASSERT_EQ(tess_matmul(&out, a34.get(), b34.get(), 0, 7), TESS_OK) << LastError();
  TensorPtr fits(out);
  EXPECT_EQ(ShapeOf(out), (std::vector<int64_t>{3, 3}));
}

TEST_F(EagerCapiTest, Reductions) {
  // x: [2,3,2], values small integers so every sum is exact.
  std::vector<float> x(12);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 5) % 7) - 3;
  TensorPtr t = FromHost(x, {2, 3, 2}, "cpu:[0]", "S(1)");
  using Fn = tess_status (*)(tess_tensor**, const tess_tensor*, const int64_t*, size_t, int32_t);
  struct Case {
    const char* name;
    Fn fn;
    float init;
    std::function<float(float, float)> combine;
    bool mean;
  };
  const std::vector<Case> cases = {
      {"reduce_sum", tess_reduce_sum, 0, [](float a, float b) { return a + b; }, false},
      {"reduce_mean", tess_reduce_mean, 0, [](float a, float b) { return a + b; }, true},
      {"reduce_max", tess_reduce_max, -1e30f, [](float a, float b) { return std::max(a, b); },
       false},
      {"reduce_min", tess_reduce_min, 1e30f, [](float a, float b) { return std::min(a, b); },
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    // Over axis 1 (given as -2), keeping it.
    const int64_t axes[] = {-2};
    tess_tensor* out = nullptr;
    ASSERT_EQ(c.fn(&out, t.get(), axes, 1, 1), TESS_OK) << LastError();
    TensorPtr kept(out);
    EXPECT_EQ(ShapeOf(out), (std::vector<int64_t>{2, 1, 2}));
    std::vector<float> want(4);
    for (int i = 0; i < 2; ++i) {
      for (int k = 0; k < 2; ++k) {
        float acc = c.init;
        for (int j = 0; j < 3; ++j) acc = c.combine(acc, x[(i * 3 + j) * 2 + k]);
        want[i * 2 + k] = c.mean ? acc / 3 : acc;
      }
    }
    ExpectNear(ToHost<float>(out), want, 1e-6f);
    // Over every axis (no axes), dropping them.
    ASSERT_EQ(c.fn(&out, t.get(), nullptr, 0, 0), TESS_OK) << LastError();
    TensorPtr all(out);
    EXPECT_EQ(ShapeOf(out), std::vector<int64_t>{});
    float acc = c.init;
    for (float v : x) acc = c.combine(acc, v);
    ExpectNear(ToHost<float>(out), {c.mean ? acc / 12 : acc}, 1e-6f);

    tess_tensor* untouched = kSentinel;
    const int64_t bad_axes[] = {3};
    EXPECT_EQ(c.fn(&untouched, t.get(), bad_axes, 1, 0), TESS_INVALID_ARGUMENT);
    EXPECT_TRUE(ErrorHas(std::string("tess_") + c.name + ": " + c.name));
    EXPECT_TRUE(ErrorHas("3"));
    EXPECT_EQ(c.fn(&untouched, t.get(), nullptr, 1, 0), TESS_INVALID_ARGUMENT);
    EXPECT_EQ(LastError(), std::string("tess_") + c.name + ": argument \"axes\" is NULL");
    EXPECT_EQ(c.fn(&untouched, nullptr, axes, 1, 0), TESS_INVALID_ARGUMENT);
    EXPECT_EQ(untouched, kSentinel);
  }
}

TEST_F(EagerCapiTest, Softmax) {
  const std::vector<double> x = {1, 2, 3, -1, 0, 4};
  TensorPtr t = FromHost(x, {2, 3}, "cpu:[0]", "B");
  for (int64_t axis : {-1, 0}) {
    SCOPED_TRACE(axis);
    tess_tensor* out = nullptr;
    ASSERT_EQ(tess_softmax(&out, t.get(), axis), TESS_OK) << LastError();
    TensorPtr owned(out);
    std::vector<double> want(6);
    if (axis == -1) {
      for (int i = 0; i < 2; ++i) {
        double sum = 0;
        for (int j = 0; j < 3; ++j) sum += std::exp(x[i * 3 + j]);
        for (int j = 0; j < 3; ++j) want[i * 3 + j] = std::exp(x[i * 3 + j]) / sum;
      }
    } else {
      for (int j = 0; j < 3; ++j) {
        const double sum = std::exp(x[j]) + std::exp(x[3 + j]);
        for (int i = 0; i < 2; ++i) want[i * 3 + j] = std::exp(x[i * 3 + j]) / sum;
      }
    }
    const std::vector<double> got = ToHost<double>(out);
    for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
  }
  tess_tensor* out = kSentinel;
  EXPECT_EQ(tess_softmax(&out, t.get(), 2), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("tess_softmax: softmax"));
  EXPECT_EQ(tess_softmax(&out, nullptr, 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(out, kSentinel);
}

// The generated typed ops beyond the original hand-written set: a repeated input
// (add_n, concat), several outputs (layer_norm), a dtype attribute (cast), int lists
// (transpose, slice), floats (scalar_mul), against plain loops.
TEST_F(EagerCapiTest, GeneratedOpsOfEveryParameterKind) {
  TensorPtr x = FromHost(kX, {2, 3}, "cpu:[0]", "S(0)");
  TensorPtr y = FromHost(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3}, "cpu:[0]", "S(0)");
  {
    const tess_tensor* in[] = {x.get(), y.get(), x.get()};
    tess_tensor* out = nullptr;
    ASSERT_EQ(tess_add_n(&out, in, 3), TESS_OK) << LastError();
    TensorPtr owned(out);
    std::vector<float> want(6);
    for (int i = 0; i < 6; ++i) want[i] = 2 * kX[i] + static_cast<float>(i + 1);
    ExpectNear(ToHost<float>(out), want, 1e-6f);
    in[1] = nullptr;
    tess_tensor* untouched = kSentinel;
    EXPECT_EQ(tess_add_n(&untouched, in, 3), TESS_INVALID_ARGUMENT);
    EXPECT_TRUE(ErrorHas("tess_add_n: in[1] is NULL"));
    EXPECT_EQ(untouched, kSentinel);
  }
  {
    const tess_tensor* in[] = {x.get(), y.get()};
    tess_tensor* out = nullptr;
    ASSERT_EQ(tess_concat(&out, in, 2, 1), TESS_OK) << LastError();
    TensorPtr owned(out);
    EXPECT_EQ(ShapeOf(out), (std::vector<int64_t>{2, 6}));
    std::vector<float> want;
    for (int r = 0; r < 2; ++r) {
      for (int c = 0; c < 3; ++c) want.push_back(kX[r * 3 + c]);
      for (int c = 0; c < 3; ++c) want.push_back(static_cast<float>(r * 3 + c + 1));
    }
    ExpectNear(ToHost<float>(out), want, 0);
  }
  {
    TensorPtr gamma = FromHost(std::vector<float>{1, 1, 1}, {3}, "cpu:[0]", "B");
    TensorPtr beta = FromHost(std::vector<float>{0, 0, 0}, {3}, "cpu:[0]", "B");
    tess_tensor *yn = nullptr, *mean = nullptr, *inv = nullptr;
    ASSERT_EQ(tess_layer_norm(&yn, &mean, &inv, y.get(), gamma.get(), beta.get(), -1, -1, 1e-5),
              TESS_OK)
        << LastError();
    TensorPtr o1(yn), o2(mean), o3(inv);
    // Rows {1,2,3} and {4,5,6}: mean 2 and 5, variance 2/3.
    std::vector<float> means = ToHost<float>(mean);
    ASSERT_EQ(means.size(), 2u);
    EXPECT_NEAR(means[0], 2.0f, 1e-6f);
    EXPECT_NEAR(means[1], 5.0f, 1e-6f);
    const float inv_sd = 1.0f / std::sqrt(2.0f / 3.0f + 1e-5f);
    ExpectNear(ToHost<float>(yn), {-inv_sd, 0, inv_sd, -inv_sd, 0, inv_sd}, 1e-5f);
  }
  {
    tess_tensor* out = nullptr;
    ASSERT_EQ(tess_cast(&out, x.get(), TESS_DTYPE_F64), TESS_OK) << LastError();
    TensorPtr owned(out);
    std::vector<double> want(kX.begin(), kX.end());
    EXPECT_EQ(ToHost<double>(out), want);
    tess_tensor* untouched = kSentinel;
    EXPECT_EQ(tess_cast(&untouched, x.get(), 42), TESS_INVALID_ARGUMENT);
    EXPECT_TRUE(ErrorHas("tess_cast: attribute \"dtype\": dtype value 42 is not a known dtype"));
    EXPECT_EQ(untouched, kSentinel);
  }
  {
    const int64_t perm[] = {1, 0};
    tess_tensor* out = nullptr;
    ASSERT_EQ(tess_transpose(&out, x.get(), perm, 2), TESS_OK) << LastError();
    TensorPtr owned(out);
    ExpectNear(ToHost<float>(out), {kX[0], kX[3], kX[1], kX[4], kX[2], kX[5]}, 0);
    const int64_t start[] = {0, 1}, stop[] = {2, 3}, step[] = {1, 1};
    tess_tensor* sliced = nullptr;
    ASSERT_EQ(tess_slice(&sliced, x.get(), start, 2, stop, 2, step, 2), TESS_OK) << LastError();
    TensorPtr owned2(sliced);
    ExpectNear(ToHost<float>(sliced), {kX[1], kX[2], kX[4], kX[5]}, 0);
  }
  {
    tess_tensor* out = nullptr;
    ASSERT_EQ(tess_scalar_mul(&out, x.get(), -2.0), TESS_OK) << LastError();
    TensorPtr owned(out);
    std::vector<float> want(6);
    for (int i = 0; i < 6; ++i) want[i] = -2 * kX[i];
    ExpectNear(ToHost<float>(out), want, 0);
  }
}

TEST_F(EagerCapiTest, PlacementsMustMatch) {
  TensorPtr x = FromHost(kX, {2, 3}, "cpu:[0]", "B");
  TensorPtr y = FromHost(kX, {2, 3}, "cpu:[[0]]", "(B, B)");
  tess_tensor* out = kSentinel;
  EXPECT_EQ(tess_add(&out, x.get(), y.get()), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("cpu:[0]"));
  EXPECT_TRUE(ErrorHas("cpu:[[0]]"));
  EXPECT_EQ(out, kSentinel);
}

TEST_F(EagerCapiTest, ApplyRunsAnOpCall) {
  TensorPtr x = FromHost(kX, {2, 3}, "cpu:[0]", "S(0)");
  TensorPtr y = FromHost(kY, {3}, "cpu:[0]", "B");
  tess_op_call* c = nullptr;
  ASSERT_EQ(tess_op_call_create(&c, "scalar_mul"), TESS_OK);
  OpCallPtr call(c);
  ASSERT_EQ(tess_op_call_set_attr_float(c, "value", -2.0), TESS_OK);
  tess_tensor* outputs[2] = {kSentinel, kSentinel};
  size_t n = 0;
  const tess_tensor* inputs[] = {x.get()};
  ASSERT_EQ(tess_op_call_apply(outputs, 2, &n, c, inputs, 1), TESS_OK) << LastError();
  ASSERT_EQ(n, 1u);
  TensorPtr owned(outputs[0]);
  EXPECT_EQ(outputs[1], kSentinel);
  std::vector<float> want;
  for (float v : kX) want.push_back(v * -2.0f);
  EXPECT_EQ(ToHost<float>(outputs[0]), want);

  // A constraint pins the output's nd-sbp (on one rank SBP is only a label).
  OpCallPtr add;
  ASSERT_EQ(tess_op_call_create(&c, "add"), TESS_OK);
  add.reset(c);
  NdSbpPtr s1 = NdSbp("S(1)");
  ASSERT_EQ(tess_op_call_constrain_output(c, 0, s1.get()), TESS_OK);
  const tess_tensor* pair[] = {x.get(), y.get()};
  ASSERT_EQ(tess_op_call_apply(outputs, 1, &n, c, pair, 2), TESS_OK) << LastError();
  TensorPtr sum(outputs[0]);
  EXPECT_EQ(NdSbpText(outputs[0]), "S(1)");
}

TEST_F(EagerCapiTest, ApplyBadInput) {
  TensorPtr x = FromHost(kX, {2, 3}, "cpu:[0]", "S(0)");
  tess_op_call* c = nullptr;
  ASSERT_EQ(tess_op_call_create(&c, "relu"), TESS_OK);
  OpCallPtr relu(c);
  tess_tensor* outputs[1] = {kSentinel};
  size_t n = 77;
  const tess_tensor* inputs[] = {x.get()};
  EXPECT_EQ(tess_op_call_apply(outputs, 0, &n, c, inputs, 1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_apply: outputs_capacity is 0 but \"relu\" has 1 output");
  EXPECT_EQ(tess_op_call_apply(nullptr, 1, &n, c, inputs, 1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_apply: argument \"outputs\" is NULL");
  EXPECT_EQ(tess_op_call_apply(outputs, 1, nullptr, c, inputs, 1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_apply: argument \"num_outputs\" is NULL");
  EXPECT_EQ(tess_op_call_apply(outputs, 1, &n, nullptr, inputs, 1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_apply: argument \"call\" is NULL");
  EXPECT_EQ(tess_op_call_apply(outputs, 1, &n, c, nullptr, 1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_apply: argument \"inputs\" is NULL");
  const tess_tensor* null_input[] = {nullptr};
  EXPECT_EQ(tess_op_call_apply(outputs, 1, &n, c, null_input, 1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_apply: inputs[0] is NULL");
  // Wrong input count: the op says what it takes.
  const tess_tensor* two[] = {x.get(), x.get()};
  EXPECT_EQ(tess_op_call_apply(outputs, 1, &n, c, two, 2), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("tess_op_call_apply: relu"));
  // A missing required attribute.
  OpCallPtr scalar_add;
  ASSERT_EQ(tess_op_call_create(&c, "scalar_add"), TESS_OK);
  scalar_add.reset(c);
  EXPECT_EQ(tess_op_call_apply(outputs, 1, &n, c, inputs, 1), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("value"));
  // Input metas belong to inference.
  OpCallPtr with_metas;
  ASSERT_EQ(tess_op_call_create(&c, "relu"), TESS_OK);
  with_metas.reset(c);
  PlacementPtr p = Placement("cpu:[0]");
  NdSbpPtr s = NdSbp("S(0)");
  const int64_t shape[] = {2, 3};
  ASSERT_EQ(tess_op_call_add_input(c, shape, 2, TESS_DTYPE_F32, p.get(), s.get()), TESS_OK);
  EXPECT_EQ(tess_op_call_apply(outputs, 1, &n, c, inputs, 1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(
      LastError(),
      "tess_op_call_apply: the call of \"relu\" has 1 input metas; tess_op_call_add_input is for "
      "inference (tess_op_call_infer, tess_op_call_explain), while tess_op_call_apply takes its "
      "inputs as tensors: "
      "use a call without input metas");
  EXPECT_EQ(outputs[0], kSentinel);
  EXPECT_EQ(n, 77u);
  // Unknown ops fail when the call is made.
  EXPECT_EQ(tess_op_call_create(&c, "rleu"), TESS_NOT_FOUND);
  EXPECT_TRUE(ErrorHas("relu"));
}

TEST_F(EagerCapiTest, ExplainLast) {
  // A fresh thread has run no op.
  std::thread([] {
    tess_explanation* e = nullptr;
    EXPECT_EQ(tess_explanation_last(&e), TESS_FAILED_PRECONDITION);
    EXPECT_EQ(LastError(), "tess_explanation_last: this thread has run no op yet");
    EXPECT_EQ(e, nullptr);
  }).join();

  TensorPtr a = FromHost(std::vector<float>(12, 1.0f), {3, 4}, "cpu:[0]", "S(0)");
  tess_tensor* out = nullptr;
  ASSERT_EQ(tess_matmul(&out, a.get(), a.get(), 0, 1), TESS_OK) << LastError();
  TensorPtr owned(out);
  a.reset();  // the record keeps metas, not tensors
  tess_explanation* e = nullptr;
  ASSERT_EQ(tess_explanation_last(&e), TESS_OK) << LastError();
  ExplanationPtr ex(e);
  const std::string text = tess_explanation_text(e);
  EXPECT_NE(text.find("matmul"), std::string::npos) << text;
  EXPECT_NE(text.find("transpose_b=true"), std::string::npos) << text;
  EXPECT_NE(std::string(tess_explanation_json(e)).find("\"op\": \"matmul\""), std::string::npos)
      << tess_explanation_json(e);
  EXPECT_STREQ(tess_explanation_failure(e), "");

  // A failed op is the last one too.
  TensorPtr x = FromHost(kX, {2, 3}, "cpu:[0]", "B");
  TensorPtr z = FromHost(std::vector<float>{1, 2}, {2}, "cpu:[0]", "B");
  ASSERT_EQ(tess_sub(&out, x.get(), z.get()), TESS_INVALID_ARGUMENT);
  e = reinterpret_cast<tess_explanation*>(0x1);
  EXPECT_EQ(tess_explanation_last(&e), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("tess_explanation_last: sub"));
  EXPECT_EQ(e, reinterpret_cast<tess_explanation*>(0x1));
  EXPECT_EQ(tess_explanation_last(nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_explanation_last: argument \"out\" is NULL");
}

}  // namespace
}  // namespace tessera::capi_test
