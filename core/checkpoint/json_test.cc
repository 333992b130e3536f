#include "core/checkpoint/json.h"

#include <gtest/gtest.h>

#include <string>

namespace tessera::checkpoint {
namespace {

TEST(Json, ParsesEveryKind) {
  Result<JsonValue> v = ParseJson(
      R"( {"a": [1, -2.5e3, true, false, null], "b": {"c": "x\"y\\z\u00e9\ud83d\ude00"}} )");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_TRUE(v->is_object());
  ASSERT_EQ(v->members().size(), 2u);
  const JsonValue* a = v->Find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->items().size(), 5u);
  EXPECT_EQ(a->items()[0].text(), "1");
  EXPECT_EQ(a->items()[1].text(), "-2.5e3");
  EXPECT_TRUE(a->items()[2].boolean());
  EXPECT_FALSE(a->items()[3].boolean());
  EXPECT_EQ(a->items()[3].kind(), JsonValue::Kind::kBool);
  EXPECT_EQ(a->items()[4].kind(), JsonValue::Kind::kNull);
  // U+00E9 is C3 A9 in UTF-8, U+1F600 (a surrogate pair) is F0 9F 98 80.
  EXPECT_EQ(v->Find("b")->Find("c")->text(), "x\"y\\z\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(v->Find("missing"), nullptr);
}

TEST(Json, IntegersReadBackExactly) {
  Result<JsonValue> v = ParseJson("[9223372036854775807, -9223372036854775808, 1.0, 1e2, 12]");
  ASSERT_TRUE(v.ok());
  const auto& items = v->items();
  EXPECT_EQ(*items[0].AsInt64("x", INT64_MIN, INT64_MAX), INT64_MAX);
  EXPECT_EQ(*items[1].AsInt64("x", INT64_MIN, INT64_MAX), INT64_MIN);
  EXPECT_EQ(items[2].AsInt64("x", 0, 10).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(items[3].AsInt64("x", 0, 1000).status().code(), StatusCode::kInvalidArgument);
  Result<int64_t> out_of_range = items[4].AsInt64("the count", 0, 10);
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_EQ(out_of_range.status().message(), "the count is 12, outside [0, 10]");
  EXPECT_FALSE(
      ParseJson("[92233720368547758070]")->items()[0].AsInt64("x", INT64_MIN, INT64_MAX).ok());
  EXPECT_FALSE(ParseJson("\"3\"")->AsInt64("x", 0, 10).ok());
}

TEST(Json, RejectsMalformedTextWithItsOffset) {
  const char* bad[] = {
      "",
      "{",
      "[1,]",
      "{\"a\":1,}",
      "{'a':1}",
      "[01]",
      "[1.]",
      "[.5]",
      "[1e]",
      "NaN",
      "[1] x",
      "{\"a\" 1}",
      "\"abc",
      "\"a\\x\"",
      "\"\\u12\"",
      "\"\\udc00\"",
      "\"\\ud800x\"",
      "tru",
      "[-]",
      "{1:2}",
      "{\"a\":1 \"b\":2}",
      "\"tab\there\"",
  };
  for (const char* text : bad) {
    Result<JsonValue> v = ParseJson(text);
    ASSERT_FALSE(v.ok()) << text;
    EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_NE(v.status().message().find("malformed JSON at byte "), std::string::npos) << text;
  }
  Result<JsonValue> dup = ParseJson(R"({"a": 1, "a": 2})");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().message(),
            "malformed JSON at byte 9: expected no duplicate key (\"a\" appears twice)");
}

TEST(Json, DepthIsBounded) {
  std::string deep(kMaxJsonDepth + 1, '[');
  deep += std::string(kMaxJsonDepth + 1, ']');
  EXPECT_TRUE(ParseJson(deep).ok());
  std::string too_deep(kMaxJsonDepth + 2, '[');
  too_deep += std::string(kMaxJsonDepth + 2, ']');
  Result<JsonValue> v = ParseJson(too_deep);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("levels of nesting"), std::string::npos);
  // A million brackets fail at the bound instead of overflowing the stack.
  EXPECT_FALSE(ParseJson(std::string(1000000, '[')).ok());
}

}  // namespace
}  // namespace tessera::checkpoint
