// reduce_* against loops over logical indices with double accumulation.
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

// Folds every x element into the output element its kept indices name.
std::vector<double> ReduceRef(const std::string& op, const HostTensor& x,
                              const std::vector<int64_t>& axes, const Shape& out) {
  const int nd = x.shape().ndim();
  std::vector<bool> reduced(static_cast<size_t>(nd), axes.empty());
  for (int64_t a : axes) reduced[a < 0 ? a + nd : a] = true;
  const bool integer = x.dtype() == DType::kI32 || x.dtype() == DType::kI64;
  double init = 0;
  if (op == "reduce_max")
    init = integer ? (x.dtype() == DType::kI32 ? -2147483648.0 : -9.223372036854775808e18) : -kInf;
  if (op == "reduce_min")
    init = integer ? (x.dtype() == DType::kI32 ? 2147483647.0 : 9.223372036854775807e18) : kInf;
  std::vector<double> acc(static_cast<size_t>(out.num_elements()), init);
  std::vector<int64_t> count(acc.size(), 0);
  for (int64_t e = 0; e < x.size(); ++e) {
    std::vector<int64_t> idx = Unravel(e, x.shape());
    int64_t o = 0;
    for (int i = 0; i < nd; ++i) {
      if (!reduced[i]) o = o * x.shape().dim(i) + idx[i];
    }
    const double v = x.Get(e);
    if (op == "reduce_max") {
      acc[o] = (std::isnan(v) || v > acc[o]) ? v : acc[o];
    } else if (op == "reduce_min") {
      acc[o] = (std::isnan(v) || v < acc[o]) ? v : acc[o];
    } else {
      acc[o] += v;
    }
    ++count[o];
  }
  if (op == "reduce_mean") {
    for (size_t i = 0; i < acc.size(); ++i) acc[i] = count[i] == 0 ? kNaN : acc[i] / count[i];
  }
  return acc;
}

void CheckReduce(const std::string& op, const std::vector<DType>& dtypes) {
  std::mt19937 rng(23);
  const std::vector<std::vector<int64_t>> axes_cases = {{},     {0},    {1},       {2},    {-1},
                                                        {0, 2}, {1, 2}, {2, 0, 1}, {0, 1}, {-3}};
  for (DType dt : dtypes) {
    for (const Shape& shape : {Shape{2, 3, 4}, Shape{3, 1, 5}, Shape{2, 0, 3}}) {
      for (const auto& axes : axes_cases) {
        for (bool keepdims : {false, true}) {
          SCOPED_TRACE(op + " " + DTypeName(dt) + " " + shape.ToString() + " axes " +
                       IntsString(axes) + (keepdims ? " keepdims" : ""));
          HostTensor x = Random(shape, dt, &rng, -50, 50);
          AttrMap attrs{{"axes", AttrValue::Ints(axes)}, {"keepdims", AttrValue::Bool(keepdims)}};
          auto out = RunOp(op, {x}, attrs);
          ASSERT_TRUE(out.ok()) << out.status().ToString();
          ExpectValues((*out)[0], ReduceRef(op, x, axes, (*out)[0].shape()));
        }
      }
    }
  }
}

TEST(ReduceKernelTest, SumMaxMinEveryDtypeAndAxisSet) {
  CheckReduce("reduce_sum", AllTypes());
  CheckReduce("reduce_max", AllTypes());
  CheckReduce("reduce_min", AllTypes());
}

TEST(ReduceKernelTest, MeanFloatingTypes) { CheckReduce("reduce_mean", FloatTypes()); }

TEST(ReduceKernelTest, ScalarInputAndDefaults) {
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"}) {
    HostTensor x = FromValues(Shape{}, DType::kF64, {2.5});
    auto out = RunOp(op, {x});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].shape(), Shape{});
    ExpectValues((*out)[0], {2.5});
  }
}

TEST(ReduceKernelTest, EmptyReductionsGiveIdentities) {
  HostTensor x(Shape{0, 3}, DType::kF32);
  AttrMap axis0{{"axes", AttrValue::Ints({0})}};
  ExpectValues((*RunOp("reduce_sum", {x}, axis0))[0], {0, 0, 0});
  ExpectValues((*RunOp("reduce_max", {x}, axis0))[0], {-kInf, -kInf, -kInf});
  ExpectValues((*RunOp("reduce_min", {x}, axis0))[0], {kInf, kInf, kInf});
  // The output garbage is NaN too, so prefill it to see the kernel write NaN.
  std::vector<HostTensor> out{FromValues(Shape{3}, DType::kF32, {1, 1, 1})};
  ASSERT_TRUE(RunOpInto("reduce_mean", {x}, axis0, &out).ok());
  ExpectValues(out[0], {kNaN, kNaN, kNaN});
  HostTensor xi(Shape{0}, DType::kI32);
  ExpectValues((*RunOp("reduce_max", {xi}))[0], {-2147483648.0});
  ExpectValues((*RunOp("reduce_min", {xi}))[0], {2147483647.0});
}

TEST(ReduceKernelTest, LongRowsAccumulateInDouble) {
  // 2^24 + 1 ones: a float accumulator would stop at 2^24.
  const int64_t n = (int64_t{1} << 24) + 4;
  HostTensor x(Shape{n}, DType::kF32);
  for (int64_t i = 0; i < n; ++i) x.data<float>()[i] = 1.0f;
  ExpectValues((*RunOp("reduce_sum", {x}))[0], {static_cast<double>(static_cast<float>(n))}, 0);
}

TEST(ReduceKernelTest, MaxAndMinPropagateNaN) {
  HostTensor x = FromValues(Shape{2, 3}, DType::kF64, {1, kNaN, 3, 4, 5, 6});
  AttrMap last{{"axes", AttrValue::Ints({1})}};
  ExpectValues((*RunOp("reduce_max", {x}, last))[0], {kNaN, 6});
  ExpectValues((*RunOp("reduce_min", {x}, last))[0], {kNaN, 4});
  AttrMap first{{"axes", AttrValue::Ints({0})}};
  ExpectValues((*RunOp("reduce_max", {x}, first))[0], {4, kNaN, 6});
}

TEST(ReduceKernelTest, BadCallsAreNamed) {
  HostTensor x(Shape{2, 3}, DType::kF32);
  HostTensor out3(Shape{3}, DType::kF32);
  EXPECT_EQ(ErrorOf("reduce_sum", {x}, {{"axes", AttrValue::Ints({0, -2})}}, {out3}),
            "reduce_sum: attribute \"axes\" names axis 0 twice");
  EXPECT_EQ(ErrorOf("reduce_sum", {x}, {{"axes", AttrValue::Ints({2})}}, {out3}),
            "reduce_sum: attribute \"axes\" is 2 but input \"x\" has shape [2,3] (2 axes; valid "
            "axes are -2..1)");
  EXPECT_EQ(ErrorOf("reduce_max", {x},
                    {{"axes", AttrValue::Ints({0})}, {"keepdims", AttrValue::Bool(true)}}, {out3}),
            "reduce_max: output \"out\" is [3] f32 but the inputs give [1,3] f32");
  EXPECT_EQ(ErrorOf("reduce_mean", {HostTensor(Shape{2}, DType::kI32)}, {},
                    {HostTensor(Shape{}, DType::kI32)}),
            "reduce_mean: input \"x\" has dtype i32; the cpu kernel supports f32, f64, f16, bf16");
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
