// The TESSERA_* environment readers: unset and empty mean "not set"; anything else
// must parse completely, and errors name the variable and the value.
#include "core/comm/env_config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace tessera::comm {
namespace {

constexpr char kName[] = "TESSERA_ENV_CONFIG_TEST";

TEST(EnvConfigTest, UnsetAndEmptyAreNotSet) {
  unsetenv(kName);
  EXPECT_FALSE(EnvInt64(kName, 1).value().has_value());
  EXPECT_FALSE(EnvSeconds(kName).value().has_value());
  setenv(kName, "", 1);
  EXPECT_FALSE(EnvInt64(kName, 1).value().has_value());
  EXPECT_FALSE(EnvSeconds(kName).value().has_value());
  unsetenv(kName);
}

TEST(EnvConfigTest, Integers) {
  setenv(kName, "42", 1);
  EXPECT_EQ(EnvInt64(kName, 1).value(), 42);
  setenv(kName, "0", 1);
  EXPECT_EQ(EnvInt64(kName, 0).value(), 0);
  for (const char* bad : {"0", "-1", "abc", "3.5", "7 ", "", "99999999999999999999"}) {
    if (*bad == '\0') continue;  // empty is "not set", covered above
    setenv(kName, bad, 1);
    auto value = EnvInt64(kName, 1);
    EXPECT_EQ(value.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(value.status().message(), "environment variable TESSERA_ENV_CONFIG_TEST is \"" +
                                            std::string(bad) + "\"; it must be an integer >= 1");
  }
  unsetenv(kName);
}

TEST(EnvConfigTest, Flags) {
  unsetenv(kName);
  EXPECT_FALSE(EnvFlag(kName).value().has_value());
  setenv(kName, "", 1);
  EXPECT_FALSE(EnvFlag(kName).value().has_value());
  setenv(kName, "1", 1);
  EXPECT_EQ(EnvFlag(kName).value(), std::optional<bool>(true));
  setenv(kName, "0", 1);
  EXPECT_EQ(EnvFlag(kName).value(), std::optional<bool>(false));
  for (const char* bad : {"yes", "2", "01", "1 ", "true", "-1"}) {
    setenv(kName, bad, 1);
    auto value = EnvFlag(kName);
    EXPECT_EQ(value.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(value.status().message(), "environment variable TESSERA_ENV_CONFIG_TEST is \"" +
                                            std::string(bad) + "\"; it must be 0 (off) or 1 (on)");
  }
  unsetenv(kName);
}

TEST(EnvConfigTest, Seconds) {
  setenv(kName, "0.25", 1);
  EXPECT_EQ(EnvSeconds(kName).value(), 0.25);
  setenv(kName, "1e-3", 1);
  EXPECT_EQ(EnvSeconds(kName).value(), 1e-3);
  setenv(kName, "0", 1);
  EXPECT_EQ(EnvSeconds(kName).value(), 0.0);
  for (const char* bad : {"-0.5", "inf", "nan", "5s", "x", "1e999"}) {
    setenv(kName, bad, 1);
    auto value = EnvSeconds(kName);
    EXPECT_EQ(value.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(value.status().message(), "environment variable TESSERA_ENV_CONFIG_TEST is \"" +
                                            std::string(bad) +
                                            "\"; it must be a finite number of seconds >= 0");
  }
  // Finite but past the maximum: std::chrono's integer ticks would overflow.
  setenv(kName, "1e10", 1);
  EXPECT_EQ(EnvSeconds(kName).status().message(),
            "environment variable TESSERA_ENV_CONFIG_TEST is 1e+10; the longest timeout is 1e+06 s "
            "(~11.6 days)");
  setenv(kName, "1e6", 1);
  EXPECT_EQ(EnvSeconds(kName).value(), 1e6);
  unsetenv(kName);
}

}  // namespace
}  // namespace tessera::comm
