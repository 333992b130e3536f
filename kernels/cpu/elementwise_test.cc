// Elementwise kernels against per-element references in double.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_test_util.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

std::vector<double> Map(const HostTensor& x, const std::function<double(double)>& f) {
  std::vector<double> v;
  for (double e : x.Values()) v.push_back(f(e));
  return v;
}

std::vector<Shape> UnaryShapes() { return {Shape{3, 5}, Shape{0, 4}, Shape{}, Shape{1}}; }

void CheckUnary(const char* op, const std::vector<DType>& dtypes,
                const std::function<double(double)>& ref, double lo = -3, double hi = 3) {
  std::mt19937 rng(7);
  for (DType dt : dtypes) {
    for (const Shape& shape : UnaryShapes()) {
      SCOPED_TRACE(std::string(op) + " " + DTypeName(dt) + " " + shape.ToString());
      HostTensor x = Random(shape, dt, &rng, lo, hi);
      auto out = RunOp(op, {x});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      // Floats: the reference sees the stored (rounded) input.
      ExpectValues((*out)[0], Map(x, ref), dt == DType::kF32 ? 2e-6 : -1);
    }
  }
}

TEST(UnaryKernelTest, MatchReferences) {
  CheckUnary("relu", AllTypes(), [](double v) { return v < 0 ? 0 : v; });
  CheckUnary("neg", AllTypes(), [](double v) { return -v; });
  CheckUnary("identity", AllTypes(), [](double v) { return v; });
  CheckUnary("abs", AllTypes(), [](double v) { return v < 0 ? -v : v; });
  CheckUnary("gelu", FloatTypes(), [](double v) { return 0.5 * v * (1 + std::erf(v / M_SQRT2)); });
  CheckUnary("exp", FloatTypes(), [](double v) { return std::exp(v); });
  CheckUnary("tanh", FloatTypes(), [](double v) { return std::tanh(v); });
  CheckUnary("sigmoid", FloatTypes(), [](double v) { return 1 / (1 + std::exp(-v)); });
  CheckUnary(
      "sqrt", FloatTypes(), [](double v) { return std::sqrt(v); }, 0, 9);
  CheckUnary(
      "log", FloatTypes(), [](double v) { return std::log(v); }, 0.01, 9);
  CheckUnary(
      "sin", FloatTypes(), [](double v) { return std::sin(v); }, -7, 7);
  CheckUnary(
      "cos", FloatTypes(), [](double v) { return std::cos(v); }, -7, 7);
}

TEST(UnaryKernelTest, LogSinCosEdgeValues) {
  for (DType dt : FloatTypes()) {
    SCOPED_TRACE(DTypeName(dt));
    HostTensor x = FromValues(Shape{6}, dt, {-1, 0, 1, kInf, kNaN, -kInf});
    ExpectValues((*RunOp("log", {x}))[0], {kNaN, -kInf, 0, kInf, kNaN, kNaN});
    ExpectValues((*RunOp("sin", {x}))[0], {std::sin(-1.0), 0, std::sin(1.0), kNaN, kNaN, kNaN},
                 dt == DType::kF32 ? 2e-6 : -1);
    ExpectValues((*RunOp("cos", {x}))[0], {std::cos(-1.0), 1, std::cos(1.0), kNaN, kNaN, kNaN},
                 dt == DType::kF32 ? 2e-6 : -1);
  }
}

TEST(UnaryKernelTest, EdgeValues) {
  for (DType dt : FloatTypes()) {
    HostTensor x = FromValues(Shape{5}, dt, {-1000, 1000, kNaN, -kInf, kInf});
    ExpectValues((*RunOp("sigmoid", {x}))[0], {0, 1, kNaN, 0, 1});
    ExpectValues((*RunOp("relu", {x}))[0], {0, 1000, kNaN, 0, kInf});
    ExpectValues((*RunOp("sqrt", {FromValues(Shape{2}, dt, {-1, 0})}))[0], {kNaN, 0});
  }
  // Integer negation wraps: -lowest is lowest.
  HostTensor lowest = FromValues(Shape{1}, DType::kI32, {-2147483648.0});
  ExpectValues((*RunOp("neg", {lowest}))[0], {-2147483648.0});
}

