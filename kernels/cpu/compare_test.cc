// Comparisons and where against per-element references over broadcast indices.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_test_util.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// The flat index into `operand` of output element `flat` under numpy broadcasting.
int64_t Broadcast(const Shape& out, const Shape& operand, int64_t flat) {
  std::vector<int64_t> o = Unravel(flat, out);
  std::vector<int64_t> i(o.begin() + (out.ndim() - operand.ndim()), o.end());
  for (int a = 0; a < operand.ndim(); ++a) {
    if (operand.dim(a) == 1) i[a] = 0;
  }
  return Ravel(i, operand);
}

const struct {
  const char* op;
  std::function<bool(double, double)> ref;
} kCompares[] = {
    {"equal", [](double a, double b) { return a == b; }},
    {"not_equal", [](double a, double b) { return a != b; }},
    {"less", [](double a, double b) { return a < b; }},
    {"less_equal", [](double a, double b) { return a <= b; }},
    {"greater", [](double a, double b) { return a > b; }},
    {"greater_equal", [](double a, double b) { return a >= b; }},
};

TEST(CompareKernelTest, EveryOpDtypeAndBroadcast) {
  std::mt19937 rng(83);
  std::vector<DType> dtypes = AllTypes();
  dtypes.push_back(DType::kBool);
  const std::vector<std::pair<Shape, Shape>> shapes = {{Shape{3, 4}, Shape{3, 4}},
                                                       {Shape{2, 1, 4}, Shape{3, 1}},
                                                       {Shape{}, Shape{5}},
                                                       {Shape{0, 3}, Shape{3}}};
  for (const auto& c : kCompares) {
    for (DType dt : dtypes) {
      for (const auto& [xs, ys] : shapes) {
        SCOPED_TRACE(std::string(c.op) + " " + DTypeName(dt) + " " + xs.ToString() + " " +
                     ys.ToString());
        // Small integers so equal values occur often.
        HostTensor x = Random(xs, dt, &rng, -2, 2);
        HostTensor y = Random(ys, dt, &rng, -2, 2);
        if (dt == DType::kF32 || dt == DType::kF64) {
          for (int64_t i = 0; i < x.size(); ++i) x.Set(i, std::round(x.Get(i)));
          for (int64_t i = 0; i < y.size(); ++i) y.Set(i, std::round(y.Get(i)));
        }
        auto out = RunOp(c.op, {x, y});
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        const Shape& os = (*out)[0].shape();
        EXPECT_EQ((*out)[0].dtype(), DType::kBool);
        std::vector<double> ref;
        for (int64_t e = 0; e < os.num_elements(); ++e) {
          ref.push_back(c.ref(x.Get(Broadcast(os, xs, e)), y.Get(Broadcast(os, ys, e))) ? 1 : 0);
        }
        ExpectValues((*out)[0], ref);
      }
    }
  }
}

TEST(CompareKernelTest, NaNIsUnequalToEverything) {
  for (DType dt : FloatTypes()) {
    HostTensor x = FromValues(Shape{3}, dt, {kNaN, kNaN, 1});
    HostTensor y = FromValues(Shape{3}, dt, {kNaN, 1, kInf});
    ExpectValues((*RunOp("equal", {x, y}))[0], {0, 0, 0});
    ExpectValues((*RunOp("not_equal", {x, y}))[0], {1, 1, 1});
    ExpectValues((*RunOp("less_equal", {x, y}))[0], {0, 0, 1});
    ExpectValues((*RunOp("greater_equal", {x, y}))[0], {0, 0, 0});
  }
}

TEST(CompareKernelTest, MismatchesAreNamed) {
  HostTensor x(Shape{2, 3}, DType::kF32);
  EXPECT_EQ(ErrorOf("less", {x, HostTensor(Shape{2, 3}, DType::kI32)}, {},
                    {HostTensor(Shape{2, 3}, DType::kBool)}),
            "less: input \"y\" has dtype i32 but \"x\" has f32");
  EXPECT_EQ(ErrorOf("less", {x, x}, {}, {HostTensor(Shape{2, 3}, DType::kF32)}),
            "less: output \"out\" is [2,3] f32 but the inputs give [2,3] bool");
}

