/*
 * Tessera C API. SBP: split / broadcast / partial per placement hierarchy axis (nd-sbp).
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_SBP_H_
#define TESSERA_SBP_H_

#include <stddef.h>
#include <stdint.h>

#include "tessera/common.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t tess_sbp_kind;
#define TESS_SBP_SPLIT 0
#define TESS_SBP_BROADCAST 1
#define TESS_SBP_PARTIAL_SUM 2
#define TESS_SBP_PARTIAL_MAX 3
#define TESS_SBP_PARTIAL_MIN 4

/* One SBP per placement hierarchy axis. Immutable. */
typedef struct tess_nd_sbp tess_nd_sbp;

/* Parses "(S(0), B)", "S(1)", "P", "P(max)", "(P(min), S(0))". */
TESS_API tess_status tess_nd_sbp_parse(tess_nd_sbp** out, const char* text);
/* kinds[i] with split_axes[i] (ignored unless kinds[i] == TESS_SBP_SPLIT). */
TESS_API tess_status tess_nd_sbp_create(tess_nd_sbp** out, const tess_sbp_kind* kinds,
                                        const int32_t* split_axes, size_t num_axes);
TESS_API void tess_nd_sbp_destroy(tess_nd_sbp* nd_sbp);
/* "(S(0), B)" or, for one axis, "S(0)". Valid while `nd_sbp` lives. */
TESS_API const char* tess_nd_sbp_string(const tess_nd_sbp* nd_sbp);
TESS_API tess_status tess_nd_sbp_num_axes(size_t* out, const tess_nd_sbp* nd_sbp);
/* The SBP of hierarchy axis `axis`; *out_split_axis is -1 unless it is a split. */
TESS_API tess_status tess_nd_sbp_get(tess_sbp_kind* out_kind, int32_t* out_split_axis,
                                     const tess_nd_sbp* nd_sbp, size_t axis);
TESS_API tess_status tess_nd_sbp_equal(int32_t* out, const tess_nd_sbp* a, const tess_nd_sbp* b);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_SBP_H_ */
