// A small, strict JSON reader for the checkpoint index and safetensors headers: files
// that may be truncated, corrupted or written by other tools, so every malformed input
// is an error with a byte offset, never a crash, a hang or unbounded recursion.
//
// Strict: RFC 8259 grammar only (no comments, trailing commas, NaN or single quotes),
// duplicate object keys rejected, nesting at most kMaxJsonDepth, control characters in
// strings rejected. Numbers keep their text, so an integer reads back exactly
// (AsInt64); strings are decoded (\uXXXX to UTF-8, surrogate pairs joined).
//
// Writing JSON needs only JsonQuote (core/infer/explain_json.h): the writers build
// their text directly.
#ifndef TESSERA_CORE_CHECKPOINT_JSON_H_
#define TESSERA_CORE_CHECKPOINT_JSON_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/common/status.h"

namespace tessera::checkpoint {

inline constexpr int kMaxJsonDepth = 64;

class JsonValue {
 public:
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };

  Kind kind() const { return kind_; }
  bool is_object() const { return kind_ == Kind::kObject; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_number() const { return kind_ == Kind::kNumber; }

  // The string's decoded value, or a number's text.
  const std::string& text() const { return text_; }
  bool boolean() const { return boolean_; }
  const std::vector<JsonValue>& items() const { return items_; }
  // In file order.
  const std::vector<std::pair<std::string, JsonValue>>& members() const { return members_; }
  // The member named `key`, or NULL (also when this is not an object).
  const JsonValue* Find(std::string_view key) const;

  // A number that is an integer in [min, max], written without fraction or exponent.
  // INVALID_ARGUMENT naming `what` otherwise.
  Result<int64_t> AsInt64(const std::string& what, int64_t min, int64_t max) const;

  // "object", "array", ... for messages.
  static const char* KindName(Kind kind);

 private:
  friend class JsonParser;
  Kind kind_ = Kind::kNull;
  bool boolean_ = false;
  std::string text_;
  std::vector<JsonValue> items_;
  std::vector<std::pair<std::string, JsonValue>> members_;
};

// Parses the whole of `text` (surrounding whitespace allowed). INVALID_ARGUMENT
// "malformed JSON at byte N: <what was expected>" on any error.
Result<JsonValue> ParseJson(std::string_view text);

}  // namespace tessera::checkpoint

#endif  // TESSERA_CORE_CHECKPOINT_JSON_H_
