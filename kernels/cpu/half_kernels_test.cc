// f16 and bf16 on every CPU kernel: each op's example call (kernel_test_util's
// ExampleCalls) runs once on f16/bf16 inputs and once on f32 inputs holding the same
// values; the 2-byte result must be the f32 result rounded to the 2-byte type. The f32
// kernels are checked against naive references in their own tests, so this pins the
// contract "compute in f32, round once on store" for every op at once. Then targeted
// cases where computing in the 2-byte type would give a visibly different answer.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/common/half.h"
#include "core/op/op_registry.h"
#include "kernels/cpu/kernel_test_util.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

HostTensor Converted(const HostTensor& t, DType to) {
  HostTensor out(t.shape(), to);
  for (int64_t i = 0; i < t.size(); ++i) out.Set(i, t.Get(i));
  return out;
}

double RoundTo(DType half, double v) {
  const float f = static_cast<float>(v);
  return half == DType::kF16 ? static_cast<float>(Float16(f)) : static_cast<float>(BFloat16(f));
}

// Tolerance of the comparison with the rounded f32 result, relative to max(1, |want|):
// one ulp of the 2-byte type at 1 (2^-10, 2^-7). The two kernels compute the same
// float expression, so the results are one rounding apart at most where the f32
// kernel's own rounding of an intermediate lands on the other side of a 2-byte tie;
// gather_grad's repeated indices round each addition, still well within one ulp for
// the example's two-term sums.
void CheckOpOnHalf(const std::string& name, const ExampleCall& call, DType half) {
  std::mt19937 rng(17);
  std::vector<HostTensor> half_in, f32_in;
  bool any_float = false;
  for (const HostTensor& t : ExampleInputs(call, &rng)) {
    if (t.dtype() != DType::kF32) {
      half_in.push_back(t);
      f32_in.push_back(t);
      continue;
    }
    any_float = true;
    half_in.push_back(Converted(t, half));
    f32_in.push_back(Converted(half_in.back(), DType::kF32));  // the same values exactly
  }
  if (!any_float) return;
  auto want = RunOp(name, f32_in, call.attrs);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto got = RunOp(name, half_in, call.attrs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), want->size());
  for (size_t j = 0; j < got->size(); ++j) {
    const HostTensor& g = (*got)[j];
    const HostTensor& w = (*want)[j];
    SCOPED_TRACE("output " + std::to_string(j));
    ASSERT_EQ(g.shape(), w.shape());
    std::vector<double> expected = w.Values();
    if (w.dtype() == DType::kF32) {
      ASSERT_EQ(g.dtype(), half);
      for (double& e : expected) e = RoundTo(half, e);
      ExpectValues(g, expected, Tolerance(half));
    } else {
      ASSERT_EQ(g.dtype(), w.dtype());
      ExpectValues(g, expected, 0);
    }
  }
}

TEST(HalfKernelsTest, EveryOpIsItsF32ResultRounded) {
  for (DType half : {DType::kF16, DType::kBF16}) {
    for (const auto& [name, call] : ExampleCalls()) {
      SCOPED_TRACE(name + " " + DTypeName(half));
      CheckOpOnHalf(name, call, half);
    }
  }
}

std::vector<double> Ones(int64_t n) { return std::vector<double>(static_cast<size_t>(n), 1.0); }

// 4096 ones: summed in f16 the total would stop at 2048 (2048 + 1 rounds back to
// 2048); summed in float it is exactly 4096, which f16 and bf16 hold.
TEST(HalfKernelsTest, SumsAccumulateInFloat) {
  for (DType half : {DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(DTypeName(half));
    const HostTensor row = FromValues(Shape{1, 4096}, half, Ones(4096));
    const HostTensor col = FromValues(Shape{4096, 1}, half, Ones(4096));
    const AttrMap axis1{{"axes", AttrValue::Ints({1})}};
    const AttrMap axis0{{"axes", AttrValue::Ints({0})}};
    ExpectValues((*RunOp("reduce_sum", {row}, axis1))[0], {4096}, 0);
    ExpectValues((*RunOp("reduce_sum", {col}, axis0))[0], {4096}, 0);  // outer-axis path
    ExpectValues((*RunOp("reduce_mean", {col}, axis0))[0], {1}, 0);
    // A 1x4096 by 4096x1 product: a dot product of 4096 ones.
    ExpectValues((*RunOp("matmul", {row, col}))[0], {4096}, 0);
  }
}

// Values near the top of f16's range: an f16 intermediate would overflow to inf, float
// does not. softmax's max is 60000; (60000 - 60000) etc. stay small. mean of 60000 and
// 60000 is 60000, though their sum (120000) is past f16's 65504.
TEST(HalfKernelsTest, IntermediatesDoNotOverflowTheTwoByteRange) {
  const HostTensor big = FromValues(Shape{2}, DType::kF16, {60000, 60000});
  ExpectValues((*RunOp("reduce_mean", {big}, {{"axes", AttrValue::Ints({0})}}))[0], {60000}, 0);
  ExpectValues((*RunOp("softmax", {big}, {{"axis", AttrValue::Int(0)}}))[0], {0.5, 0.5}, 0);
  // Whose stored sum does overflow: inf, as IEEE rounding says.
  ExpectValues((*RunOp("add", {big, big}))[0], {kInf, kInf}, 0);
}

TEST(HalfKernelsTest, NaNAndInfinityPropagate) {
  for (DType half : {DType::kF16, DType::kBF16}) {
    const HostTensor x = FromValues(Shape{3}, half, {kNaN, kInf, -kInf});
    const HostTensor y = FromValues(Shape{3}, half, {1, 1, 1});
    ExpectValues((*RunOp("mul", {x, y}))[0], {kNaN, kInf, -kInf}, 0);
    ExpectValues((*RunOp("reduce_max", {x}, {{"axes", AttrValue::Ints({0})}}))[0], {kNaN}, 0);
    ExpectValues((*RunOp("relu", {x}))[0], {kNaN, kInf, 0}, 0);
    // argmax: the first NaN wins over anything, inf included.
    const HostTensor z = FromValues(Shape{3}, half, {1, kNaN, kInf});
    ExpectValues((*RunOp("argmax", {z}, {{"axis", AttrValue::Int(0)}}))[0], {1}, 0);
  }
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
