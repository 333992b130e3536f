#include "core/boxing/boxing_workspace.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>

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

namespace tessera::boxing {
namespace {

// Memory of a pretend device: host memory, counted, that can be made to run out.
class CountingAllocator final : public memory::Allocator {
 public:
  Result<void*> Allocate(size_t bytes, size_t alignment) override {
    if (bytes > limit) return Status(StatusCode::kResourceExhausted, "over the limit");
    ++allocs;
    last_bytes = bytes;
    return std::aligned_alloc(alignment, bytes);
  }
  Status Free(void* ptr) override {
    ++frees;
    std::free(ptr);
    return Status::Ok();
  }
  memory::AllocatorStats stats() const override { return {}; }
  void ResetPeak() override {}
  DeviceType device_type() const override { return DeviceType::kCuda; }
  int device_index() const override { return 3; }
  size_t max_alignment() const override { return 4096; }

  size_t limit = 1 << 20;
  int allocs = 0, frees = 0;
  size_t last_bytes = 0;
};

TEST(BoxingWorkspaceTest, StagingFromAnAllocatorGrowsAndIsFreed) {
  CountingAllocator memory;
  {
    BoxingWorkspace ws(&memory);
    EXPECT_EQ(ws.device_type(), DeviceType::kCuda);
    EXPECT_EQ(ws.device_index(), 3);
    void* a = ws.Staging(BoxingWorkspace::kSendSlot, 100).value();
    EXPECT_EQ(memory.allocs, 1);
    EXPECT_EQ(memory.last_bytes, 128u);
    EXPECT_EQ(ws.Staging(BoxingWorkspace::kSendSlot, 128).value(), a);  // no growth
    EXPECT_EQ(memory.allocs, 1);
    ASSERT_TRUE(ws.Staging(BoxingWorkspace::kSendSlot, 1000).ok());  // the old one goes first
    EXPECT_EQ(memory.allocs, 2);
    EXPECT_EQ(memory.frees, 1);
    ASSERT_TRUE(ws.Staging(BoxingWorkspace::kRecvSlot, 8).ok());
    EXPECT_EQ(memory.allocs, 3);
  }
  EXPECT_EQ(memory.frees, 3);  // everything back when the workspace goes
}

TEST(BoxingWorkspaceTest, AnAllocatorThatRunsOutIsNamed) {
  CountingAllocator memory;
  memory.limit = 64;
  BoxingWorkspace ws(&memory);
  Result<void*> staging = ws.Staging(BoxingWorkspace::kRecvSlot, 100);
  EXPECT_EQ(staging.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(staging.status().message(),
            "boxing: cannot allocate a staging buffer of 128 bytes in cuda:3 memory: over the "
            "limit");
  EXPECT_EQ(ws.staging_capacity(BoxingWorkspace::kRecvSlot), 0u);
}

TEST(BoxingWorkspaceTest, DefaultStagingIsHostMemory) {
  BoxingWorkspace ws;
  EXPECT_EQ(ws.device_type(), DeviceType::kCpu);
  EXPECT_EQ(ws.device_index(), 0);
  BoxingWorkspace null_allocator(nullptr);
  EXPECT_EQ(null_allocator.device_type(), DeviceType::kCpu);
}

}  // namespace
}  // namespace tessera::boxing