TEST(UnaryKernelTest, AbsOfNegativesNaNInfinitiesAndLowest) {
  for (DType dt : FloatTypes()) {
    HostTensor x = FromValues(Shape{7}, dt, {-2.5, 2.5, -0.0, 0, kNaN, -kInf, kInf});
    auto out = RunOp("abs", {x});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ExpectValues((*out)[0], {2.5, 2.5, 0, 0, kNaN, kInf, kInf});
    EXPECT_FALSE(std::signbit((*out)[0].Get(2))) << "|-0| is +0";
  }
  for (DType dt : {DType::kI32, DType::kI64}) {
    ExpectValues((*RunOp("abs", {FromValues(Shape{3}, dt, {-7, 0, 7})}))[0], {7, 0, 7});
  }
  // Integer abs wraps like neg: |lowest| is lowest.
  HostTensor lowest = FromValues(Shape{1}, DType::kI32, {-2147483648.0});
  ExpectValues((*RunOp("abs", {lowest}))[0], {-2147483648.0});
}

TEST(UnaryKernelTest, FloatOnlyOpsRefuseIntegers) {
  for (const char* op : {"gelu", "exp", "sqrt", "tanh", "sigmoid", "log", "sin", "cos"}) {
    HostTensor x(Shape{2}, DType::kI32);
    std::string m = ErrorOf(op, {x}, {}, {HostTensor(Shape{2}, DType::kI32)});
    EXPECT_EQ(m, std::string(op) +
                     ": input \"x\" has dtype i32; the cpu kernel supports f32, f64, f16, bf16");
  }
}

TEST(UnaryKernelTest, OutputMustMatchInput) {
  HostTensor x(Shape{2, 3}, DType::kF32);
  EXPECT_EQ(ErrorOf("relu", {x}, {}, {HostTensor(Shape{3, 2}, DType::kF32)}),
            "relu: output \"out\" is [3,2] f32 but the inputs give [2,3] f32");
  EXPECT_EQ(ErrorOf("identity", {x}, {}, {HostTensor(Shape{2, 3}, DType::kF64)}),
            "identity: output \"out\" is [2,3] f64 but the inputs give [2,3] f32");
}

// ---- scalar ops ----

TEST(ScalarKernelTest, AddAndMulEveryDtype) {
  std::mt19937 rng(11);
  for (DType dt : AllTypes()) {
    const bool integer = dt == DType::kI32 || dt == DType::kI64;
    for (double value : {3.0, -2.0, 2.5}) {
      SCOPED_TRACE(std::string(DTypeName(dt)) + " value " + std::to_string(value));
      HostTensor x = Random(Shape{4, 3}, dt, &rng, -50, 50);
      AttrMap attrs{{"value", AttrValue::Float(value)}};
      // Integers with a fractional value: computed in double, truncated toward zero.
      auto fix = [&](double v) { return integer ? std::trunc(v) : v; };
      ExpectValues((*RunOp("scalar_add", {x}, attrs))[0],
                   Map(x, [&](double v) { return fix(v + value); }));
      ExpectValues((*RunOp("scalar_mul", {x}, attrs))[0],
                   Map(x, [&](double v) { return fix(v * value); }));
    }
  }
}

TEST(ScalarKernelTest, IntegerOverflowWrapsAndHugeValuesSaturate) {
  HostTensor x = FromValues(Shape{2}, DType::kI32, {2147483647.0, -5});
  ExpectValues((*RunOp("scalar_add", {x}, {{"value", AttrValue::Float(1)}}))[0],
               {-2147483648.0, -4});
  // 1e20 does not fit i32: applied in double, then clamped.
  ExpectValues((*RunOp("scalar_mul", {x}, {{"value", AttrValue::Float(1e20)}}))[0],
               {2147483647.0, -2147483648.0});
  ExpectValues((*RunOp("scalar_add", {x}, {{"value", AttrValue::Float(kNaN)}}))[0], {0, 0});
}

TEST(ScalarKernelTest, MissingValueIsAnError) {
  HostTensor x(Shape{2}, DType::kF32);
  EXPECT_EQ(ErrorOf("scalar_add", {x}, {}, {HostTensor(Shape{2}, DType::kF32)}),
            "scalar_add: required attribute \"value\" is missing");
}

// ---- cast ----

TEST(CastKernelTest, EveryPairOfDtypes) {
  const std::vector<double> values = {-3, -1, 0, 2, 100};
  for (DType from : AllTypes()) {
    for (DType to : AllTypes()) {
      SCOPED_TRACE(std::string(DTypeName(from)) + " -> " + DTypeName(to));
      HostTensor x = FromValues(Shape{5}, from, values);
      auto out = RunOp("cast", {x}, {{"dtype", AttrValue::OfDType(to)}});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      EXPECT_EQ((*out)[0].dtype(), to);
      ExpectValues((*out)[0], values);
    }
  }
}

