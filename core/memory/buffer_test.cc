#include "core/memory/buffer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <type_traits>
#include <utility>

#include "core/memory/caching_allocator.h"
#include "core/memory/memory_test_util.h"

namespace tessera {
namespace memory {
namespace {

using ::testing::HasSubstr;

static_assert(!std::is_copy_constructible_v<Buffer>, "Buffer is move-only");
static_assert(!std::is_copy_assignable_v<Buffer>, "Buffer is move-only");
static_assert(std::is_nothrow_move_constructible_v<Buffer>, "");
static_assert(std::is_nothrow_move_assignable_v<Buffer>, "");

class BufferTest : public ::testing::Test {
 protected:
  FakeSystemAllocator system_;
  CachingAllocator cache_{&system_};
};

TEST_F(BufferTest, OwnsAndFreesItsAllocation) {
  {
    Result<Buffer> buffer = Buffer::Allocate(cache_, 1000, 256);
    ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
    ASSERT_TRUE(*buffer);
    EXPECT_EQ(buffer->size(), 1000u);
    EXPECT_EQ(buffer->allocator(), &cache_);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data()) % 256, 0u);
    std::memset(buffer->data(), 7, buffer->size());
    EXPECT_EQ(cache_.stats().bytes_in_use, 1024u);
  }
  EXPECT_EQ(cache_.stats().bytes_in_use, 0u);
  EXPECT_EQ(cache_.stats().num_frees, 1u);
}

TEST_F(BufferTest, DefaultIsEmpty) {
  Buffer buffer;
  EXPECT_FALSE(buffer);
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_EQ(buffer.allocator(), nullptr);
  EXPECT_TRUE(buffer.Reset().ok());
}

TEST_F(BufferTest, MoveTransfersOwnership) {
  Result<Buffer> made = Buffer::Allocate(cache_, 4096);
  ASSERT_TRUE(made.ok());
  void* data = made->data();

  Buffer moved(std::move(*made));
  EXPECT_EQ(moved.data(), data);
  EXPECT_EQ(moved.size(), 4096u);
  EXPECT_FALSE(*made);
  EXPECT_EQ(made->size(), 0u);

  Buffer target;
  target = std::move(moved);
  EXPECT_EQ(target.data(), data);
  EXPECT_FALSE(moved);
  EXPECT_EQ(cache_.stats().num_frees, 0u) << "moves free nothing";

  Buffer& alias = target;
  target = std::move(alias);
  EXPECT_EQ(target.data(), data) << "self-move keeps the allocation";
  EXPECT_EQ(cache_.stats().num_frees, 0u);
}

TEST_F(BufferTest, MoveAssignFreesTheOldAllocation) {
  Result<Buffer> a = Buffer::Allocate(cache_, 2048);
  Result<Buffer> b = Buffer::Allocate(cache_, 8192);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(cache_.stats().bytes_in_use, 2048u + 8192u);
  *a = std::move(*b);
  EXPECT_EQ(cache_.stats().bytes_in_use, 8192u);
  EXPECT_EQ(a->size(), 8192u);
}

TEST_F(BufferTest, ResetFreesNowAndReportsStatus) {
  Result<Buffer> buffer = Buffer::Allocate(cache_, 100);
  ASSERT_TRUE(buffer.ok());
  EXPECT_TRUE(buffer->Reset().ok());
  EXPECT_FALSE(*buffer);
  EXPECT_EQ(cache_.stats().bytes_in_use, 0u);
  EXPECT_TRUE(buffer->Reset().ok()) << "a second Reset has nothing to free";
  EXPECT_EQ(cache_.stats().num_frees, 1u);
}

TEST_F(BufferTest, ZeroBytesOwnAUniquePointer) {
  Result<Buffer> a = Buffer::Allocate(cache_, 0);
  Result<Buffer> b = Buffer::Allocate(cache_, 0);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(*a);
  EXPECT_EQ(a->size(), 0u);
  EXPECT_NE(a->data(), b->data());
}

TEST_F(BufferTest, BadInputsAreErrors) {
  Result<Buffer> bad_alignment = Buffer::Allocate(cache_, 64, 24);
  EXPECT_EQ(bad_alignment.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_alignment.status().message(), HasSubstr("alignment=24"));

  FakeSystemAllocator tiny(1024);
  CachingAllocator starved(&tiny);
  Result<Buffer> oom = Buffer::Allocate(starved, 64);
  EXPECT_EQ(oom.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(starved.stats().num_allocs, 0u);
}

}  // namespace
}  // namespace memory
}  // namespace tessera
