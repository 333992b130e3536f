// TESSERA_HOST_LINK_GBITS as the runtime reads it (core/comm/world_topology.h): a speed
// in Gbit/s, "measure", or unset; anything else is refused naming the variable and value.
#include <gtest/gtest.h>

#include <string>

#include "core/comm/world_topology.h"
#include "tests/comm/comm_test_util.h"

namespace tessera::comm {
namespace {

TEST(HostLinkSettingTest, SpeedMeasureOrUnset) {
  {
    ScopedEnv env(kHostLinkEnv, "");
    HostLinkSetting s = HostLinkSettingFromEnv().value();
    EXPECT_FALSE(s.measure);
    EXPECT_FALSE(s.gbits.has_value());
  }
  {
    ScopedEnv env(kHostLinkEnv, "25");
    HostLinkSetting s = HostLinkSettingFromEnv().value();
    EXPECT_FALSE(s.measure);
    EXPECT_EQ(s.gbits, 25.0);
  }
  {
    ScopedEnv env(kHostLinkEnv, "0.1");
    EXPECT_EQ(HostLinkSettingFromEnv().value().gbits, 0.1);
  }
  {
    ScopedEnv env(kHostLinkEnv, "measure");
    HostLinkSetting s = HostLinkSettingFromEnv().value();
    EXPECT_TRUE(s.measure);
    EXPECT_FALSE(s.gbits.has_value());
  }
}

TEST(HostLinkSettingTest, BadValuesNameTheVariable) {
  for (const char* bad : {"fast", "0", "-1", "10G", "nan", "inf", "2e6", "measured"}) {
    ScopedEnv env(kHostLinkEnv, bad);
    Result<HostLinkSetting> s = HostLinkSettingFromEnv();
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.status().message(),
              std::string("environment variable TESSERA_HOST_LINK_GBITS is \"") + bad +
                  "\"; it must be a speed in Gbit/s (> 0, at most 1e6) or "
                  "\"measure\"");
  }
}

}  // namespace
}  // namespace tessera::comm
