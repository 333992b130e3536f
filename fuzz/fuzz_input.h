// Decodes a fuzzer's bytes into the values a target needs. Every read succeeds: past
// the end it yields zeros, so any byte string is a valid input and the fuzzer's
// mutations stay meaningful. A small, compiler-neutral stand-in for libFuzzer's
// FuzzedDataProvider, which the ordinary (gcc) replay build cannot include.
#ifndef TESSERA_FUZZ_FUZZ_INPUT_H_
#define TESSERA_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace tessera::fuzz {

// A property a target checks about the library's answer; on failure prints `what`
// (its first 2000 characters: a placement's text can be megabytes) and aborts, which
// libFuzzer (and the replay test) report as a crash.
#define FUZZ_CHECK(cond, what)                                                                   \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed: %.2000s\n", __FILE__, __LINE__, #cond, \
                   std::string(what).c_str());                                                   \
      std::abort();                                                                              \
    }                                                                                            \
  } while (0)

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  size_t remaining() const { return size_ - pos_; }

  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  bool Bool() { return (Byte() & 1) != 0; }

  // The next sizeof(T) bytes, little-endian (zero-filled past the end).
  template <typename T>
  T Raw() {
    unsigned char bytes[sizeof(T)] = {};
    for (size_t i = 0; i < sizeof(T); ++i) bytes[i] = Byte();
    T value;
    std::memcpy(&value, bytes, sizeof(T));
    return value;
  }

  // A value in [lo, hi] (lo <= hi, hi - lo < 2^32).
  int64_t InRange(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(Raw<uint32_t>() % span);
  }

  // A dimension, count or index as an attacker would pick one: mostly small, often
  // an edge value (0, 1, 2^31, 2^62 + 1, INT64_MAX, negative), sometimes raw.
  int64_t Edgy() {
    static constexpr int64_t kEdges[] = {
        0,
        1,
        2,
        3,
        -1,
        int64_t{1} << 31,
        (int64_t{1} << 31) - 1,
        int64_t{1} << 32,
        int64_t{1} << 62,
        (int64_t{1} << 62) + 1,
        std::numeric_limits<int64_t>::max(),
        std::numeric_limits<int64_t>::min(),
        int64_t{1} << 20,
        (int64_t{1} << 20) + 1,
        int64_t{3037000500},  // ~sqrt(INT64_MAX): products of two overflow
    };
    const uint8_t pick = Byte();
    if (pick < 160) return pick % 8;
    if (pick < 240) return kEdges[pick % (sizeof(kEdges) / sizeof(kEdges[0]))];
    return Raw<int64_t>();
  }

  // Up to `max_len` bytes, ended early by a 0 byte (consumed).
  std::string String(size_t max_len) {
    std::string s;
    while (s.size() < max_len && remaining() > 0) {
      const uint8_t c = Byte();
      if (c == 0) break;
      s.push_back(static_cast<char>(c));
    }
    return s;
  }

  // Everything left.
  std::string Rest() {
    std::string s(reinterpret_cast<const char*>(data_ + pos_), remaining());
    pos_ = size_;
    return s;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace tessera::fuzz

#endif  // TESSERA_FUZZ_FUZZ_INPUT_H_
