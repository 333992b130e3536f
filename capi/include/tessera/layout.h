/*
 * Tessera C API. Physical layout: the part of a logical tensor that one rank holds.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_LAYOUT_H_
#define TESSERA_LAYOUT_H_

#include <stddef.h>
#include <stdint.h>

#include "tessera/common.h"
#include "tessera/placement.h"
#include "tessera/sbp.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The part of a logical tensor that one rank holds. Immutable. */
typedef struct tess_layout tess_layout;

/* The layout `rank` holds of a tensor of `shape` (ndim dims) placed on
 * `placement` with `nd_sbp`. Nested ND splits: hierarchy axis 0 splits first.
 * Uneven splits give the first dim % n parts one extra element; parts past the
 * dim are empty (zero-sized). NOT_FOUND if `placement` does not hold `rank`. */
TESS_API tess_status tess_layout_create(tess_layout** out, const tess_placement* placement,
                                        const tess_nd_sbp* nd_sbp, const int64_t* shape,
                                        size_t ndim, int32_t rank);
TESS_API void tess_layout_destroy(tess_layout* layout);
/* The local tensor's shape, borrowed: *out_dims points at *out_ndim dims (not NULL,
 * also for 0 dims), valid while `layout` lives. */
TESS_API tess_status tess_layout_local_shape(const int64_t** out_dims, size_t* out_ndim,
                                             const tess_layout* layout);
/* The logical index range [begin, end) held along `dim`. */
TESS_API tess_status tess_layout_range(int64_t* out_begin, int64_t* out_end,
                                       const tess_layout* layout, size_t dim);
/* Number of local elements (0 for an empty part). */
TESS_API tess_status tess_layout_num_elements(int64_t* out, const tess_layout* layout);
/* "[0,3)x[3,5)". Valid while `layout` lives. */
TESS_API const char* tess_layout_string(const tess_layout* layout);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_LAYOUT_H_ */
