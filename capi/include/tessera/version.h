/*
 * Tessera C API. Versions: the compile-time TESS_VERSION_* macros and the loaded library's
 * version. This file is the one place the version is written: the version-script
 * node of libtessera.so (capi/tessera.lds, TESSERA_<major>), its SONAME and the
 * packages' versions are generated from it (docs/packaging.md).
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_VERSION_H_
#define TESSERA_VERSION_H_

#include <stdint.h>

#include "tessera/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TESS_VERSION_MAJOR 0
#define TESS_VERSION_MINOR 3
#define TESS_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH */
#define TESS_VERSION_NUMBER \
  (TESS_VERSION_MAJOR * 10000 + TESS_VERSION_MINOR * 100 + TESS_VERSION_PATCH)

/* "0.1.0": the version of the library actually loaded. Static storage.
 * Thread safety: any thread. */
TESS_API const char* tess_version(void);
/* TESS_VERSION_NUMBER of the loaded library; compare with the header's to
 * detect a mismatch. Thread safety: any thread. */
TESS_API int32_t tess_version_number(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_VERSION_H_ */
