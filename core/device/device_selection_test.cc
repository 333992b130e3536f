#include "core/device/device_selection.h"

#include <gtest/gtest.h>

namespace tessera::device {
namespace {

class DeviceSelectionTest : public ::testing::Test {
 protected:
  void SetUp() override { ResetDeviceSelectionForTest(); }
  void TearDown() override { ResetDeviceSelectionForTest(); }
};

TEST_F(DeviceSelectionTest, NoChoiceUntilOneIsMade) {
  EXPECT_FALSE(SelectedDevice().has_value());
  ASSERT_TRUE(SelectDevice(-1).ok());
  EXPECT_FALSE(SelectedDevice().has_value());
}

TEST_F(DeviceSelectionTest, AChoiceIsKeptAndMayBeRepeated) {
  ASSERT_TRUE(SelectDevice(2).ok());
  EXPECT_EQ(SelectedDevice(), 2);
  EXPECT_TRUE(SelectDevice(2).ok());
  // -1 asks for nothing: the choice stays.
  EXPECT_TRUE(SelectDevice(-1).ok());
  EXPECT_EQ(SelectedDevice(), 2);
}

TEST_F(DeviceSelectionTest, AnotherDeviceAfterAChoiceIsRefusedNamingBoth) {
  ASSERT_TRUE(SelectDevice(0).ok());
  Status s = SelectDevice(1);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("CUDA device 1 requested, but device 0"), std::string::npos)
      << s.message();
  EXPECT_EQ(SelectedDevice(), 0);
}

TEST_F(DeviceSelectionTest, BelowMinusOneIsInvalidAndNamesTheValue) {
  Status s = SelectDevice(-2);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("CUDA device -2"), std::string::npos) << s.message();
  EXPECT_FALSE(SelectedDevice().has_value());
}

}  // namespace
}  // namespace tessera::device
