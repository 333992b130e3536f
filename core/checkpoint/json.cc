#include "core/checkpoint/json.h"

#include <cerrno>
#include <cstdlib>
#include <unordered_set>

namespace tessera::checkpoint {

const char* JsonValue::KindName(Kind kind) {
  switch (kind) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "boolean";
    case Kind::kNumber: return "number";
    case Kind::kString: return "string";
    case Kind::kArray: return "array";
    case Kind::kObject: return "object";
  }
  return "?";
}

const JsonValue* JsonValue::Find(std::string_view key) const {
  for (const auto& [name, value] : members_) {
    if (name == key) return &value;
  }
  return nullptr;
}

Result<int64_t> JsonValue::AsInt64(const std::string& what, int64_t min, int64_t max) const {
  if (kind_ != Kind::kNumber) {
    return InvalidArgument(what + " must be an integer, not a " + KindName(kind_));
  }
  // The grammar already holds: only '-' and digits make an integer.
  if (text_.find_first_of(".eE") != std::string::npos) {
    return InvalidArgument(what + " must be an integer, not " + text_);
  }
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text_.c_str(), &end, 10);
  if (errno == ERANGE || value < min || value > max) {
    return InvalidArgument(what + " is " + text_ + ", outside [" + std::to_string(min) + ", " +
                           std::to_string(max) + "]");
  }
  return static_cast<int64_t>(value);
}

// Recursive descent over the text; depth bounds the recursion.
class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  Result<JsonValue> ParseDocument() {
    JsonValue value;
    TESS_RETURN_IF_ERROR(ParseValue(value, 0));
    SkipSpace();
    if (pos_ != text_.size()) return Error("the end of the text after the value");
    return value;
  }

 private:
  Status Error(const std::string& expected) const {
    return InvalidArgument("malformed JSON at byte " + std::to_string(pos_) + ": expected " +
                           expected);
  }

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool ConsumeLiteral(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Status ParseValue(JsonValue& out, int depth) {
    if (depth > kMaxJsonDepth) {
      return Error("at most " + std::to_string(kMaxJsonDepth) + " levels of nesting");
    }
    SkipSpace();
    if (pos_ >= text_.size()) return Error("a value");
    const char c = text_[pos_];
    if (c == '{') return ParseObject(out, depth);
    if (c == '[') return ParseArray(out, depth);
    if (c == '"') {
      out.kind_ = JsonValue::Kind::kString;
      return ParseString(out.text_);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(out);
    if (ConsumeLiteral("true")) {
      out.kind_ = JsonValue::Kind::kBool;
      out.boolean_ = true;
      return Status::Ok();
    }
    if (ConsumeLiteral("false")) {
      out.kind_ = JsonValue::Kind::kBool;
      return Status::Ok();
    }
    if (ConsumeLiteral("null")) {
      out.kind_ = JsonValue::Kind::kNull;
      return Status::Ok();
    }
    return Error("a value");
  }

  Status ParseObject(JsonValue& out, int depth) {
    out.kind_ = JsonValue::Kind::kObject;
    ++pos_;  // '{'
    // The keys seen, for the duplicate check: a header may hold many thousand tensors.
    std::unordered_set<std::string> keys;
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return Status::Ok();
    }
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"') return Error("a string key");
      const size_t key_pos = pos_;
      std::string key;
      TESS_RETURN_IF_ERROR(ParseString(key));
      if (!keys.insert(key).second) {
        pos_ = key_pos;
        return Error("no duplicate key (\"" + key + "\" appears twice)");
      }
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ':') return Error("':'");
      ++pos_;
      JsonValue value;
      TESS_RETURN_IF_ERROR(ParseValue(value, depth + 1));
      out.members_.emplace_back(std::move(key), std::move(value));
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return Status::Ok();
      }
      return Error("',' or '}'");
    }
  }

  Status ParseArray(JsonValue& out, int depth) {
    out.kind_ = JsonValue::Kind::kArray;
    ++pos_;  // '['
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return Status::Ok();
    }
    while (true) {
      JsonValue value;
      TESS_RETURN_IF_ERROR(ParseValue(value, depth + 1));
      out.items_.push_back(std::move(value));
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return Status::Ok();
      }
      return Error("',' or ']'");
    }
  }

  bool Digit() const { return pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; }

  Status ParseNumber(JsonValue& out) {
    const size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    if (!Digit()) return Error("a digit");
    if (text_[pos_] == '0') {
      ++pos_;
    } else {
      while (Digit()) ++pos_;
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (!Digit()) return Error("a digit after '.'");
      while (Digit()) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (!Digit()) return Error("a digit in the exponent");
      while (Digit()) ++pos_;
    }
    out.kind_ = JsonValue::Kind::kNumber;
    out.text_ = std::string(text_.substr(start, pos_ - start));
    return Status::Ok();
  }

  Result<uint32_t> ParseHex4() {
    if (text_.size() - pos_ < 4) return Error("four hex digits after \\u");
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_];
      uint32_t digit;
      if (c >= '0' && c <= '9') {
        digit = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        digit = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        digit = c - 'A' + 10;
      } else {
        return Error("a hex digit");
      }
      value = value * 16 + digit;
      ++pos_;
    }
    return value;
  }

  static void AppendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  Status ParseEscape(std::string& out) {
    if (pos_ >= text_.size()) return Error("an escape character");
    const char c = text_[pos_++];
    switch (c) {
      case '"':
      case '\\':
      case '/': out += c; return Status::Ok();
      case 'b': out += '\b'; return Status::Ok();
      case 'f': out += '\f'; return Status::Ok();
      case 'n': out += '\n'; return Status::Ok();
      case 'r': out += '\r'; return Status::Ok();
      case 't': out += '\t'; return Status::Ok();
      case 'u': break;
      default: --pos_; return Error("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u");
    }
    TESS_ASSIGN_OR_RETURN(uint32_t cp, ParseHex4());
    if (cp >= 0xDC00 && cp <= 0xDFFF) return Error("a high surrogate before a low one");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (!ConsumeLiteral("\\u")) return Error("a low surrogate after a high one");
      TESS_ASSIGN_OR_RETURN(uint32_t low, ParseHex4());
      if (low < 0xDC00 || low > 0xDFFF) return Error("a low surrogate after a high one");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    AppendUtf8(out, cp);
    return Status::Ok();
  }

  Status ParseString(std::string& out) {
    ++pos_;  // '"'
    while (true) {
      if (pos_ >= text_.size()) return Error("'\"' to end the string");
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return Status::Ok();
      }
      if (static_cast<unsigned char>(c) < 0x20) return Error("no control character in a string");
      ++pos_;
      if (c == '\\') {
        TESS_RETURN_IF_ERROR(ParseEscape(out));
      } else {
        out += c;
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

Result<JsonValue> ParseJson(std::string_view text) { return JsonParser(text).ParseDocument(); }

}  // namespace tessera::checkpoint
