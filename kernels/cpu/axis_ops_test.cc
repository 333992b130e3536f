// argmax, cumsum, var and std against naive loops over multi-indices.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_test_util.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// Element `k` along `axis` of the row through output-less index `e` (axis dropped).
struct Rows {
  Shape shape;
  int axis;
  int64_t count() const { return shape.num_elements() / shape.dim(axis); }
  std::vector<int64_t> Index(int64_t row, int64_t k) const {
    Shape rest = shape;
    rest.set_dim(axis, 1);
    std::vector<int64_t> idx = Unravel(row, rest);
    idx[axis] = k;
    return idx;
  }
};

TEST(ArgmaxKernelTest, FirstLargestAlongEveryAxis) {
  std::mt19937 rng(97);
  for (DType dt : AllTypes()) {
    for (const Shape& shape : {Shape{5}, Shape{3, 4}, Shape{2, 3, 4}}) {
      for (int axis = 0; axis < shape.ndim(); ++axis) {
        SCOPED_TRACE(std::string(DTypeName(dt)) + " " + shape.ToString() + " axis " +
                     std::to_string(axis));
        HostTensor x = Random(shape, dt, &rng, -3, 3);  // ties are common
        auto out = RunOp("argmax", {x}, {{"axis", AttrValue::Int(axis)}});
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        const Rows rows{shape, axis};
        std::vector<double> ref;
        for (int64_t r = 0; r < rows.count(); ++r) {
          int64_t best = 0;
          for (int64_t k = 1; k < shape.dim(axis); ++k) {
            if (x.Get(Ravel(rows.Index(r, k), shape)) > x.Get(Ravel(rows.Index(r, best), shape))) {
              best = k;
            }
          }
          ref.push_back(static_cast<double>(best));
        }
        ExpectValues((*out)[0], ref);
      }
    }
  }
}

TEST(ArgmaxKernelTest, NaNWinsFirstAndEmptyRowsAreFine) {
  for (DType dt : FloatTypes()) {
    HostTensor x = FromValues(Shape{2, 4}, dt, {1, kNaN, 5, kNaN, -kInf, -kInf, -kInf, -kInf});
    auto out = RunOp("argmax", {x}, {{"keepdims", AttrValue::Bool(true)}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].shape(), (Shape{2, 1}));
    ExpectValues((*out)[0], {1, 0});
  }
  auto empty = RunOp("argmax", {HostTensor(Shape{0, 3}, DType::kF32)});
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ((*empty)[0].shape(), (Shape{0}));
  EXPECT_EQ(ErrorOf("argmax", {HostTensor(Shape{2, 0}, DType::kF32)}, {},
                    {HostTensor(Shape{2}, DType::kI64)}),
            "argmax: input \"x\" [2,0] has no elements on axis 1; an empty axis has no argmax");
  EXPECT_EQ(ErrorOf("argmax", {HostTensor(Shape{2, 3}, DType::kF32)}, {},
                    {HostTensor(Shape{2}, DType::kF32)}),
            "argmax: output \"out\" is [2] f32 but the inputs give [2] i64");
}

TEST(CumsumKernelTest, RunningSumsAlongEveryAxis) {
  std::mt19937 rng(101);
  for (DType dt : AllTypes()) {
    for (const Shape& shape : {Shape{6}, Shape{3, 4}, Shape{2, 3, 4}, Shape{0, 3}}) {
      for (int axis = 0; axis < shape.ndim(); ++axis) {
        SCOPED_TRACE(std::string(DTypeName(dt)) + " " + shape.ToString() + " axis " +
                     std::to_string(axis));
        HostTensor x = Random(shape, dt, &rng, -9, 9);
        auto out = RunOp("cumsum", {x}, {{"axis", AttrValue::Int(axis - shape.ndim())}});
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        std::vector<double> ref(static_cast<size_t>(shape.num_elements()));
        if (shape.dim(axis) > 0) {
          const Rows rows{shape, axis};
          for (int64_t r = 0; r < rows.count(); ++r) {
            double acc = 0;
            for (int64_t k = 0; k < shape.dim(axis); ++k) {
              const int64_t f = Ravel(rows.Index(r, k), shape);
              acc += x.Get(f);
              ref[f] = acc;
            }
          }
        }
        ExpectValues((*out)[0], ref);
      }
    }
  }
  // Integers wrap.
  HostTensor big = FromValues(Shape{2}, DType::kI32, {2147483647.0, 1});
  ExpectValues((*RunOp("cumsum", {big}))[0], {2147483647.0, -2147483648.0});
}

