#include "core/comm/env_config.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "core/common/limits.h"

namespace tessera::comm {
namespace {

Status BadValue(const char* name, const char* value, const char* expected) {
  return InvalidArgument(std::string("environment variable ") + name + " is \"" + value +
                         "\"; it must be " + expected);
}

}  // namespace

Result<std::optional<int64_t>> EnvInt64(const char* name, int64_t min_value) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::optional<int64_t>();
  const std::string expected = "an integer >= " + std::to_string(min_value);
  errno = 0;
  char* end = nullptr;
  long long parsed = std::strtoll(value, &end, 10);
  if (end == value || *end != '\0' || errno == ERANGE || parsed < min_value) {
    return BadValue(name, value, expected.c_str());
  }
  return std::optional<int64_t>(parsed);
}

Result<std::optional<bool>> EnvFlag(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::optional<bool>();
  const std::string text = value;
  if (text == "0") return std::optional<bool>(false);
  if (text == "1") return std::optional<bool>(true);
  return BadValue(name, value, "0 (off) or 1 (on)");
}

Result<std::optional<double>> EnvSeconds(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::optional<double>();
  constexpr const char* kExpected = "a finite number of seconds >= 0";
  errno = 0;
  char* end = nullptr;
  double parsed = std::strtod(value, &end);
  if (end == value || *end != '\0' || errno == ERANGE || !std::isfinite(parsed) || parsed < 0) {
    return BadValue(name, value, kExpected);
  }
  TESS_RETURN_IF_ERROR(CheckTimeoutAtMostMax("environment variable ", name, parsed));
  return std::optional<double>(parsed);
}

}  // namespace tessera::comm
