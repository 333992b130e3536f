// OneFlow's balanced splitter: `total` items over `parts` parts, contiguous, the first
// `total % parts` parts one item larger. Parts past `total` are empty (size 0).
#ifndef TESSERA_CORE_SBP_BALANCED_SPLIT_H_
#define TESSERA_CORE_SBP_BALANCED_SPLIT_H_

#include <cstdint>

namespace tessera {

struct Range {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t size() const { return end - begin; }
  friend bool operator==(const Range& a, const Range& b) {
    return a.begin == b.begin && a.end == b.end;
  }
};

// Precondition: total >= 0, parts >= 1, 0 <= index < parts.
inline Range BalancedRange(int64_t total, int64_t parts, int64_t index) {
  int64_t base = total / parts;
  int64_t rem = total % parts;
  int64_t begin = index * base + (index < rem ? index : rem);
  return {begin, begin + base + (index < rem ? 1 : 0)};
}

}  // namespace tessera

#endif  // TESSERA_CORE_SBP_BALANCED_SPLIT_H_
