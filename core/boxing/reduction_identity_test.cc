#include "core/boxing/reduction_identity.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace tessera::boxing {
namespace {

using comm::ReduceOp;

template <typename T>
std::vector<T> Filled(DType dtype, ReduceOp op) {
  std::vector<T> v(5, T(7));
  FillReductionIdentity(v.data(), static_cast<int64_t>(v.size()), dtype, op);
  return v;
}

TEST(ReductionIdentityTest, Floats) {
  const float inf = std::numeric_limits<float>::infinity();
  // -0.0, the IEEE additive identity: x + (-0.0) is x for every x, -0.0 included.
  for (float v : Filled<float>(DType::kF32, ReduceOp::kSum)) {
    EXPECT_TRUE(v == 0.0f && std::signbit(v)) << v;
  }
  for (double v : Filled<double>(DType::kF64, ReduceOp::kSum)) {
    EXPECT_TRUE(v == 0.0 && std::signbit(v)) << v;
  }
  EXPECT_EQ(Filled<float>(DType::kF32, ReduceOp::kMax), std::vector<float>(5, -inf));
  EXPECT_EQ(Filled<float>(DType::kF32, ReduceOp::kMin), std::vector<float>(5, inf));
  const double dinf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(Filled<double>(DType::kF64, ReduceOp::kMax), std::vector<double>(5, -dinf));
}

// The bits: -0.0 (sign bit only), -inf and +inf of each format.
TEST(ReductionIdentityTest, HalfTypes) {
  auto bits = [](DType dtype, ReduceOp op) {
    std::vector<uint16_t> v(3, 7);
    FillReductionIdentity(v.data(), 3, dtype, op);
    return v;
  };
  EXPECT_EQ(bits(DType::kF16, ReduceOp::kSum), std::vector<uint16_t>(3, 0x8000));
  EXPECT_EQ(bits(DType::kF16, ReduceOp::kMax), std::vector<uint16_t>(3, 0xfc00));
  EXPECT_EQ(bits(DType::kF16, ReduceOp::kMin), std::vector<uint16_t>(3, 0x7c00));
  EXPECT_EQ(bits(DType::kBF16, ReduceOp::kSum), std::vector<uint16_t>(3, 0x8000));
  EXPECT_EQ(bits(DType::kBF16, ReduceOp::kMax), std::vector<uint16_t>(3, 0xff80));
  EXPECT_EQ(bits(DType::kBF16, ReduceOp::kMin), std::vector<uint16_t>(3, 0x7f80));
}

TEST(ReductionIdentityTest, Integers) {
  EXPECT_EQ(Filled<int32_t>(DType::kI32, ReduceOp::kSum), std::vector<int32_t>(5, 0));
  EXPECT_EQ(Filled<int32_t>(DType::kI32, ReduceOp::kMax),
            std::vector<int32_t>(5, std::numeric_limits<int32_t>::lowest()));
  EXPECT_EQ(Filled<int64_t>(DType::kI64, ReduceOp::kMin),
            std::vector<int64_t>(5, std::numeric_limits<int64_t>::max()));
}

TEST(ReductionIdentityTest, ZeroCountTouchesNothing) {
  FillReductionIdentity(nullptr, 0, DType::kF32, ReduceOp::kMax);
}

}  // namespace
}  // namespace tessera::boxing