TEST(CastKernelTest, TruncatesAndSaturates) {
  HostTensor f = FromValues(Shape{6}, DType::kF64, {-2.7, 2.7, kNaN, 1e10, -1e10, kInf});
  ExpectValues((*RunOp("cast", {f}, {{"dtype", AttrValue::OfDType(DType::kI32)}}))[0],
               {-2, 2, 0, 2147483647.0, -2147483648.0, 2147483647.0});
  HostTensor big = FromValues(Shape{3}, DType::kI64, {5e9, -5e9, 7});
  ExpectValues((*RunOp("cast", {big}, {{"dtype", AttrValue::OfDType(DType::kI32)}}))[0],
               {2147483647.0, -2147483648.0, 7});
  HostTensor wide = FromValues(Shape{1}, DType::kF64, {1e300});
  ExpectValues((*RunOp("cast", {wide}, {{"dtype", AttrValue::OfDType(DType::kF32)}}))[0], {kInf});
}

TEST(CastKernelTest, ToHalfRoundsToNearestEven) {
  // 1 + 2^-11 is the tie between f16's 1 and 1 + 2^-10: even 1. 1 + 3 * 2^-11 ties up
  // to 1 + 2^-9. 70000 is past f16's largest finite value 65504 (and the midpoint
  // 65520 to 2^16): inf. bf16 keeps 8 bits: 1 + 2^-8 ties to 1.
  HostTensor x = FromValues(Shape{4}, DType::kF32, {1 + 0x1p-11, 1 + 3 * 0x1p-11, 7e4, 1 + 0x1p-8});
  ExpectValues((*RunOp("cast", {x}, {{"dtype", AttrValue::OfDType(DType::kF16)}}))[0],
               {1, 1 + 0x1p-9, kInf, 1 + 0x1p-8}, 0);
  ExpectValues((*RunOp("cast", {x}, {{"dtype", AttrValue::OfDType(DType::kBF16)}}))[0],
               {1, 1, 70144, 1}, 0);  // 7e4 = 0x1.1170p16 -> 0x1.12p16 = 70144
  HostTensor wrong = HostTensor(Shape{2}, DType::kF32);
  EXPECT_EQ(ErrorOf("cast", {wrong}, {{"dtype", AttrValue::OfDType(DType::kF16)}},
                    {HostTensor(Shape{2}, DType::kF32)}),
            "cast: output \"out\" is [2] f32 but the inputs give [2] f16");
}

// ---- add_n ----

TEST(AddNKernelTest, SumsAnyNumberOfInputs) {
  std::mt19937 rng(3);
  for (DType dt : AllTypes()) {
    for (int k : {2, 3, 5}) {
      for (const Shape& shape : {Shape{3, 4}, Shape{0}, Shape{}}) {
        std::vector<HostTensor> ins;
        std::vector<double> sum(static_cast<size_t>(shape.num_elements()), 0.0);
        for (int i = 0; i < k; ++i) {
          ins.push_back(Random(shape, dt, &rng, -10, 10));
          for (int64_t e = 0; e < shape.num_elements(); ++e) sum[e] += ins.back().Get(e);
        }
        auto out = RunOp("add_n", ins);
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        ExpectValues((*out)[0], sum);
      }
    }
  }
}

TEST(AddNKernelTest, MismatchedInputsAreErrors) {
  HostTensor a(Shape{2, 3}, DType::kF32);
  HostTensor out(Shape{2, 3}, DType::kF32);
  EXPECT_EQ(ErrorOf("add_n", {a, a, HostTensor(Shape{3, 2}, DType::kF32)}, {}, {out}),
            "add_n: input \"in[2]\" has shape [3,2] but \"in[0]\" has [2,3]; add_n does not "
            "broadcast");
  EXPECT_EQ(ErrorOf("add_n", {a, HostTensor(Shape{2, 3}, DType::kF64)}, {}, {out}),
            "add_n: input \"in[1]\" has dtype f64 but \"in[0]\" has f32");
  EXPECT_EQ(ErrorOf("add_n", {a}, {}, {out}),
            "add_n: takes at least 2 inputs but the call gives 1");
}

// ---- binary ops with broadcasting ----

struct BinaryCase {
  Shape x, y;
};

std::vector<BinaryCase> BroadcastCases() {
  return {
      {Shape{3, 4}, Shape{3, 4}},
      {Shape{3, 4}, Shape{4}},
      {Shape{4}, Shape{3, 4}},
      {Shape{3, 1}, Shape{1, 4}},
      {Shape{2, 1, 3}, Shape{4, 1}},
      {Shape{}, Shape{2, 3}},
      {Shape{5}, Shape{}},
      {Shape{0, 3}, Shape{3}},
      {Shape{2, 3, 4}, Shape{2, 1, 4}},
      {Shape{1, 1}, Shape{1, 1, 1}},
      {Shape{2, 3, 1}, Shape{3, 5}},
  };
}

