// tessera/autograd.h through the C API, at 1 and 3 ranks: a linear model's gradients
// against values worked out by hand, the SBP of a broadcast weight's gradient under
// batch-split data, accumulation, zero_grad, detach, grad mode, retain_graph, and
// gradients through tess_tensor_to_global.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/tessera.h"
#include "tests/capi/world_test_util.h"

namespace tessera::capi_test {
namespace {

std::string World() { return CpuOf(WorldRanks()); }

TensorPtr Leaf(const std::vector<double>& v, const std::vector<int64_t>& shape,
               const std::string& sbp) {
  TensorPtr t = FromHost<double>(v, shape, World(), sbp);
  EXPECT_EQ(tess_tensor_set_requires_grad(t.get(), 1), TESS_OK) << LastError();
  return t;
}

TensorPtr Grad(const tess_tensor* t) {
  tess_tensor* g = nullptr;
  EXPECT_EQ(tess_tensor_grad(&g, t), TESS_OK) << LastError();
  return TensorPtr(g);
}

void Backward(const tess_tensor* root) {
  const tess_tensor* roots[] = {root};
  ASSERT_EQ(tess_autograd_backward(roots, 1, nullptr, nullptr), TESS_OK) << LastError();
}

// loss = sum(x @ w) for x [4,3] (rows split over the ranks: uneven at 3) and w [3,2]
// broadcast. d loss / d w[k][j] = sum_i x[i][k], whatever j.
struct Linear {
  std::vector<double> xv{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  TensorPtr x = FromHost<double>(xv, {4, 3}, World(), "S(0)");
  TensorPtr w = Leaf({0.5, -1, 2, 0.25, -3, 1}, {3, 2}, "B");
  TensorPtr y, loss;
  void Forward() {
    tess_tensor* out = nullptr;
    ASSERT_EQ(tess_matmul(&out, x.get(), w.get(), 0, 0), TESS_OK) << LastError();
    y.reset(out);
    ASSERT_EQ(tess_reduce_sum(&out, y.get(), nullptr, 0, 0), TESS_OK) << LastError();
    loss.reset(out);
  }
  std::vector<double> Expected(double times) const {
    std::vector<double> g(6);
    for (int k = 0; k < 3; ++k) {
      double col = 0;
      for (int i = 0; i < 4; ++i) col += xv[i * 3 + k];
      g[k * 2] = g[k * 2 + 1] = times * col;
    }
    return g;
  }
};

TEST(AutogradCapi, LinearModelGradientIsPartialAndExact) {
  Linear m;
  m.Forward();
  int32_t flag = -1;
  ASSERT_EQ(tess_tensor_requires_grad(&flag, m.loss.get()), TESS_OK);
  EXPECT_EQ(flag, 1);
  ASSERT_EQ(tess_tensor_is_leaf(&flag, m.loss.get()), TESS_OK);
  EXPECT_EQ(flag, 0);
  ASSERT_EQ(tess_tensor_requires_grad(&flag, m.x.get()), TESS_OK);
  EXPECT_EQ(flag, 0);
  EXPECT_EQ(Grad(m.w.get()), nullptr);  // before any backward
  Backward(m.loss.get());
  TensorPtr g = Grad(m.w.get());
  ASSERT_NE(g, nullptr);
  // matmul(x^T, dy) with x S(0): each rank's rows give a partial sum, no boxing.
  if (WorldSize() > 1) {
    EXPECT_EQ(NdSbpText(g.get()), "P");
  }
  EXPECT_EQ(ToHost<double>(g.get()), m.Expected(1));
  EXPECT_EQ(Grad(m.x.get()), nullptr);  // x requires no gradient
}

TEST(AutogradCapi, AccumulatesUntilZeroed) {
  Linear m;
  m.Forward();
  Backward(m.loss.get());
  m.Forward();
  Backward(m.loss.get());
  EXPECT_EQ(ToHost<double>(Grad(m.w.get()).get()), m.Expected(2));
  ASSERT_EQ(tess_tensor_zero_grad(m.w.get()), TESS_OK);
  EXPECT_EQ(Grad(m.w.get()), nullptr);
  m.Forward();
  Backward(m.loss.get());
  EXPECT_EQ(ToHost<double>(Grad(m.w.get()).get()), m.Expected(1));
}

TEST(AutogradCapi, FreedIntermediatesStayInTheGraph) {
  // Bindings free temporaries at once (Python's sum(x @ w)): the graph must not need y's
  // handle.
  Linear m;
  m.Forward();
  m.y.reset();
  Backward(m.loss.get());
  EXPECT_EQ(ToHost<double>(Grad(m.w.get()).get()), m.Expected(1));
}

TEST(AutogradCapi, RetainGraphBackpropagatesTwice) {
  Linear m;
  m.Forward();
  const tess_tensor* roots[] = {m.loss.get()};
  tess_backward_options o = TESS_BACKWARD_OPTIONS_INIT;
  o.retain_graph = 1;
  ASSERT_EQ(tess_autograd_backward(roots, 1, nullptr, &o), TESS_OK) << LastError();
  ASSERT_EQ(tess_autograd_backward(roots, 1, nullptr, nullptr), TESS_OK) << LastError();
  EXPECT_EQ(ToHost<double>(Grad(m.w.get()).get()), m.Expected(2));
  EXPECT_EQ(tess_autograd_backward(roots, 1, nullptr, nullptr), TESS_FAILED_PRECONDITION);
  EXPECT_TRUE(ErrorHas("retain_graph"));
}

TEST(AutogradCapi, NoGradModeAndDetachRecordNothing) {
  Linear m;
  int32_t previous = -1;
  ASSERT_EQ(tess_autograd_set_grad_enabled(0, &previous), TESS_OK);
  EXPECT_EQ(previous, 1);
  m.Forward();
  int32_t flag = -1;
  ASSERT_EQ(tess_autograd_is_grad_enabled(&flag), TESS_OK);
  EXPECT_EQ(flag, 0);
  ASSERT_EQ(tess_autograd_set_grad_enabled(previous, nullptr), TESS_OK);
  ASSERT_EQ(tess_tensor_requires_grad(&flag, m.loss.get()), TESS_OK);
  EXPECT_EQ(flag, 0);

  tess_tensor* d = nullptr;
  ASSERT_EQ(tess_tensor_detach(&d, m.w.get()), TESS_OK);
  TensorPtr detached(d);
  ASSERT_EQ(tess_tensor_requires_grad(&flag, detached.get()), TESS_OK);
  EXPECT_EQ(flag, 0);
  EXPECT_EQ(ToHost<double>(detached.get()), ToHost<double>(m.w.get()));
}

TEST(AutogradCapi, GradientsFlowThroughToGlobal) {
  // z = sum(to_global(w, S(1)) * 3): d z / d w = 3 everywhere, as w's shape.
  TensorPtr w = Leaf({1, 2, 3, 4, 5, 6}, {2, 3}, "B");
  PlacementPtr p = Placement(World());
  NdSbpPtr s1 = NdSbp("S(1)");
  tess_tensor* out = nullptr;
  ASSERT_EQ(tess_tensor_to_global(&out, w.get(), p.get(), s1.get()), TESS_OK) << LastError();
  TensorPtr moved(out);
  EXPECT_EQ(NdSbpText(moved.get()), "S(1)");
  ASSERT_EQ(tess_scalar_mul(&out, moved.get(), 3.0), TESS_OK);
  TensorPtr scaled(out);
  ASSERT_EQ(tess_reduce_sum(&out, scaled.get(), nullptr, 0, 0), TESS_OK);
  TensorPtr z(out);
  Backward(z.get());
  EXPECT_EQ(ToHost<double>(Grad(w.get()).get()), std::vector<double>(6, 3.0));
}

}  // namespace
}  // namespace tessera::capi_test
