#include "core/comm/comm_checks.h"

#include <cmath>
#include <cstdio>

namespace tessera::comm {

std::string Str(int64_t value) { return std::to_string(value); }

std::string SecondsText(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", seconds);
  return text;
}

Status CheckCommDType(const char* method, DType dtype) {
  if (!IsValidDType(static_cast<int>(dtype))) {
    return InvalidArgument(std::string(method) + ": dtype value " + Str(static_cast<int>(dtype)) +
                           " is not a dtype");
  }
  if (!IsSupported(dtype)) {
    return InvalidArgument(std::string(method) + ": dtype " + DTypeName(dtype) +
                           " is not supported by communicators (supported: f32, f64, i32, i64)");
  }
  return Status::Ok();
}

Status CheckReduceOp(const char* method, ReduceOp op) {
  if (op != ReduceOp::kSum && op != ReduceOp::kMax && op != ReduceOp::kMin) {
    return InvalidArgument(std::string(method) + ": reduce op value " + Str(static_cast<int>(op)) +
                           " is not sum, max or min");
  }
  return Status::Ok();
}

Status CheckCount(const char* method, const char* name, int64_t count, int64_t max) {
  if (count < 0) {
    return InvalidArgument(std::string(method) + ": " + name + " is " + Str(count) +
                           "; it must be >= 0");
  }
  if (count > max) {
    return OutOfRange(std::string(method) + ": " + name + " is " + Str(count) +
                      ", more than this backend's limit of " + Str(max) + " elements");
  }
  return Status::Ok();
}

Status CheckBuffer(const char* method, const char* name, const void* buffer, int64_t count) {
  if (buffer == nullptr && count > 0) {
    return InvalidArgument(std::string(method) + ": " + name + " is NULL but holds " + Str(count) +
                           " elements");
  }
  return Status::Ok();
}

Status CheckTimeout(const char* method, double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) {
    return InvalidArgument(std::string(method) + ": seconds is " + SecondsText(seconds) +
                           "; it must be a finite number >= 0 (0 = no limit)");
  }
  return Status::Ok();
}

}  // namespace tessera::comm
