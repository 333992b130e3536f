/*
 * Tessera C API. Element types.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_DTYPE_H_
#define TESSERA_DTYPE_H_

#include <stdint.h>

#include "tessera/common.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Append only. f16 (IEEE binary16) and bf16 (bfloat16) are 2-byte floats: host
 * buffers hold their raw bits (uint16_t each); kernels compute them in f32 and round
 * to nearest even on store, sums and products accumulate in f32 (docs/dtypes.md).
 * bool is one byte holding 0 or 1 (what comparisons produce); it has no sum/max/min
 * reduction, so a bool tensor is never partial (P). */
typedef int32_t tess_dtype;
#define TESS_DTYPE_F32 0
#define TESS_DTYPE_F64 1
#define TESS_DTYPE_I32 2
#define TESS_DTYPE_I64 3
#define TESS_DTYPE_F16 4
#define TESS_DTYPE_BF16 5
#define TESS_DTYPE_BOOL 6

/* Parses "f32", "f64", "i32", "i64", "f16", "bf16", "bool". Thread safety: any thread. */
TESS_API tess_status tess_dtype_parse(tess_dtype* out, const char* text);
/* "f32" etc.; "" for an unknown value. Static storage. Thread safety: any thread. */
TESS_API const char* tess_dtype_name(tess_dtype dtype);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_DTYPE_H_ */
