// layer_norm and bias_add against loops over logical indices.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_test_util.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

struct LayerNormRef {
  std::vector<double> y, mean, inv_variance;
};

// Row r of x = the indices before `norm`; gamma/beta are indexed by x's indices from
// `params` on.
LayerNormRef ComputeLayerNorm(const HostTensor& x, const HostTensor& gamma, const HostTensor& beta,
                              int norm, int params, double eps) {
  const Shape& s = x.shape();
  int64_t rows = 1;
  for (int i = 0; i < norm; ++i) rows *= s.dim(i);
  const int64_t cols = rows == 0 ? 0 : x.size() / rows;
  LayerNormRef ref;
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += x.Get(r * cols + c);
    const double mean = sum / cols;
    double sq = 0;
    for (int64_t c = 0; c < cols; ++c)
      sq += (x.Get(r * cols + c) - mean) * (x.Get(r * cols + c) - mean);
    ref.mean.push_back(mean);
    ref.inv_variance.push_back(1 / std::sqrt(sq / cols + eps));
  }
  for (int64_t e = 0; e < x.size(); ++e) {
    std::vector<int64_t> idx = Unravel(e, s);
    std::vector<int64_t> pidx(idx.begin() + params, idx.end());
    const int64_t g = Ravel(pidx, gamma.shape());
    const int64_t r = e / cols;
    ref.y.push_back((x.Get(e) - ref.mean[r]) * ref.inv_variance[r] * gamma.Get(g) + beta.Get(g));
  }
  return ref;
}

TEST(LayerNormKernelTest, EveryNormAndParamsAxis) {
  std::mt19937 rng(37);
  const Shape shape{2, 3, 4};
  for (DType dt : FloatTypes()) {
    for (int norm : {0, 1, 2, -1}) {
      for (int params : {0, 1, 2, -1}) {
        SCOPED_TRACE(std::string(DTypeName(dt)) + " begin_norm_axis " + std::to_string(norm) +
                     " begin_params_axis " + std::to_string(params));
        const int p = params < 0 ? params + 3 : params;
        const Shape ps = *Shape::Make(shape.data() + p, static_cast<size_t>(3 - p));
        HostTensor x = Random(shape, dt, &rng, -3, 3);
        HostTensor gamma = Random(ps, dt, &rng, 0.5, 2);
        HostTensor beta = Random(ps, dt, &rng, -1, 1);
        AttrMap attrs{{"begin_norm_axis", AttrValue::Int(norm)},
                      {"begin_params_axis", AttrValue::Int(params)},
                      {"epsilon", AttrValue::Float(1e-3)}};
        auto out = RunOp("layer_norm", {x, gamma, beta}, attrs);
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        LayerNormRef ref = ComputeLayerNorm(x, gamma, beta, norm < 0 ? norm + 3 : norm, p, 1e-3);
        ExpectValues((*out)[0], ref.y);
        ExpectValues((*out)[1], ref.mean);
        ExpectValues((*out)[2], ref.inv_variance);
      }
    }
  }
}

TEST(LayerNormKernelTest, DefaultsNormaliseTheLastAxis) {
  HostTensor x = FromValues(Shape{1, 2}, DType::kF64, {1, 3});
  HostTensor one = FromValues(Shape{2}, DType::kF64, {1, 1});
  HostTensor zero = FromValues(Shape{2}, DType::kF64, {0, 0});
  auto out = RunOp("layer_norm", {x, one, zero});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // mean 2, variance 1, epsilon 1e-5 by default.
  const double inv = 1 / std::sqrt(1 + 1e-5);
  ExpectValues((*out)[0], {-inv, inv});
  ExpectValues((*out)[1], {2});
  ExpectValues((*out)[2], {inv});
}

TEST(LayerNormKernelTest, EmptyRowsHaveNaNStatistics) {
  HostTensor x(Shape{2, 0}, DType::kF32);
  HostTensor g(Shape{0}, DType::kF32);
  std::vector<HostTensor> outs{HostTensor(Shape{2, 0}, DType::kF32),
                               FromValues(Shape{2}, DType::kF32, {1, 1}),
                               FromValues(Shape{2}, DType::kF32, {1, 1})};
  ASSERT_TRUE(RunOpInto("layer_norm", {x, g, g}, {}, &outs).ok());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ExpectValues(outs[1], {nan, nan});
  ExpectValues(outs[2], {nan, nan});
}

