// softmax, log_softmax and sparse_softmax_cross_entropy against double references.
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

// For each element: exp(x) / sum over its row along `axis` (or the log of it), with
// the row maximum subtracted first.
std::vector<double> SoftmaxRef(const HostTensor& x, int axis, bool log) {
  const Shape& s = x.shape();
  std::vector<double> v(static_cast<size_t>(x.size()));
  for (int64_t e = 0; e < x.size(); ++e) {
    std::vector<int64_t> idx = Unravel(e, s);
    double m = -std::numeric_limits<double>::infinity();
    for (int64_t a = 0; a < s.dim(axis); ++a) {
      idx[axis] = a;
      m = std::max(m, x.Get(Ravel(idx, s)));
    }
    double sum = 0;
    for (int64_t a = 0; a < s.dim(axis); ++a) {
      idx[axis] = a;
      sum += std::exp(x.Get(Ravel(idx, s)) - m);
    }
    v[e] = log ? x.Get(e) - m - std::log(sum) : std::exp(x.Get(e) - m) / sum;
  }
  return v;
}

TEST(SoftmaxKernelTest, EveryAxisIncludingWideInnerBlocks) {
  std::mt19937 rng(29);
  struct Case {
    Shape shape;
    int axis;
  };
  // [3,2,100] along axis 1: 100 neighbouring rows, more than one block of 64.
  const Case cases[] = {{Shape{3, 5}, -1},   {Shape{3, 5}, 0},      {Shape{2, 3, 4}, 1},
                        {Shape{2, 3, 4}, 0}, {Shape{3, 2, 100}, 1}, {Shape{7}, 0},
                        {Shape{2, 0, 3}, 1}, {Shape{2, 1, 3}, 1},   {Shape{4, 130}, 0}};
  for (const char* op : {"softmax", "log_softmax"}) {
    for (DType dt : FloatTypes()) {
      for (const Case& c : cases) {
        SCOPED_TRACE(std::string(op) + " " + DTypeName(dt) + " " + c.shape.ToString() + " axis " +
                     std::to_string(c.axis));
        HostTensor x = Random(c.shape, dt, &rng, -5, 5);
        auto out = RunOp(op, {x}, {{"axis", AttrValue::Int(c.axis)}});
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        const int axis = c.axis < 0 ? c.axis + c.shape.ndim() : c.axis;
        ExpectValues((*out)[0], SoftmaxRef(x, axis, std::string(op) == "log_softmax"));
      }
    }
  }
}

TEST(SoftmaxKernelTest, LargeLogitsStayFinite) {
  for (DType dt : FloatTypes()) {
    HostTensor x = FromValues(Shape{3}, dt, {1000, 1001, -1000});
    const double e = std::exp(-1.0);
    ExpectValues((*RunOp("softmax", {x}))[0], {e / (1 + e), 1 / (1 + e), 0});
    ExpectValues((*RunOp("log_softmax", {x}))[0],
                 {-1 - std::log1p(e), -std::log1p(e), -2001 - std::log1p(e)},
                 dt == DType::kF32 ? 1e-6 : -1);
  }
}

TEST(SoftmaxKernelTest, BadCallsAreNamed) {
  HostTensor x(Shape{2, 3}, DType::kF32);
  HostTensor out(Shape{2, 3}, DType::kF32);
  EXPECT_EQ(ErrorOf("softmax", {x}, {{"axis", AttrValue::Int(2)}}, {out}),
            "softmax: attribute \"axis\" is 2 but input \"x\" has shape [2,3] (2 axes; valid axes "
            "are -2..1)");
  EXPECT_EQ(ErrorOf("log_softmax", {HostTensor(Shape{2, 3}, DType::kI64)}, {},
                    {HostTensor(Shape{2, 3}, DType::kI64)}),
            "log_softmax: input \"x\" has dtype i64; the cpu kernel supports f32, f64, f16, bf16");
}

// ---- sparse_softmax_cross_entropy ----

TEST(SparseSoftmaxCrossEntropyKernelTest, ProbAndLossMatchReference) {
  std::mt19937 rng(31);
  for (DType dt : FloatTypes()) {
    for (DType it : IndexTypes()) {
      for (const Shape& shape : {Shape{4, 5}, Shape{2, 3, 7}, Shape{6}, Shape{0, 4}, Shape{3, 1}}) {
        SCOPED_TRACE(std::string(DTypeName(dt)) + " labels " + DTypeName(it) + " " +
                     shape.ToString());
        const int nd = shape.ndim();
        const Shape batch = *Shape::Make(shape.data(), static_cast<size_t>(nd - 1));
        const int64_t classes = shape.dim(nd - 1);
        HostTensor x = Random(shape, dt, &rng, -4, 4);
        HostTensor label = Random(batch, it, &rng, 0, static_cast<double>(classes - 1));
        auto out = RunOp("sparse_softmax_cross_entropy", {x, label});
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        ExpectValues((*out)[0], SoftmaxRef(x, nd - 1, false));
        std::vector<double> log_prob = SoftmaxRef(x, nd - 1, true);
        std::vector<double> loss;
        for (int64_t r = 0; r < batch.num_elements(); ++r) {
          loss.push_back(-log_prob[r * classes + static_cast<int64_t>(label.Get(r))]);
        }
        ExpectValues((*out)[1], loss);
      }
    }
  }
}

TEST(SparseSoftmaxCrossEntropyKernelTest, VanishingProbabilityGivesFiniteLoss) {
  HostTensor x = FromValues(Shape{1, 2}, DType::kF32, {0, 200});
  HostTensor label = FromValues(Shape{1}, DType::kI32, {0});
  auto out = RunOp("sparse_softmax_cross_entropy", {x, label});
  ASSERT_TRUE(out.ok());
  ExpectValues((*out)[1], {200});
}

TEST(SparseSoftmaxCrossEntropyKernelTest, OutOfRangeLabelsAreNamed) {
  HostTensor x(Shape{2, 3, 5}, DType::kF32);
  std::vector<HostTensor> outs{HostTensor(Shape{2, 3, 5}, DType::kF32),
                               HostTensor(Shape{2, 3}, DType::kF32)};
  HostTensor label = FromValues(Shape{2, 3}, DType::kI64, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(ErrorOf("sparse_softmax_cross_entropy", {x, label}, {}, outs),
            "sparse_softmax_cross_entropy: label[1,2] = 5 is outside [0, 5), the classes of "
            "\"prediction\" [2,3,5]");
  label = FromValues(Shape{2, 3}, DType::kI32, {0, -1, 2, 3, 4, 4});
  EXPECT_EQ(ErrorOf("sparse_softmax_cross_entropy", {x, label}, {}, outs),
            "sparse_softmax_cross_entropy: label[0,1] = -1 is outside [0, 5), the classes of "
            "\"prediction\" [2,3,5]");
  EXPECT_EQ(
      ErrorOf("sparse_softmax_cross_entropy", {x, HostTensor(Shape{2, 3}, DType::kF32)}, {}, outs),
      "sparse_softmax_cross_entropy: input \"label\" has dtype f32; the cpu kernel supports "
      "i32, i64");
  EXPECT_EQ(
      ErrorOf("sparse_softmax_cross_entropy", {x, HostTensor(Shape{3}, DType::kI32)}, {}, outs),
      "sparse_softmax_cross_entropy: input \"label\" has shape [3] but \"prediction\" "
      "[2,3,5] needs [2,3] (all but the class axis)");
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
