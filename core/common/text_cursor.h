// A tiny cursor over user-supplied text, shared by the placement and nd-sbp parsers
// so both report positions and expectations the same way.
#ifndef TESSERA_CORE_COMMON_TEXT_CURSOR_H_
#define TESSERA_CORE_COMMON_TEXT_CURSOR_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core/common/status.h"

namespace tessera {

class TextCursor {
 public:
  // `what` names the kind of text in errors, e.g. "placement".
  TextCursor(std::string_view text, const char* what) : text_(text), what_(what) {}

  void SkipSpace();
  bool AtEnd();
  // Next non-space character, or '\0' at the end; does not consume.
  char Peek();
  // Consumes `c` (after spaces) if it is next.
  bool Consume(char c);
  Status Expect(char c);
  // Consumes `word` (after spaces) if it is next.
  bool ConsumeWord(std::string_view word);
  // A non-negative decimal integer that fits in int64.
  Result<int64_t> ParseInt();
  // Optional '-' then digits.
  Result<int64_t> ParseSignedInt();
  // Fails unless only spaces remain.
  Status ExpectEnd();

  // An INVALID_ARGUMENT naming the text, the position and `expected`.
  Status Error(const std::string& expected);
  size_t pos() const { return pos_; }

 private:
  std::string_view text_;
  const char* what_;
  size_t pos_ = 0;
};

}  // namespace tessera

#endif  // TESSERA_CORE_COMMON_TEXT_CURSOR_H_