// Reference: for each output multi-index, each operand's element with size-1 (and
// missing leading) axes pinned to 0.
std::vector<double> BroadcastRef(const HostTensor& x, const HostTensor& y, const Shape& out,
                                 const std::function<double(double, double)>& f) {
  std::vector<double> v;
  auto pick = [&](const HostTensor& t, const std::vector<int64_t>& idx) {
    std::vector<int64_t> own(static_cast<size_t>(t.shape().ndim()));
    const size_t shift = idx.size() - own.size();
    for (size_t i = 0; i < own.size(); ++i) {
      own[i] = t.shape().dim(static_cast<int>(i)) == 1 ? 0 : idx[i + shift];
    }
    return t.Get(Ravel(own, t.shape()));
  };
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    std::vector<int64_t> idx = Unravel(i, out);
    v.push_back(f(pick(x, idx), pick(y, idx)));
  }
  return v;
}

void CheckBinary(const char* op, const std::function<double(double, double)>& f,
                 bool nonzero_y = false) {
  std::mt19937 rng(5);
  for (DType dt : AllTypes()) {
    for (const BinaryCase& c : BroadcastCases()) {
      SCOPED_TRACE(std::string(op) + " " + DTypeName(dt) + " " + c.x.ToString() + " " +
                   c.y.ToString());
      HostTensor x = Random(c.x, dt, &rng, -20, 20);
      HostTensor y = Random(c.y, dt, &rng, 1, 9);
      if (!nonzero_y) y = Random(c.y, dt, &rng, -20, 20);
      auto out = RunOp(op, {x, y});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      const bool integer = dt == DType::kI32 || dt == DType::kI64;
      ExpectValues((*out)[0], BroadcastRef(x, y, (*out)[0].shape(), [&](double a, double b) {
                     return integer && std::string(op) == "div" ? std::trunc(a / b) : f(a, b);
                   }));
    }
  }
}

TEST(BinaryKernelTest, MatchReferencesWithBroadcasting) {
  CheckBinary("add", [](double a, double b) { return a + b; });
  CheckBinary("sub", [](double a, double b) { return a - b; });
  CheckBinary("mul", [](double a, double b) { return a * b; });
  CheckBinary("maximum", [](double a, double b) { return a > b ? a : b; });
  CheckBinary("minimum", [](double a, double b) { return a < b ? a : b; });
  CheckBinary(
      "div", [](double a, double b) { return a / b; }, /*nonzero_y=*/true);
}

// pow against a plain loop over the broadcast index (std::pow in double on the stored
// inputs): negative bases with integral exponents (signed results), negative bases
// with fractional exponents (NaN in both), negative exponents.
TEST(BinaryKernelTest, PowMatchesReferenceWithBroadcasting) {
  std::mt19937 rng(11);
  for (DType dt : FloatTypes()) {
    for (const BinaryCase& c : BroadcastCases()) {
      SCOPED_TRACE(std::string("pow ") + DTypeName(dt) + " " + c.x.ToString() + " " +
                   c.y.ToString());
      HostTensor x = Random(c.x, dt, &rng, -4, 4);
      // Half the exponents integral (so negative bases give finite, signed results).
      HostTensor y = Random(c.y, dt, &rng, -3, 3);
      std::vector<double> yv = y.Values();
      for (size_t i = 0; i < yv.size(); i += 2) yv[i] = std::round(yv[i]);
      y = FromValues(c.y, dt, yv);
      auto out = RunOp("pow", {x, y});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      ExpectValues(
          (*out)[0],
          BroadcastRef(x, y, (*out)[0].shape(), [](double a, double b) { return std::pow(a, b); }),
          dt == DType::kF32 ? 1e-5 : -1);
    }
  }
}

