// The seed articles' examples, end to end through the eager interpreter under mpirun
// with 1..4 ranks, against plain-loop oracles:
//   - 004 (OneFlow "Global View"): Y0 = A0 @ B0 with A0 S(0), B0 B on P0; Y0 moved
//     to P1 as B; Y2 = Y0 @ B1 with B1 S(1) on P1;
//   - 001 (SBP signature inference): matmul's five signatures, each picked with no
//     boxing when the inputs already match it, and A S(0) x B S(0) refused;
//   - a chain whose SBPs must change: matmul(S(0), B), then a matmul with an S(0)
//     weight, which no signature accepts as is;
//   - one SGD step of a tanh MLP, data-parallel, model-parallel (Megatron-style
//     column- then row-split weights) and both at once on [[0,1],[2,3]].
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/eager/interpreter.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"
#include "tests/eager/world_util.h"

namespace tessera::eager {
namespace {

using tensor::FromLogical;
using tensor::Randn;
using tensor::Tensor;
using tensor::ToGlobal;
using tensor::ToHost;
using tensor::Zeros;

#define SEED_CONCAT_INNER(a, b) a##b
#define SEED_CONCAT(a, b) SEED_CONCAT_INNER(a, b)
// `lhs = value of expr`, or a test failure and return. Every rank takes the same
// branch (the calls are SPMD), so no rank is left waiting in a collective.
#define ASSERT_OK_AND_ASSIGN(lhs, expr)                                       \
  auto SEED_CONCAT(result_, __LINE__) = (expr);                               \
  ASSERT_TRUE(SEED_CONCAT(result_, __LINE__).ok())                            \
      << #expr << ": " << SEED_CONCAT(result_, __LINE__).status().ToString(); \
  lhs = std::move(SEED_CONCAT(result_, __LINE__)).value()

using eager_test::RanksPlacement;
using eager_test::WorldPlacement;
using eager_test::WorldRank;
using eager_test::WorldSize;

NdSbp Nd(const std::string& text) { return NdSbp::Parse(text).value(); }
Shape Sh(std::vector<int64_t> dims) { return Shape::Make(dims).value(); }

// The first output of `op`.
Result<Tensor> Op(const char* op, const std::vector<Tensor>& inputs, op::AttrMap attrs = {}) {
  TESS_ASSIGN_OR_RETURN(std::vector<Tensor> out, Apply(op, inputs, attrs));
  return out[0];
}

// Whether the most recent Apply boxed any input.
bool LastApplyBoxed() {
  std::shared_ptr<const infer::InferResult> r = LastInferResult();
  if (r == nullptr) return false;
  for (bool b : r->needs_boxing) {
    if (b) return true;
  }
  return false;
}

std::vector<double> Host(const Tensor& t) {
  std::vector<float> v(static_cast<size_t>(t->shape().num_elements()));
  Status s = ToHost(t, v.data());
  EXPECT_TRUE(s.ok()) << s.ToString();
  return std::vector<double>(v.begin(), v.end());
}

// Values in [-1.2, 1.2] in steps of 0.1 (keeps tanh away from saturation).
std::vector<float> Pattern(int64_t n, int seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7 + seed * 5) % 25 - 12) * 0.1f;
  return v;
}

// Row-major out[m,n] = sum_k A[m,k] B[k,n], where A is a [k,m] array when `ta` and B
// a [n,k] array when `tb`.
std::vector<double> MatMul(const std::vector<double>& a, const std::vector<double>& b, int64_t m,
                           int64_t k, int64_t n, bool ta = false, bool tb = false) {
  std::vector<double> out(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) {
        acc += (ta ? a[p * m + i] : a[i * k + p]) * (tb ? b[j * k + p] : b[p * n + j]);
      }
      out[i * n + j] = acc;
    }
  }
  return out;
}

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, double rel,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], rel * std::max(1.0, std::abs(want[i])))
        << what << " element " << i;
  }
}

