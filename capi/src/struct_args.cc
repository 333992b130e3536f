#include "capi/src/struct_args.h"

#include <string>

namespace tessera::capi {

Status CheckStructSize(const char* function, const char* argument, const char* type,
                       const void* caller, size_t first_size, size_t own_size, bool check_tail) {
  if (caller == nullptr) {
    return InvalidArgument(std::string(function) + ": argument \"" + argument + "\" is NULL");
  }
  size_t size = 0;
  std::memcpy(&size, caller, sizeof(size));
  const std::string what = std::string(function) + ": " + argument + "->struct_size is " +
                           std::to_string(size) + " but " + type;
  if (size < first_size) {
    return InvalidArgument(what + " needs at least " + std::to_string(first_size) +
                           " (its first version; this library's is " + std::to_string(own_size) +
                           "): set it to sizeof(" + type + ") or start from its _INIT macro");
  }
  if (check_tail && size > own_size) {
    const auto* bytes = static_cast<const unsigned char*>(caller);
    for (size_t i = own_size; i < size; ++i) {
      if (bytes[i] != 0) {
        return InvalidArgument(what + " is " + std::to_string(own_size) +
                               " bytes in this library, and the caller's byte " +
                               std::to_string(i) +
                               " past that is not zero: a newer field this library does not "
                               "implement was set");
      }
    }
  }
  return Status::Ok();
}

}  // namespace tessera::capi
