#include "capi/src/capi_error.h"

namespace tessera::capi {

struct LastError {
  tess_status code = TESS_OK;
  std::string message;
};

LastError& ThreadLastError() {
  thread_local LastError last;
  return last;
}

tess_status Report(const Status& status) {
  if (status.ok()) return TESS_OK;
  LastError& last = ThreadLastError();
  last.code = static_cast<tess_status>(status.code());
  last.message = status.message();
  return last.code;
}

tess_status NullArgument(const char* function, const char* argument) {
  return Report(InvalidArgument(std::string(function) + ": argument \"" + argument + "\" is NULL"));
}

}  // namespace tessera::capi

extern "C" {

const char* tess_last_error_message(void) {
  return tessera::capi::ThreadLastError().message.c_str();
}

tess_status tess_last_error_code(void) { return tessera::capi::ThreadLastError().code; }

const char* tess_status_string(tess_status status) {
  if (status < 0 || status > TESS_DATA_LOSS) return "UNKNOWN_CODE";
  return tessera::StatusCodeName(static_cast<tessera::StatusCode>(status));
}

#define TESS_STRINGIFY_INNER_(x) #x
#define TESS_STRINGIFY_(x) TESS_STRINGIFY_INNER_(x)

const char* tess_version(void) {
  return TESS_STRINGIFY_(TESS_VERSION_MAJOR) "." TESS_STRINGIFY_(
      TESS_VERSION_MINOR) "." TESS_STRINGIFY_(TESS_VERSION_PATCH);
}

int32_t tess_version_number(void) { return TESS_VERSION_NUMBER; }

}  // extern "C"
