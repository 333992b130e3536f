// The struct_size rule of the C API's option and stats structs (docs/c-api.md, "ABI"),
// in one place: every call that takes such a struct goes through ReadOptions (inputs) or
// WriteStats (outputs), which share CheckStructSize.
#ifndef TESSERA_CAPI_SRC_STRUCT_ARGS_H_
#define TESSERA_CAPI_SRC_STRUCT_ARGS_H_

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "core/common/status.h"

// Bytes up to the end of MEMBER: the size a caller compiled against the struct's first
// version has at least (on any platform, unlike a literal sizeof).
#define TESS_STRUCT_SIZE_UP_TO(TYPE, MEMBER) (offsetof(TYPE, MEMBER) + sizeof(((TYPE*)0)->MEMBER))

namespace tessera::capi {

// Checks the struct_size (the first size_t) of the caller's struct `caller` of C type
// `type` (argument `argument` of `function`): at least `first_size` (the first version's
// size), and, when larger than this library's `own_size`, only zero bytes past own_size
// (when `check_tail`; a stats struct's tail is the caller's to fill, so it is not
// checked). INVALID_ARGUMENT naming the function, argument, struct and sizes.
Status CheckStructSize(const char* function, const char* argument, const char* type,
                       const void* caller, size_t first_size, size_t own_size, bool check_tail);

// Options: `*out` starts as the library's defaults (the *_INIT values); the caller's
// fields that fit in min(struct_size, sizeof(T)) replace them. `in` NULL keeps the
// defaults.
template <typename T>
Status ReadOptions(const char* function, const char* argument, const char* type, const T* in,
                   size_t first_size, T* out) {
  if (in == nullptr) return Status::Ok();
  Status s = CheckStructSize(function, argument, type, in, first_size, sizeof(T), true);
  if (!s.ok()) return s;
  const size_t n = std::min(in->struct_size, sizeof(T));
  const size_t own = out->struct_size;
  std::memcpy(static_cast<void*>(out), static_cast<const void*>(in), n);
  out->struct_size = own;
  return Status::Ok();
}

// Stats: copies the fields of `full` that fit in min(out->struct_size, sizeof(T)) into
// *out, leaving struct_size (and anything past this library's struct) as the caller set it.
template <typename T>
Status WriteStats(const char* function, const char* argument, const char* type, const T& full,
                  size_t first_size, T* out) {
  Status s = CheckStructSize(function, argument, type, out, first_size, sizeof(T), false);
  if (!s.ok()) return s;
  const size_t n = std::min(out->struct_size, sizeof(T));
  std::memcpy(reinterpret_cast<char*>(out) + sizeof(size_t),
              reinterpret_cast<const char*>(&full) + sizeof(size_t), n - sizeof(size_t));
  return Status::Ok();
}

}  // namespace tessera::capi

#endif  // TESSERA_CAPI_SRC_STRUCT_ARGS_H_