TEST(SeedExamplesTest, GlobalViewMatmulThenToGlobalThenMatmul) {
  // Article 004 uses P0 = [0,1] and P1 = [2,3]; with other worlds the first half and
  // the rest (both cpu:[0] on one rank).
  const int n = WorldSize();
  const int32_t h = n == 1 ? 1 : n / 2;
  const Placement p0 = RanksPlacement(0, h);
  const Placement p1 = n == 1 ? p0 : RanksPlacement(h, n - h);
  ASSERT_OK_AND_ASSIGN(Tensor a0, Randn(Sh({4, 5}), DType::kF32, 1, p0, Nd("S(0)")));
  ASSERT_OK_AND_ASSIGN(Tensor b0, Randn(Sh({5, 8}), DType::kF32, 2, p0, Nd("B")));
  ASSERT_OK_AND_ASSIGN(Tensor y0, Op("matmul", {a0, b0}));
  if (p0.parallel_num() > 1) {
    EXPECT_EQ(y0->nd_sbp(), Nd("S(0)"));
  }
  EXPECT_FALSE(LastApplyBoxed());
  ASSERT_OK_AND_ASSIGN(Tensor y0_on_p1, ToGlobal(y0, p1, Nd("B")));
  ASSERT_OK_AND_ASSIGN(Tensor b1, Randn(Sh({8, 6}), DType::kF32, 3, p1, Nd("S(1)")));
  ASSERT_OK_AND_ASSIGN(Tensor y2, Op("matmul", {y0_on_p1, b1}));
  EXPECT_EQ(y2->placement(), p1);
  if (p1.parallel_num() > 1) {
    EXPECT_EQ(y2->nd_sbp(), Nd("S(1)"));
  }
  EXPECT_FALSE(LastApplyBoxed());
  EXPECT_EQ(y2->has_local(), p1.contains(WorldRank()));

  const std::vector<double> a = Host(a0), b = Host(b0), c = Host(b1);
  const std::vector<double> want0 = MatMul(a, b, 4, 5, 8);
  ExpectClose(Host(y0), want0, 1e-5, "Y0");
  ExpectClose(Host(y2), MatMul(want0, c, 4, 8, 6), 1e-5, "Y2");
}

// Article 001's matmul signatures: inputs already laid out as a signature wants are
// not moved, and the output has the signature's SBP.
TEST(SeedExamplesTest, MatmulPicksTheSignatureItsInputsAlreadyMatch) {
  const Placement world = WorldPlacement();
  const int64_t m = 7, k = 5, nn = 6;
  const std::vector<float> a = Pattern(m * k, 1), b = Pattern(k * nn, 2);
  const std::vector<double> want = MatMul({a.begin(), a.end()}, {b.begin(), b.end()}, m, k, nn);
  struct Rule {
    const char* a;
    const char* b;
    const char* out;
  };
  for (const Rule& r : {Rule{"S(0)", "B", "S(0)"}, Rule{"B", "S(1)", "S(1)"},
                        Rule{"S(1)", "S(0)", "P"}, Rule{"P", "B", "P"}, Rule{"B", "P", "P"}}) {
    SCOPED_TRACE(std::string("a ") + r.a + ", b " + r.b);
    ASSERT_OK_AND_ASSIGN(Tensor ta, FromLogical(a.data(), Sh({m, k}), DType::kF32, world, Nd(r.a)));
    ASSERT_OK_AND_ASSIGN(Tensor tb,
                         FromLogical(b.data(), Sh({k, nn}), DType::kF32, world, Nd(r.b)));
    ASSERT_OK_AND_ASSIGN(Tensor out, Op("matmul", {ta, tb}));
    if (WorldSize() > 1) {
      EXPECT_EQ(out->nd_sbp(), Nd(r.out));
      EXPECT_FALSE(LastApplyBoxed());
    }
    ExpectClose(Host(out), want, 1e-6, "A @ B");
  }
}

TEST(SeedExamplesTest, MatmulRefusesSplitRowsOfBothOperands) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs 2 ranks";
  const Placement world = WorldPlacement();
  ASSERT_OK_AND_ASSIGN(Tensor a, Zeros(Sh({4, 6}), DType::kF32, world, Nd("S(0)")));
  ASSERT_OK_AND_ASSIGN(Tensor b, Zeros(Sh({6, 3}), DType::kF32, world, Nd("S(0)")));
  Status s = Apply("matmul", {a, b}, {}, {{false, 0, Nd("S(0)")}, {false, 1, Nd("S(0)")}}).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("no SBP signature fits"), std::string::npos) << s.message();
}

