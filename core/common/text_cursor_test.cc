#include "core/common/text_cursor.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(TextCursorTest, ParsesTokens) {
  TextCursor c("  [ 12 , -3 ] ", "thing");
  EXPECT_TRUE(c.Consume('['));
  EXPECT_EQ(*c.ParseInt(), 12);
  EXPECT_TRUE(c.Consume(','));
  EXPECT_EQ(*c.ParseSignedInt(), -3);
  EXPECT_TRUE(c.Expect(']').ok());
  EXPECT_TRUE(c.ExpectEnd().ok());
}

TEST(TextCursorTest, ErrorsNameTextPositionAndExpectation) {
  TextCursor c("[x]", "thing");
  EXPECT_TRUE(c.Consume('['));
  Result<int64_t> r = c.ParseInt();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "bad thing \"[x]\": expected a non-negative integer at position 1, found 'x]'");
}

TEST(TextCursorTest, Overflow) {
  TextCursor c("99999999999999999999", "thing");
  EXPECT_FALSE(c.ParseInt().ok());
}

}  // namespace
}  // namespace tessera
