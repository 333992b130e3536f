#include "core/boxing/boxing_workspace.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace tessera::boxing {
namespace {

TEST(BoxingWorkspaceTest, StagingGrowsAndIsReused) {
  BoxingWorkspace ws;
  void* a = ws.Staging(BoxingWorkspace::kFirstIntermediateSlot, 100).value();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  EXPECT_EQ(ws.staging_capacity(BoxingWorkspace::kFirstIntermediateSlot), 128u);
  EXPECT_EQ(ws.Staging(BoxingWorkspace::kFirstIntermediateSlot, 64).value(), a);
  EXPECT_EQ(ws.staging_capacity(BoxingWorkspace::kSendSlot), 0u);
}

TEST(BoxingWorkspaceTest, OverlapsNamesBuffersInsideStaging) {
  BoxingWorkspace ws;
  char outside[16] = {};
  EXPECT_FALSE(ws.Overlaps(outside, sizeof(outside)));  // nothing allocated yet
  char* stage = static_cast<char*>(ws.Staging(BoxingWorkspace::kRecvSlot, 256).value());
  EXPECT_TRUE(ws.Overlaps(stage, 1));
  EXPECT_TRUE(ws.Overlaps(stage + 255, 8));
  EXPECT_TRUE(ws.Overlaps(stage - 8, 9));   // ends one byte inside
  EXPECT_FALSE(ws.Overlaps(stage - 8, 8));  // ends right before
  EXPECT_FALSE(ws.Overlaps(stage + 256, 8));
  EXPECT_FALSE(ws.Overlaps(outside, sizeof(outside)));
  EXPECT_FALSE(ws.Overlaps(nullptr, 100));
  EXPECT_FALSE(ws.Overlaps(stage, 0));
}

}  // namespace
}  // namespace tessera::boxing