TEST(WhereKernelTest, PicksXOrYWithBroadcasting) {
  std::mt19937 rng(89);
  std::vector<DType> dtypes = AllTypes();
  dtypes.push_back(DType::kBool);
  const std::vector<std::vector<Shape>> shapes = {{Shape{3, 4}, Shape{3, 4}, Shape{3, 4}},
                                                  {Shape{3, 1}, Shape{1, 4}, Shape{4}},
                                                  {Shape{}, Shape{2, 3}, Shape{}},
                                                  {Shape{2, 1, 3}, Shape{4, 1}, Shape{1}},
                                                  {Shape{0, 2}, Shape{2}, Shape{1}}};
  for (DType dt : dtypes) {
    for (const std::vector<Shape>& s : shapes) {
      SCOPED_TRACE(std::string(DTypeName(dt)) + " " + s[0].ToString() + " " + s[1].ToString() +
                   " " + s[2].ToString());
      HostTensor c = Random(s[0], DType::kBool, &rng);
      HostTensor x = Random(s[1], dt, &rng, -50, 50);
      HostTensor y = Random(s[2], dt, &rng, -50, 50);
      auto out = RunOp("where", {c, x, y});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      const Shape& os = (*out)[0].shape();
      std::vector<double> ref;
      for (int64_t e = 0; e < os.num_elements(); ++e) {
        ref.push_back(c.Get(Broadcast(os, s[0], e)) != 0 ? x.Get(Broadcast(os, s[1], e))
                                                         : y.Get(Broadcast(os, s[2], e)));
      }
      ExpectValues((*out)[0], ref);
    }
  }
}

TEST(WhereKernelTest, MismatchesAreNamed) {
  HostTensor f(Shape{3}, DType::kF32);
  HostTensor b = FromValues(Shape{3}, DType::kBool, {1, 0, 1});
  HostTensor out(Shape{3}, DType::kF32);
  EXPECT_EQ(ErrorOf("where", {f, f, f}, {}, {out}),
            "where: input \"cond\" has dtype f32 but the kernel needs bool");
  EXPECT_EQ(ErrorOf("where", {b, f, HostTensor(Shape{3}, DType::kF64)}, {}, {out}),
            "where: input \"y\" has dtype f64 but \"x\" has f32");
  EXPECT_EQ(ErrorOf("where", {b, f, HostTensor(Shape{2}, DType::kF32)}, {}, {out}),
            "where: inputs \"x\" [3] and \"y\" [2] do not broadcast: output axis 0");
}

TEST(CastKernelTest, ToAndFromBool) {
  for (DType dt : AllTypes()) {
    SCOPED_TRACE(DTypeName(dt));
    const bool floating = dt == DType::kF32 || dt == DType::kF64;
    std::vector<double> values = {0, 1, -3, 7};
    std::vector<double> want = {0, 1, 1, 1};
    if (floating) {
      values.insert(values.end(), {0.25, -0.0, kNaN, -kInf});
      want.insert(want.end(), {1, 0, 1, 1});  // NaN is true, as numpy's bool(nan)
    }
    const Shape s{static_cast<int64_t>(values.size())};
    auto to_bool =
        RunOp("cast", {FromValues(s, dt, values)}, {{"dtype", AttrValue::OfDType(DType::kBool)}});
    ASSERT_TRUE(to_bool.ok()) << to_bool.status().ToString();
    ExpectValues((*to_bool)[0], want);
    auto back = RunOp("cast", {(*to_bool)[0]}, {{"dtype", AttrValue::OfDType(dt)}});
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ExpectValues((*back)[0], want);
  }
}

TEST(BoolKernelTest, ShapeOpsMoveBoolElements) {
  HostTensor b = FromValues(Shape{2, 3}, DType::kBool, {1, 0, 0, 1, 1, 0});
  auto t = RunOp("transpose", {b}, {{"perm", AttrValue::Ints({1, 0})}});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ExpectValues((*t)[0], {1, 1, 0, 1, 0, 0});
  auto e = RunOp("expand", {FromValues(Shape{2, 1}, DType::kBool, {1, 0})},
                 {{"shape", AttrValue::Ints({2, 3})}});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  ExpectValues((*e)[0], {1, 1, 1, 0, 0, 0});
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
