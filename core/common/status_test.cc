#include "core/common/status.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

Result<int> Half(int x) {
  if (x % 2) return InvalidArgument("x is odd: " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  TESS_ASSIGN_OR_RETURN(int h, Half(x));
  TESS_ASSIGN_OR_RETURN(h, Half(h));
  return h;
}

Status CheckEven(int x) {
  TESS_RETURN_IF_ERROR(Half(x));
  return Status::Ok();
}

TEST(StatusTest, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, CarriesCodeAndMessage) {
  Status s = InvalidArgument("bad thing");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.ToString(), "INVALID_ARGUMENT: bad thing");
}

TEST(StatusTest, MacrosPropagate) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "x is odd: 3");
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_EQ(CheckEven(5).code(), StatusCode::kInvalidArgument);
}

TEST(StatusTest, ResultFromOkStatusIsAnError) {
  Result<int> r{Status::Ok()};
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

TEST(StatusTest, CodeNames) {
  EXPECT_STREQ(StatusCodeName(StatusCode::kOutOfRange), "OUT_OF_RANGE");
  EXPECT_STREQ(StatusCodeName(StatusCode::kDataLoss), "DATA_LOSS");
}

}  // namespace
}  // namespace tessera
