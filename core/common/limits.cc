#include "core/common/limits.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace tessera {

Status CheckTimeoutAtMostMax(std::string_view where, std::string_view field, double seconds) {
  if (seconds <= kMaxTimeoutSeconds) return Status::Ok();
  char buf[96];
  std::snprintf(buf, sizeof buf, "%g; the longest timeout is %g s (~11.6 days)", seconds,
                kMaxTimeoutSeconds);
  return InvalidArgument(std::string(where) + std::string(field) + " is " + buf);
}

Status CheckParsedTextLength(std::string_view what, std::string_view text) {
  if (text.size() <= kMaxParsedTextLength) return Status::Ok();
  return InvalidArgument(std::string(what) + " text is " + std::to_string(text.size()) +
                         " characters long; at most " + std::to_string(kMaxParsedTextLength) +
                         " are accepted");
}

}  // namespace tessera