// matmul(S(0), B) gives S(0) rows; the next weight is S(0) too, which no matmul
// signature takes with an S(0) left operand, so the interpreter boxes one of them.
TEST(SeedExamplesTest, ChainWhoseSbpMustChange) {
  const Placement world = WorldPlacement();
  const int64_t rows = 7, k = 4, hid = 5, out = 3;
  const std::vector<float> x = Pattern(rows * k, 1), w1 = Pattern(k * hid, 2),
                           w2 = Pattern(hid * out, 3);
  ASSERT_OK_AND_ASSIGN(Tensor tx,
                       FromLogical(x.data(), Sh({rows, k}), DType::kF32, world, Nd("S(0)")));
  ASSERT_OK_AND_ASSIGN(Tensor tw1,
                       FromLogical(w1.data(), Sh({k, hid}), DType::kF32, world, Nd("B")));
  ASSERT_OK_AND_ASSIGN(Tensor tw2,
                       FromLogical(w2.data(), Sh({hid, out}), DType::kF32, world, Nd("S(0)")));
  ASSERT_OK_AND_ASSIGN(Tensor th, Op("matmul", {tx, tw1}));
  ASSERT_OK_AND_ASSIGN(Tensor ty, Op("matmul", {th, tw2}));
  if (WorldSize() > 1) {
    EXPECT_EQ(th->nd_sbp(), Nd("S(0)"));
    EXPECT_TRUE(LastApplyBoxed());
    if (WorldRank() == 0) {
      std::printf(
          "chain: h %s @ w2 S(0) ran as input nd-sbps %s, %s -> %s\n",
          th->nd_sbp().ToString().c_str(), LastInferResult()->input_nd_sbps[0].ToString().c_str(),
          LastInferResult()->input_nd_sbps[1].ToString().c_str(), ty->nd_sbp().ToString().c_str());
    }
  }
  const std::vector<double> hidden =
      MatMul({x.begin(), x.end()}, {w1.begin(), w1.end()}, rows, k, hid);
  ExpectClose(Host(ty), MatMul(hidden, {w2.begin(), w2.end()}, rows, hid, out), 1e-6, "Y");
}

struct MlpLayout {
  const char* name;
  Placement placement;
  NdSbp x, w1, w2;  // targets share x's layout
  NdSbp h, y;       // what the forward matmuls must produce without boxing
};

std::vector<MlpLayout> MlpLayouts() {
  const Placement world = WorldPlacement();
  std::vector<MlpLayout> out = {
      {"data-parallel", world, Nd("S(0)"), Nd("B"), Nd("B"), Nd("S(0)"), Nd("S(0)")},
      // Column-split W1 then row-split W2: the hidden layer never moves, Y is partial.
      {"model-parallel", world, Nd("B"), Nd("S(1)"), Nd("S(0)"), Nd("S(1)"), Nd("P")},
  };
  if (WorldSize() == 4) {
    out.push_back({"data x model on [[0,1],[2,3]]", Placement::Parse("cpu:[[0,1],[2,3]]").value(),
                   Nd("(S(0), B)"), Nd("(B, S(1))"), Nd("(B, S(0))"), Nd("(S(0), S(1))"),
                   Nd("(S(0), P)")});
  }
  return out;
}

