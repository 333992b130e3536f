#include "core/common/limits.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace tessera {

Status CheckTimeoutSeconds(const char* what, double seconds) {
  if (std::isfinite(seconds) && seconds >= 0 && seconds <= kMaxTimeoutSeconds) {
    return Status::Ok();
  }
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "%s is %g; expected a finite number of seconds >= 0 and <= %g (~11.6 days)", what,
                seconds, kMaxTimeoutSeconds);
  return InvalidArgument(buf);
}

}  // namespace tessera
