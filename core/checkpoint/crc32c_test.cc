#include "core/checkpoint/crc32c.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace tessera::checkpoint {
namespace {

// Check values from RFC 3720 (iSCSI), appendix B.4, and the common "123456789" vector.
TEST(Crc32c, KnownVectors) {
  EXPECT_EQ(Crc32c(nullptr, 0), 0u);
  EXPECT_EQ(Crc32c("123456789", 9), 0xE3069283u);
  unsigned char zeros[32] = {};
  EXPECT_EQ(Crc32c(zeros, sizeof zeros), 0x8A9136AAu);
  unsigned char ones[32];
  std::memset(ones, 0xFF, sizeof ones);
  EXPECT_EQ(Crc32c(ones, sizeof ones), 0x62A8AB43u);
  unsigned char ascending[32];
  for (int i = 0; i < 32; ++i) ascending[i] = static_cast<unsigned char>(i);
  EXPECT_EQ(Crc32c(ascending, sizeof ascending), 0x46DD794Eu);
}

TEST(Crc32c, ExtendInPartsEqualsWhole) {
  const std::string text = "sharded checkpoints of global tensors";
  const uint32_t whole = Crc32c(text.data(), text.size());
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    uint32_t crc = Crc32c(text.data(), cut);
    crc = Crc32cExtend(crc, text.data() + cut, text.size() - cut);
    EXPECT_EQ(crc, whole) << "cut at " << cut;
  }
}

// The fast path (SSE4.2 where present) against the table loop: every length up to 64
// and every start offset up to 8 (the 8-byte steps and the byte tail), and a long run.
TEST(Crc32c, FastPathMatchesTheTableLoop) {
  std::string data(100000, '\0');
  uint32_t x = 12345;
  for (char& c : data) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>(x >> 24);
  }
  for (size_t start = 0; start < 8; ++start) {
    for (size_t n = 0; n <= 64; ++n) {
      ASSERT_EQ(Crc32cExtend(7, data.data() + start, n),
                Crc32cExtendPortable(7, data.data() + start, n))
          << start << " " << n;
    }
  }
  EXPECT_EQ(Crc32c(data.data(), data.size()), Crc32cExtendPortable(0, data.data(), data.size()));
  EXPECT_EQ(Crc32cExtendPortable(0, "123456789", 9), 0xE3069283u);
}

TEST(Crc32c, OneFlippedBitChangesIt) {
  std::string text(100, 'a');
  const uint32_t before = Crc32c(text.data(), text.size());
  text[57] ^= 0x10;
  EXPECT_NE(Crc32c(text.data(), text.size()), before);
}

}  // namespace
}  // namespace tessera::checkpoint
