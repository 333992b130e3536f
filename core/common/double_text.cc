#include "core/common/double_text.h"

#include <charconv>

namespace tessera {

std::string DoubleText(double value) {
  char buf[32];  // the longest shortest form, "-2.2250738585072014e-308", is 24
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, r.ptr);
}

}  // namespace tessera
