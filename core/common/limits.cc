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

}  // namespace tessera
