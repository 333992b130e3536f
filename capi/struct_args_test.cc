// The struct_size rule itself (capi/src/struct_args.h), on a struct with two versions:
// the public structs are all at their first version, so only this test can show an
// older caller's missing fields taking their defaults.
#include "capi/src/struct_args.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace tessera::capi {
namespace {

// Version 1 ended at `a`; version 2 appended `b`.
struct Options {
  size_t struct_size;
  int64_t a;
  int64_t b;
};
constexpr size_t kFirst = TESS_STRUCT_SIZE_UP_TO(Options, a);
const Options kDefaults = {sizeof(Options), 10, 20};

Status Read(const void* caller, Options* out) {
  *out = kDefaults;
  return ReadOptions("f", "options", "Options", static_cast<const Options*>(caller), kFirst, out);
}

TEST(StructArgsTest, AnOlderCallersMissingFieldsTakeTheirDefaults) {
  struct OptionsV1 {
    size_t struct_size;
    int64_t a;
  } v1 = {sizeof(OptionsV1), 1};
  Options got;
  ASSERT_TRUE(Read(&v1, &got).ok());
  EXPECT_EQ(got.a, 1);
  EXPECT_EQ(got.b, 20) << "past the caller's struct_size: the default";
  EXPECT_EQ(got.struct_size, sizeof(Options));
}

TEST(StructArgsTest, ACurrentCallerIsReadWhole) {
  Options mine = {sizeof(Options), 1, 2};
  Options got;
  ASSERT_TRUE(Read(&mine, &got).ok());
  EXPECT_EQ(got.a, 1);
  EXPECT_EQ(got.b, 2);
}

TEST(StructArgsTest, ANewerCallerNeedsAZeroTail) {
  struct OptionsV3 {
    Options base;
    int64_t c;
  } v3 = {{sizeof(OptionsV3), 1, 2}, 0};
  Options got;
  ASSERT_TRUE(Read(&v3, &got).ok());
  EXPECT_EQ(got.b, 2);
  v3.c = 3;
  Status s = Read(&v3, &got);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "f: options->struct_size is 32 but Options is 24 bytes in this library, and the "
            "caller's byte 24 past that is not zero: a newer field this library does not "
            "implement was set");
}

TEST(StructArgsTest, BelowTheFirstVersionIsRefused) {
  for (size_t size : {size_t{0}, sizeof(size_t), kFirst - 1}) {
    Options caller = {size, 1, 2};
    Options got;
    Status s = Read(&caller, &got);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << size;
    EXPECT_EQ(s.message(), "f: options->struct_size is " + std::to_string(size) +
                               " but Options needs at least 16 (its first version; this "
                               "library's is 24): set it to sizeof(Options) or start from its "
                               "_INIT macro");
    EXPECT_EQ(got.a, 10) << "nothing read on failure";
  }
  Options got;
  EXPECT_TRUE(Read(nullptr, &got).ok()) << "NULL: the defaults";
  EXPECT_EQ(got.b, 20);
}

TEST(StructArgsTest, StatsFillOnlyWhatFits) {
  const Options full = {sizeof(Options), 1, 2};
  // An older caller's struct: only its fields are written, nothing past them.
  unsigned char buffer[sizeof(Options)];
  std::memset(buffer, 0xAB, sizeof(buffer));
  const size_t v1 = kFirst;
  std::memcpy(buffer, &v1, sizeof(v1));
  ASSERT_TRUE(
      WriteStats("g", "out", "Options", full, kFirst, reinterpret_cast<Options*>(buffer)).ok());
  int64_t a = 0;
  std::memcpy(&a, buffer + offsetof(Options, a), sizeof(a));
  EXPECT_EQ(a, 1);
  for (size_t i = kFirst; i < sizeof(buffer); ++i) EXPECT_EQ(buffer[i], 0xAB) << i;
  // Too small: refused, nothing written.
  Options small = {8, -1, -1};
  Status s = WriteStats("g", "out", "Options", full, kFirst, &small);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(small.a, -1);
}

}  // namespace
}  // namespace tessera::capi
