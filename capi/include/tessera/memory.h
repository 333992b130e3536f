/*
 * Tessera C API. Memory: the host caching allocators' counters.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_MEMORY_H_
#define TESSERA_MEMORY_H_

#include <stddef.h>
#include <stdint.h>

#include "tessera/common.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which caching allocator. Append only. */
typedef int32_t tess_allocator;
/* The process-wide host caching allocator (plan registers, staging). */
#define TESS_ALLOCATOR_HOST 0
/* The calling thread's own host caching allocator (eager tensors made on it). */
#define TESS_ALLOCATOR_HOST_THREAD 1

/* A caching allocator's counters; byte counts are block sizes (requests after
 * rounding). The caller sets struct_size (TESS_ALLOCATOR_STATS_INIT); the library
 * fills the fields that fit in it (docs/c-api.md, "ABI"). Append only. */
typedef struct tess_allocator_stats {
  size_t struct_size;         /* sizeof(tess_allocator_stats) */
  uint64_t bytes_in_use;      /* handed out and not yet freed */
  uint64_t peak_bytes_in_use; /* most bytes_in_use so far */
  uint64_t bytes_reserved;    /* held from the system: in use plus cached */
  uint64_t num_allocs;        /* successful allocations */
  uint64_t num_frees;         /* frees of non-NULL pointers */
  uint64_t num_cache_hits;    /* allocations served without a system allocation */
  uint64_t num_system_allocs; /* allocations taken from the system */
  uint64_t num_system_frees;  /* allocations returned to the system */
  uint64_t num_segments;      /* system allocations held now */
} tess_allocator_stats;

#define TESS_ALLOCATOR_STATS_INIT \
  { sizeof(tess_allocator_stats), 0, 0, 0, 0, 0, 0, 0, 0, 0 }

/* Fills *out with the counters of `allocator` (TESS_ALLOCATOR_*). INVALID_ARGUMENT
 * for NULL, a struct_size below the first version's, or an unknown allocator (naming
 * it). Works before tess_runtime_init. Local. Thread safety: any thread. */
TESS_API tess_status tess_allocator_get_stats(tess_allocator_stats* out, tess_allocator allocator);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_MEMORY_H_ */
