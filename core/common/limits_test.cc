#include "core/common/limits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace tessera {
namespace {

TEST(LimitsTest, TimeoutAtMostMax) {
  EXPECT_TRUE(CheckTimeoutAtMostMax("t", "", 0).ok());
  EXPECT_TRUE(CheckTimeoutAtMostMax("t", "", 3.5).ok());
  EXPECT_TRUE(CheckTimeoutAtMostMax("t", "", kMaxTimeoutSeconds).ok());
  Status s = CheckTimeoutAtMostMax("time", "out", 1e10);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "timeout is 1e+10; the longest timeout is 1e+06 s (~11.6 days)");
  EXPECT_FALSE(CheckTimeoutAtMostMax("t", "", std::nextafter(kMaxTimeoutSeconds, 2e6)).ok());
  EXPECT_FALSE(CheckTimeoutAtMostMax("t", "", std::nan("")).ok());
  EXPECT_FALSE(CheckTimeoutAtMostMax("t", "", std::numeric_limits<double>::infinity()).ok());
}

TEST(LimitsTest, ParsedTextLength) {
  EXPECT_TRUE(CheckParsedTextLength("nd-sbp", std::string(kMaxParsedTextLength, ' ')).ok());
  Status s = CheckParsedTextLength("nd-sbp", std::string(kMaxParsedTextLength + 1, ' '));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "nd-sbp text is 65537 characters long; at most 65536 are accepted");
}

}  // namespace
}  // namespace tessera