// The naive two-pass variance of the elements of x whose multi-index agrees with `out`
// on the kept axes.
std::vector<double> NaiveVar(const HostTensor& x, const std::vector<bool>& reduced,
                             int64_t correction) {
  const Shape& s = x.shape();
  Shape kept = s;
  for (int a = 0; a < s.ndim(); ++a) {
    if (reduced[a]) kept.set_dim(a, 1);
  }
  std::vector<double> out;
  for (int64_t o = 0; o < kept.num_elements(); ++o) {
    const std::vector<int64_t> ko = Unravel(o, kept);
    std::vector<double> vals;
    for (int64_t f = 0; f < s.num_elements(); ++f) {
      const std::vector<int64_t> idx = Unravel(f, s);
      bool match = true;
      for (int a = 0; a < s.ndim(); ++a) match = match && (reduced[a] || idx[a] == ko[a]);
      if (match) vals.push_back(x.Get(f));
    }
    double mean = 0;
    for (double v : vals) mean += v;
    mean /= static_cast<double>(vals.size());
    double sq = 0;
    for (double v : vals) sq += (v - mean) * (v - mean);
    const double n = static_cast<double>(vals.size()) - static_cast<double>(correction);
    out.push_back(n > 0 ? sq / n : kNaN);
  }
  return out;
}

TEST(VarKernelTest, VarAndStdOverAxesWithCorrection) {
  std::mt19937 rng(103);
  struct Case {
    Shape shape;
    std::vector<int64_t> axes;
    std::vector<bool> reduced;
  } cases[] = {
      {Shape{3, 4}, {1}, {false, true}},
      {Shape{3, 4}, {0}, {true, false}},
      {Shape{2, 3, 4}, {0, 2}, {true, false, true}},
      {Shape{2, 3, 4}, {}, {true, true, true}},
      {Shape{5}, {-1}, {true}},
  };
  for (DType dt : FloatTypes()) {
    for (const Case& c : cases) {
      for (int64_t correction : {0, 1, 5}) {
        SCOPED_TRACE(std::string(DTypeName(dt)) + " " + c.shape.ToString() + " axes " +
                     IntsString(c.axes) + " correction " + std::to_string(correction));
        HostTensor x = Random(c.shape, dt, &rng, -3, 3);
        const AttrMap attrs{{"axes", AttrValue::Ints(c.axes)},
                            {"correction", AttrValue::Int(correction)}};
        const std::vector<double> var = NaiveVar(x, c.reduced, correction);
        auto v = RunOp("var", {x}, attrs);
        ASSERT_TRUE(v.ok()) << v.status().ToString();
        ExpectValues((*v)[0], var);
        std::vector<double> sd;
        for (double e : var) sd.push_back(std::sqrt(e));
        auto s = RunOp("std", {x}, attrs);
        ASSERT_TRUE(s.ok()) << s.status().ToString();
        ExpectValues((*s)[0], sd);
      }
    }
  }
}

TEST(VarKernelTest, BadCallsAreNamed) {
  HostTensor x(Shape{2, 3}, DType::kF32);
  EXPECT_EQ(
      ErrorOf("var", {x}, {{"correction", AttrValue::Int(-2)}}, {HostTensor(Shape{}, DType::kF32)}),
      "var: attribute \"correction\" is -2; it must be >= 0");
  EXPECT_EQ(
      ErrorOf("std", {HostTensor(Shape{2}, DType::kI32)}, {}, {HostTensor(Shape{}, DType::kI32)}),
      "std: input \"x\" has dtype i32; the cpu kernel supports f32, f64, f16, bf16");
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
