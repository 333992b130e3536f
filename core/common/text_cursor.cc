#include "core/common/text_cursor.h"

#include <cctype>
#include <limits>

namespace tessera {

void TextCursor::SkipSpace() {
  while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
    ++pos_;
  }
}

bool TextCursor::AtEnd() {
  SkipSpace();
  return pos_ >= text_.size();
}

char TextCursor::Peek() {
  SkipSpace();
  return pos_ < text_.size() ? text_[pos_] : '\0';
}

bool TextCursor::Consume(char c) {
  if (Peek() != c || c == '\0') return false;
  ++pos_;
  return true;
}

Status TextCursor::Expect(char c) {
  if (Consume(c)) return Status::Ok();
  return Error(std::string("'") + c + "'");
}

bool TextCursor::ConsumeWord(std::string_view word) {
  SkipSpace();
  if (text_.substr(pos_, word.size()) != word) return false;
  pos_ += word.size();
  return true;
}

Result<int64_t> TextCursor::ParseInt() {
  SkipSpace();
  size_t start = pos_;
  int64_t value = 0;
  while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
    int digit = text_[pos_] - '0';
    if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
      pos_ = start;
      return Error("an integer that fits in 64 bits");
    }
    value = value * 10 + digit;
    ++pos_;
  }
  if (pos_ == start) return Error("a non-negative integer");
  return value;
}

Result<int64_t> TextCursor::ParseSignedInt() {
  bool negative = Consume('-');
  TESS_ASSIGN_OR_RETURN(int64_t v, ParseInt());
  return negative ? -v : v;
}

Status TextCursor::ExpectEnd() {
  if (AtEnd()) return Status::Ok();
  return Error("end of text");
}

Status TextCursor::Error(const std::string& expected) {
  SkipSpace();
  std::string found =
      pos_ < text_.size() ? "'" + std::string(text_.substr(pos_, 8)) + "'" : "end of text";
  return InvalidArgument("bad " + std::string(what_) + " \"" + std::string(text_) +
                         "\": expected " + expected + " at position " + std::to_string(pos_) +
                         ", found " + found);
}

}  // namespace tessera
