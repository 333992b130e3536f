// TESSERA_* settings read from the environment. Unset or empty means "not set"
// (std::nullopt); any other value must parse completely, and a bad one is an
// INVALID_ARGUMENT naming the variable and the value, so a typo in a job script
// fails loudly instead of silently falling back to a default.
#ifndef TESSERA_CORE_COMM_ENV_CONFIG_H_
#define TESSERA_CORE_COMM_ENV_CONFIG_H_

#include <cstdint>
#include <optional>

#include "core/common/status.h"

namespace tessera::comm {

// A decimal integer >= min_value.
Result<std::optional<int64_t>> EnvInt64(const char* name, int64_t min_value);

// A switch: "0" (false) or "1" (true).
Result<std::optional<bool>> EnvFlag(const char* name);

// A finite number of seconds >= 0 and <= kMaxTimeoutSeconds ("30", "0.25", "1e-3").
Result<std::optional<double>> EnvSeconds(const char* name);

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_ENV_CONFIG_H_
