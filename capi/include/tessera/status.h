/*
 * Tessera C API. Status codes and the calling thread's last error.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_STATUS_H_
#define TESSERA_STATUS_H_

#include <stdint.h>

#include "tessera/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Codes 0-15 are absl's canonical codes. Append only. */
typedef int32_t tess_status;
#define TESS_OK 0
#define TESS_CANCELLED 1
#define TESS_UNKNOWN 2
#define TESS_INVALID_ARGUMENT 3
#define TESS_DEADLINE_EXCEEDED 4
#define TESS_NOT_FOUND 5
#define TESS_ALREADY_EXISTS 6
#define TESS_PERMISSION_DENIED 7
#define TESS_RESOURCE_EXHAUSTED 8
#define TESS_FAILED_PRECONDITION 9
#define TESS_ABORTED 10
#define TESS_OUT_OF_RANGE 11
#define TESS_UNIMPLEMENTED 12
#define TESS_INTERNAL 13
#define TESS_UNAVAILABLE 14
#define TESS_DATA_LOSS 15

/* The message of the last failed call on this thread ("" if none). Never NULL.
 * Valid until the next failing tess_ call on this thread. Thread-local. */
TESS_API const char* tess_last_error_message(void);
/* The code of the last failed call on this thread (TESS_OK if none). */
TESS_API tess_status tess_last_error_code(void);
/* "INVALID_ARGUMENT" etc.; "UNKNOWN_CODE" for other values. Static storage. */
TESS_API const char* tess_status_string(tess_status status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_STATUS_H_ */
