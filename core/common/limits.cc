#include "core/common/limits.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace tessera {

Status CheckTimeoutAtMostMax(const char* what, double seconds) {
  if (seconds <= kMaxTimeoutSeconds) return Status::Ok();
  char buf[96];
  std::snprintf(buf, sizeof buf, "%g; the longest timeout is %g s (~11.6 days)", seconds,
                kMaxTimeoutSeconds);
  return InvalidArgument(std::string(what) + " is " + buf);
}

}  // namespace tessera