// One SGD step of loss = sum((tanh(X W1) W2 - T)^2), written with the op set:
//   H = X W1, A = tanh(H), Y = A W2, E = Y - T, loss = sum(E * E),
//   dY = 2E, dW2 = A^T dY, dA = dY W2^T, dH = dA * (1 - A*A), dW1 = X^T dH,
//   W1' = W1 - lr dW1, W2' = W2 - lr dW2.
TEST(SeedExamplesTest, MlpTrainingStepMatchesLoops) {
  const int64_t batch = 7, din = 5, hid = 6, dout = 3;
  const double lr = 0.1;
  const std::vector<float> x = Pattern(batch * din, 1), t = Pattern(batch * dout, 2),
                           w1 = Pattern(din * hid, 3), w2 = Pattern(hid * dout, 4);

  // The oracle, in double.
  const std::vector<double> X(x.begin(), x.end()), T(t.begin(), t.end()), W1(w1.begin(), w1.end()),
      W2(w2.begin(), w2.end());
  const std::vector<double> H = MatMul(X, W1, batch, din, hid);
  std::vector<double> A(H.size());
  for (size_t i = 0; i < H.size(); ++i) A[i] = std::tanh(H[i]);
  const std::vector<double> Y = MatMul(A, W2, batch, hid, dout);
  std::vector<double> dY(Y.size());
  double loss = 0;
  for (size_t i = 0; i < Y.size(); ++i) {
    loss += (Y[i] - T[i]) * (Y[i] - T[i]);
    dY[i] = 2 * (Y[i] - T[i]);
  }
  const std::vector<double> dW2 = MatMul(A, dY, hid, batch, dout, /*ta=*/true);
  std::vector<double> dH = MatMul(dY, W2, batch, dout, hid, false, /*tb=*/true);
  for (size_t i = 0; i < dH.size(); ++i) dH[i] *= 1 - A[i] * A[i];
  const std::vector<double> dW1 = MatMul(X, dH, din, batch, hid, /*ta=*/true);
  std::vector<double> new_w1(W1.size()), new_w2(W2.size());
  for (size_t i = 0; i < W1.size(); ++i) new_w1[i] = W1[i] - lr * dW1[i];
  for (size_t i = 0; i < W2.size(); ++i) new_w2[i] = W2[i] - lr * dW2[i];

  const op::AttrMap ta{{"transpose_a", op::AttrValue::Bool(true)}};
  const op::AttrMap tb{{"transpose_b", op::AttrValue::Bool(true)}};
  auto scale = [](double v) { return op::AttrMap{{"value", op::AttrValue::Float(v)}}; };
  for (const MlpLayout& l : MlpLayouts()) {
    SCOPED_TRACE(l.name);
    const bool parallel = l.placement.parallel_num() > 1;
    ASSERT_OK_AND_ASSIGN(Tensor tx,
                         FromLogical(x.data(), Sh({batch, din}), DType::kF32, l.placement, l.x));
    ASSERT_OK_AND_ASSIGN(Tensor tt,
                         FromLogical(t.data(), Sh({batch, dout}), DType::kF32, l.placement, l.x));
    ASSERT_OK_AND_ASSIGN(Tensor tw1,
                         FromLogical(w1.data(), Sh({din, hid}), DType::kF32, l.placement, l.w1));
    ASSERT_OK_AND_ASSIGN(Tensor tw2,
                         FromLogical(w2.data(), Sh({hid, dout}), DType::kF32, l.placement, l.w2));
    // Forward: the layouts are chosen so that neither matmul moves data.
    ASSERT_OK_AND_ASSIGN(Tensor th, Op("matmul", {tx, tw1}));
    if (parallel) {
      EXPECT_EQ(th->nd_sbp(), l.h);
    }
    EXPECT_FALSE(LastApplyBoxed());
    ASSERT_OK_AND_ASSIGN(Tensor tact, Op("tanh", {th}));
    ASSERT_OK_AND_ASSIGN(Tensor ty, Op("matmul", {tact, tw2}));
    if (parallel) {
      EXPECT_EQ(ty->nd_sbp(), l.y);
    }
    EXPECT_FALSE(LastApplyBoxed());
    ASSERT_OK_AND_ASSIGN(Tensor te, Op("sub", {ty, tt}));
    ASSERT_OK_AND_ASSIGN(Tensor te2, Op("mul", {te, te}));
    ASSERT_OK_AND_ASSIGN(Tensor tloss, Op("reduce_sum", {te2}));
    // Backward and update.
    ASSERT_OK_AND_ASSIGN(Tensor tdy, Op("scalar_mul", {te}, scale(2)));
    ASSERT_OK_AND_ASSIGN(Tensor tdw2, Op("matmul", {tact, tdy}, ta));
    ASSERT_OK_AND_ASSIGN(Tensor tda, Op("matmul", {tdy, tw2}, tb));
    ASSERT_OK_AND_ASSIGN(Tensor ta2, Op("mul", {tact, tact}));
    ASSERT_OK_AND_ASSIGN(Tensor tneg, Op("scalar_mul", {ta2}, scale(-1)));
    ASSERT_OK_AND_ASSIGN(Tensor tderiv, Op("scalar_add", {tneg}, scale(1)));
    ASSERT_OK_AND_ASSIGN(Tensor tdh, Op("mul", {tda, tderiv}));
    ASSERT_OK_AND_ASSIGN(Tensor tdw1, Op("matmul", {tx, tdh}, ta));
    ASSERT_OK_AND_ASSIGN(Tensor tstep1, Op("scalar_mul", {tdw1}, scale(-lr)));
    ASSERT_OK_AND_ASSIGN(Tensor tnew_w1, Op("add", {tw1, tstep1}));
    ASSERT_OK_AND_ASSIGN(Tensor tstep2, Op("scalar_mul", {tdw2}, scale(-lr)));
    ASSERT_OK_AND_ASSIGN(Tensor tnew_w2, Op("add", {tw2, tstep2}));
    if (WorldRank() == 0) {
      std::printf("mlp %s: H %s, Y %s, loss %s, dW1 %s, W1' %s, dW2 %s, W2' %s\n", l.name,
                  th->nd_sbp().ToString().c_str(), ty->nd_sbp().ToString().c_str(),
                  tloss->nd_sbp().ToString().c_str(), tdw1->nd_sbp().ToString().c_str(),
                  tnew_w1->nd_sbp().ToString().c_str(), tdw2->nd_sbp().ToString().c_str(),
                  tnew_w2->nd_sbp().ToString().c_str());
    }
    ExpectClose(Host(tloss), {loss}, 1e-5, "loss");
    ExpectClose(Host(tnew_w1), new_w1, 1e-5, "W1'");
    ExpectClose(Host(tnew_w2), new_w2, 1e-5, "W2'");
  }
}

}  // namespace
}  // namespace tessera::eager
