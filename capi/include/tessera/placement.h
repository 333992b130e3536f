/*
 * Tessera C API. Placements: a device type plus an N-d array of ranks.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_PLACEMENT_H_
#define TESSERA_PLACEMENT_H_

#include <stddef.h>
#include <stdint.h>

#include "tessera/common.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t tess_device_type;
#define TESS_DEVICE_CPU 0
#define TESS_DEVICE_CUDA 1

/* A device type plus an N-d array of ranks (the array's shape is the hierarchy).
 * Immutable; safe to read from several threads. */
typedef struct tess_placement tess_placement;

/* Parses "cpu:[0,1,2,3]", "cuda:[[0,1],[2,3]]", "cpu:0-3", "cpu:[0-1,4]". */
TESS_API tess_status tess_placement_parse(tess_placement** out, const char* text);
/* `ranks` holds num_ranks ranks in row-major order over `hierarchy`
 * (num_axes dims whose product is num_ranks). */
TESS_API tess_status tess_placement_create(tess_placement** out, tess_device_type device_type,
                                           const int32_t* ranks, size_t num_ranks,
                                           const int64_t* hierarchy, size_t num_axes);
TESS_API void tess_placement_destroy(tess_placement* placement);
/* Canonical text, e.g. "cpu:[[0,1],[2,3]]". Valid while `placement` lives. */
TESS_API const char* tess_placement_string(const tess_placement* placement);
TESS_API tess_status tess_placement_device_type(tess_device_type* out,
                                                const tess_placement* placement);
/* Number of hierarchy axes (1 for "cpu:[0,1]", 2 for "cpu:[[0,1],[2,3]]"). */
TESS_API tess_status tess_placement_num_axes(size_t* out, const tess_placement* placement);
/* Size of hierarchy axis `axis`. */
TESS_API tess_status tess_placement_hierarchy_dim(int64_t* out, const tess_placement* placement,
                                                  size_t axis);
/* Number of ranks. */
TESS_API tess_status tess_placement_parallel_num(int64_t* out, const tess_placement* placement);
/* The rank at row-major parallel index `index`. */
TESS_API tess_status tess_placement_rank_at(int32_t* out, const tess_placement* placement,
                                            int64_t index);
/* The parallel index of `rank`; NOT_FOUND if the placement does not hold it. */
TESS_API tess_status tess_placement_index_of(int64_t* out, const tess_placement* placement,
                                             int32_t rank);
/* *out = 1 if the placement holds `rank`, else 0. */
TESS_API tess_status tess_placement_contains(int32_t* out, const tess_placement* placement,
                                             int32_t rank);
/* The 1-d placement of the ranks that differ from `rank` only along hierarchy
 * axis `axis`: `rank`'s communication group along that axis. */
TESS_API tess_status tess_placement_axis_group(tess_placement** out,
                                               const tess_placement* placement, size_t axis,
                                               int32_t rank);
/* *out = 1 if equal (device type, hierarchy and ranks), else 0. */
TESS_API tess_status tess_placement_equal(int32_t* out, const tess_placement* a,
                                          const tess_placement* b);
TESS_API tess_status tess_placement_hash(uint64_t* out, const tess_placement* placement);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_PLACEMENT_H_ */