TEST(BinaryKernelTest, PowEdgeValues) {
  for (DType dt : FloatTypes()) {
    HostTensor x = FromValues(Shape{8}, dt, {-2, -2, -8, 0, 0, kNaN, 1, 2});
    HostTensor y = FromValues(Shape{8}, dt, {3, 2, 0.5, -1, 0, 0, kNaN, -kInf});
    // (-2)^3, (-2)^2, (-8)^0.5 = NaN, 0^-1 = inf, 0^0 = 1, NaN^0 = 1, 1^NaN = 1, 2^-inf = 0.
    ExpectValues((*RunOp("pow", {x, y}))[0], {-8, 4, kNaN, kInf, 1, 1, 1, 0});
    // A scalar exponent broadcast over a [2,2] base.
    HostTensor m = FromValues(Shape{2, 2}, dt, {-3, -1, 1, 3});
    ExpectValues((*RunOp("pow", {m, FromValues(Shape{}, dt, {2})}))[0], {9, 1, 1, 9});
  }
}

TEST(BinaryKernelTest, PowRefusesIntegers) {
  HostTensor x(Shape{2}, DType::kI32);
  EXPECT_EQ(ErrorOf("pow", {x, x}, {}, {HostTensor(Shape{2}, DType::kI32)}),
            "pow: input \"x\" has dtype i32; the cpu kernel supports f32, f64, f16, bf16");
}

TEST(BinaryKernelTest, DivisorSignsAndIntegerTruncation) {
  HostTensor x = FromValues(Shape{4}, DType::kI64, {7, -7, 7, -7});
  HostTensor y = FromValues(Shape{4}, DType::kI64, {2, 2, -2, -2});
  ExpectValues((*RunOp("div", {x, y}))[0], {3, -3, -3, 3});
  HostTensor lowest = FromValues(Shape{1}, DType::kI32, {-2147483648.0});
  HostTensor minus_one = FromValues(Shape{1}, DType::kI32, {-1});
  ExpectValues((*RunOp("div", {lowest, minus_one}))[0], {-2147483648.0});
  HostTensor fx = FromValues(Shape{3}, DType::kF32, {1, -1, 0});
  HostTensor fy = FromValues(Shape{}, DType::kF32, {0});
  ExpectValues((*RunOp("div", {fx, fy}))[0], {kInf, -kInf, kNaN});
}

TEST(BinaryKernelTest, IntegerDivisionByZeroNamesThePosition) {
  HostTensor x(Shape{2, 3}, DType::kI32);
  HostTensor y = FromValues(Shape{2, 3}, DType::kI32, {1, 2, 3, 4, 0, 6});
  EXPECT_EQ(ErrorOf("div", {x, y}, {}, {HostTensor(Shape{2, 3}, DType::kI32)}),
            "div: input \"y\" has 0 at [1,1]; integer division by zero");
}

TEST(BinaryKernelTest, MaximumAndMinimumPropagateNaN) {
  HostTensor x = FromValues(Shape{3}, DType::kF64, {kNaN, 1, kNaN});
  HostTensor y = FromValues(Shape{3}, DType::kF64, {1, kNaN, kNaN});
  ExpectValues((*RunOp("maximum", {x, y}))[0], {kNaN, kNaN, kNaN});
  ExpectValues((*RunOp("minimum", {x, y}))[0], {kNaN, kNaN, kNaN});
}

TEST(BinaryKernelTest, IntegerAddWraps) {
  HostTensor x = FromValues(Shape{1}, DType::kI32, {2147483647.0});
  ExpectValues((*RunOp("add", {x, x}))[0], {-2.0});
  ExpectValues((*RunOp("mul", {x, x}))[0], {1.0});
}

TEST(BinaryKernelTest, BadCallsAreNamed) {
  HostTensor x(Shape{2, 3}, DType::kF32);
  HostTensor out(Shape{2, 3}, DType::kF32);
  EXPECT_EQ(ErrorOf("add", {x, HostTensor(Shape{4}, DType::kF32)}, {}, {out}),
            "add: inputs \"x\" [2,3] and \"y\" [4] do not broadcast: output axis 1 has 3 in x "
            "and 4 in y");
  EXPECT_EQ(ErrorOf("sub", {x, HostTensor(Shape{3}, DType::kF64)}, {}, {out}),
            "sub: input \"y\" has dtype f64 but \"x\" has f32");
  EXPECT_EQ(ErrorOf("mul", {x}, {}, {out}), "mul: takes 2 inputs but the call gives 1");
  EXPECT_EQ(ErrorOf("mul", {x, x, x}, {}, {out}), "mul: takes 2 inputs but the call gives 3");
  EXPECT_EQ(ErrorOf("add", {x, x}, {}, {}), "add: has 1 outputs but the call gives 0");
  EXPECT_EQ(ErrorOf("maximum", {x, HostTensor(Shape{3}, DType::kF32)}, {},
                    {HostTensor(Shape{3}, DType::kF32)}),
            "maximum: output \"out\" is [3] f32 but the inputs give [2,3] f32");
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