TEST(LayerNormKernelTest, BadCallsAreNamed) {
  HostTensor x(Shape{2, 3}, DType::kF32);
  HostTensor g(Shape{3}, DType::kF32);
  std::vector<HostTensor> outs{HostTensor(Shape{2, 3}, DType::kF32),
                               HostTensor(Shape{2}, DType::kF32),
                               HostTensor(Shape{2}, DType::kF32)};
  EXPECT_EQ(ErrorOf("layer_norm", {x, HostTensor(Shape{2}, DType::kF32), g}, {}, outs),
            "layer_norm: input \"gamma\" has shape [2] but input \"x\" [2,3] with "
            "begin_params_axis 1 needs [3]");
  EXPECT_EQ(ErrorOf("layer_norm", {x, g, HostTensor(Shape{3}, DType::kF64)}, {}, outs),
            "layer_norm: input \"beta\" has dtype f64 but \"x\" has f32");
  EXPECT_EQ(ErrorOf("layer_norm", {x, g, g}, {{"begin_norm_axis", AttrValue::Int(-3)}}, outs),
            "layer_norm: attribute \"begin_norm_axis\" is -3 but input \"x\" has shape [2,3] (2 "
            "axes; valid axes are -2..1)");
  outs[2] = HostTensor(Shape{3}, DType::kF32);
  EXPECT_EQ(ErrorOf("layer_norm", {x, g, g}, {}, outs),
            "layer_norm: output \"inv_variance\" is [3] f32 but the inputs give [2] f32");
  HostTensor xi(Shape{2, 3}, DType::kI32);
  HostTensor gi(Shape{3}, DType::kI32);
  EXPECT_EQ(ErrorOf("layer_norm", {xi, gi, gi}, {},
                    {xi, HostTensor(Shape{2}, DType::kI32), HostTensor(Shape{2}, DType::kI32)}),
            "layer_norm: input \"x\" has dtype i32; the cpu kernel supports f32, f64, f16, bf16");
}

// ---- bias_add ----

TEST(BiasAddKernelTest, EveryAxisAndDtype) {
  std::mt19937 rng(41);
  for (DType dt : AllTypes()) {
    for (const Shape& shape : {Shape{2, 3, 4}, Shape{5}, Shape{2, 0, 3}}) {
      for (int axis = -shape.ndim(); axis < shape.ndim(); ++axis) {
        SCOPED_TRACE(std::string(DTypeName(dt)) + " " + shape.ToString() + " axis " +
                     std::to_string(axis));
        const int ax = axis < 0 ? axis + shape.ndim() : axis;
        HostTensor a = Random(shape, dt, &rng, -9, 9);
        HostTensor b = Random(Shape{shape.dim(ax)}, dt, &rng, -9, 9);
        auto out = RunOp("bias_add", {a, b}, {{"axis", AttrValue::Int(axis)}});
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        std::vector<double> ref;
        for (int64_t e = 0; e < a.size(); ++e)
          ref.push_back(a.Get(e) + b.Get(Unravel(e, shape)[ax]));
        ExpectValues((*out)[0], ref);
      }
    }
  }
}

TEST(BiasAddKernelTest, BadCallsAreNamed) {
  HostTensor a(Shape{2, 3}, DType::kF32);
  HostTensor out(Shape{2, 3}, DType::kF32);
  EXPECT_EQ(ErrorOf("bias_add", {a, HostTensor(Shape{2}, DType::kF32)}, {}, {out}),
            "bias_add: input \"b\" has shape [2] but \"a\" [2,3] needs [3] (its axis 1)");
  EXPECT_EQ(ErrorOf("bias_add", {a, HostTensor(Shape{3}, DType::kI32)}, {}, {out}),
            "bias_add: input \"b\" has dtype i32 but \"a\" has f32");
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
