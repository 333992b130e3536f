#include "core/common/limits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tessera {
namespace {

TEST(LimitsTest, TimeoutSeconds) {
  EXPECT_TRUE(CheckTimeoutSeconds("t", 0).ok());
  EXPECT_TRUE(CheckTimeoutSeconds("t", 3.5).ok());
  EXPECT_TRUE(CheckTimeoutSeconds("t", kMaxTimeoutSeconds).ok());
  Status s = CheckTimeoutSeconds("timeout", 1e10);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "timeout is 1e+10; expected a finite number of seconds >= 0 and <= 1e+06 (~11.6 days)");
  EXPECT_FALSE(CheckTimeoutSeconds("t", -1).ok());
  EXPECT_FALSE(CheckTimeoutSeconds("t", std::nan("")).ok());
  EXPECT_FALSE(CheckTimeoutSeconds("t", std::numeric_limits<double>::infinity()).ok());
  EXPECT_NE(CheckTimeoutSeconds("t", std::nan("")).message().find("t is nan"), std::string::npos);
}

}  // namespace
}  // namespace tessera
