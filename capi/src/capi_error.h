// The C boundary: converts Status (and any stray C++ exception) into a tess_status
// code plus the thread-local message that tess_last_error_message() returns.
#ifndef TESSERA_CAPI_SRC_CAPI_ERROR_H_
#define TESSERA_CAPI_SRC_CAPI_ERROR_H_

#include <exception>
#include <new>
#include <string>

#include "core/common/status.h"
#include "tessera/tessera.h"

namespace tessera::capi {

// Records `status` as this thread's last error (if not OK) and returns its code.
tess_status Report(const Status& status);
// An INVALID_ARGUMENT naming a NULL argument of `function`.
tess_status NullArgument(const char* function, const char* argument);

}  // namespace tessera::capi

// Wraps every exported body so no C++ exception crosses the C boundary.
#define TESS_CAPI_BEGIN try {
#define TESS_CAPI_END                                                                        \
  }                                                                                          \
  catch (const std::bad_alloc&) {                                                            \
    return ::tessera::capi::Report(                                                          \
        ::tessera::Status(::tessera::StatusCode::kResourceExhausted, "out of host memory")); \
  }                                                                                          \
  catch (const std::exception& e) {                                                          \
    return ::tessera::capi::Report(                                                          \
        ::tessera::Internal(std::string("C++ exception: ") + e.what()));                     \
  }                                                                                          \
  catch (...) {                                                                              \
    return ::tessera::capi::Report(::tessera::Internal("unknown C++ exception"));            \
  }

// Returns INVALID_ARGUMENT from the enclosing C function when `arg` is NULL.
#define TESS_CAPI_REQUIRE(arg) \
  if ((arg) == nullptr) return ::tessera::capi::NullArgument(__func__, #arg)

#endif  // TESSERA_CAPI_SRC_CAPI_ERROR_H_
