#include "core/common/dtype.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(DTypeTest, NamesRoundTrip) {
  for (int i = 0; i < kNumDTypes; ++i) {
    DType d = static_cast<DType>(i);
    Result<DType> parsed = ParseDType(DTypeName(d));
    ASSERT_TRUE(parsed.ok()) << DTypeName(d);
    EXPECT_EQ(*parsed, d);
  }
}

TEST(DTypeTest, SizesAndSupport) {
  EXPECT_EQ(DTypeSize(DType::kF32), 4u);
  EXPECT_EQ(DTypeSize(DType::kF64), 8u);
  EXPECT_EQ(DTypeSize(DType::kI32), 4u);
  EXPECT_EQ(DTypeSize(DType::kI64), 8u);
  EXPECT_EQ(DTypeSize(DType::kBF16), 2u);
  EXPECT_EQ(DTypeSize(DType::kBool), 1u);
  EXPECT_TRUE(IsSupported(DType::kBool));
  EXPECT_EQ(*ParseDType("bool"), DType::kBool);
  EXPECT_TRUE(IsSupported(DType::kI64));
  EXPECT_TRUE(IsSupported(DType::kF16));
  EXPECT_TRUE(IsSupported(DType::kBF16));
  EXPECT_FALSE(IsSupported(static_cast<DType>(kNumDTypes)));
}

TEST(DTypeTest, BadInput) {
  Result<DType> r = ParseDType("float32");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"float32\""), std::string::npos);
  EXPECT_FALSE(IsValidDType(-1));
  EXPECT_FALSE(IsValidDType(kNumDTypes));
  EXPECT_TRUE(IsValidDType(0));
}

}  // namespace
}  // namespace tessera
