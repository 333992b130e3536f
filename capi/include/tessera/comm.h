/*
 * Tessera C API. Collectives on host buffers: all-reduce, bucketed all-reduce, the collective
 * timeout.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_COMM_H_
#define TESSERA_COMM_H_

#include <stddef.h>
#include <stdint.h>

#include "tessera/common.h"
#include "tessera/dtype.h"
#include "tessera/placement.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Append only. */
typedef int32_t tess_reduce_op;
#define TESS_REDUCE_SUM 0
#define TESS_REDUCE_MAX 1
#define TESS_REDUCE_MIN 2

/* How tess_comm_allreduce runs. Hosts are the groups of ranks that share memory, or
 * TESSERA_RANKS_PER_HOST consecutive world ranks when that is set. Append only. */
typedef int32_t tess_allreduce_algorithm;
/* One all-reduce over all the ranks. */
#define TESS_ALLREDUCE_FLAT 0
/* Flat on one host, with one rank per host, and under TESSERA_HIERARCHICAL_ALLREDUCE_BYTES
 * (default 1 MiB). Otherwise measured: the first calls of each payload size (by power of
 * two) run the flat, sharded (HIERARCHICAL below) and host-leader forms in turn, twice
 * each, and the ranks then agree on the fastest for that size (one small all-reduce);
 * TESSERA_HIERARCHICAL_TUNE=0 uses a fixed rule instead (host by host whenever it
 * applies). docs/multihost.md, "Choosing the all-reduce". */
#define TESS_ALLREDUCE_AUTO 1
/* Always host by host: intra-host reduce-scatter, inter-host all-reduce of each
 * shard, intra-host all-gather. */
#define TESS_ALLREDUCE_HIERARCHICAL 2

/* buffer[k] := op over the ranks of `placement` (NULL: the world) of buffer[k], for
 * k < count, in place. f32, f64, i32 and i64. The first AUTO or HIERARCHICAL call
 * on a placement's ranks creates its host communicators (collective over them) and
 * keeps them until tess_runtime_finalize. Ranks outside the placement return at once (they
 * need not call). INVALID_ARGUMENT for a negative count, NULL buffer with count >
 * 0, an unknown dtype, op or algorithm; OUT_OF_RANGE when the placement names a
 * rank the world lacks; UNIMPLEMENTED for f16/bf16 and cuda placements;
 * DEADLINE_EXCEEDED after the collective timeout (tess_comm_set_collective_timeout).
 * Collective over the placement, with the same count, dtype, op and algorithm on
 * every rank. Thread safety (<tessera/common.h>): any thread, several at once;
 * calls on overlapping ranks from several threads must reach every rank in the same
 * order, which the program ensures. */
TESS_API tess_status tess_comm_allreduce(void* buffer, int64_t count, tess_dtype dtype,
                                         tess_reduce_op op, const tess_placement* placement,
                                         tess_allreduce_algorithm algorithm);

/* All-reduces many buffers of one dtype (say, gradients) with few collectives: they
 * are packed in list order into buckets of at most bucket_bytes, one all-reduce per
 * bucket; a buffer bigger than a bucket is all-reduced in place without a copy. The
 * packing plan and staging are cached in the reducer by (dtype, counts), so a
 * repeated call with the same counts allocates nothing. Mutable: one thread at a
 * time. */
typedef struct tess_bucketed_allreducer tess_bucketed_allreducer;

/* Options of tess_bucketed_allreducer_create. Start from
 * TESS_BUCKETED_ALLREDUCER_OPTIONS_INIT (docs/c-api.md, "ABI"). Append only. */
typedef struct tess_bucketed_allreducer_options {
  size_t struct_size; /* sizeof(tess_bucketed_allreducer_options) */
  /* Most bytes per bucket; 0 (the default) means 25 MiB. */
  int64_t bucket_bytes;
} tess_bucketed_allreducer_options;

#define TESS_BUCKETED_ALLREDUCER_OPTIONS_INIT \
  { sizeof(tess_bucketed_allreducer_options), 0 }

/* `options` NULL means the defaults. INVALID_ARGUMENT for a bad struct_size or a
 * negative bucket_bytes (naming it). Local; any thread. */
TESS_API tess_status tess_bucketed_allreducer_create(
    tess_bucketed_allreducer** out, const tess_bucketed_allreducer_options* options);
TESS_API void tess_bucketed_allreducer_destroy(tess_bucketed_allreducer* reducer);
/* buffers[i] (counts[i] elements of `dtype`) := op over the ranks of `placement`
 * (NULL: the world) of buffers[i], for every i < num_tensors, in place. When the ranks
 * span several hosts each bucket is all-reduced as TESS_ALLREDUCE_AUTO does (the
 * fastest of flat and host by host, measured per size); on one host through shared
 * memory. Buffers must
 * not overlap; a buffer may be NULL when its count is 0. INVALID_ARGUMENT, before
 * any communication, for a negative count, a NULL buffer with elements, an unknown
 * dtype or op; otherwise fails like tess_comm_allreduce (a failure inside a bucket leaves
 * that bucket's buffers and later ones unspecified). Ranks outside the placement
 * return at once. Collective over the placement, with the same counts, dtype and op
 * on every rank. */
TESS_API tess_status tess_bucketed_allreducer_run(tess_bucketed_allreducer* reducer,
                                                  void* const* buffers, const int64_t* counts,
                                                  size_t num_tensors, tess_dtype dtype,
                                                  tess_reduce_op op,
                                                  const tess_placement* placement);
/* A reducer's counters. The caller sets struct_size (TESS_BUCKETED_ALLREDUCER_STATS_INIT);
 * the library fills the fields that fit in it. Append only. */
typedef struct tess_bucketed_allreducer_stats {
  size_t struct_size;       /* sizeof(tess_bucketed_allreducer_stats) */
  int64_t calls;            /* tess_bucketed_allreducer_run calls */
  int64_t plans_built;      /* packing plans built (cache misses) */
  int64_t buckets;          /* the last call's buckets */
  int64_t in_place_buckets; /* of those, the ones all-reduced without a copy */
} tess_bucketed_allreducer_stats;

#define TESS_BUCKETED_ALLREDUCER_STATS_INIT \
  { sizeof(tess_bucketed_allreducer_stats), 0, 0, 0, 0 }

/* Fills *out (see tess_bucketed_allreducer_stats). INVALID_ARGUMENT for a NULL
 * argument or a struct_size below the first version's. Local; not while the reducer
 * is in a call. */
TESS_API tess_status tess_bucketed_allreducer_get_stats(tess_bucketed_allreducer_stats* out,
                                                        const tess_bucketed_allreducer* reducer);

/* Bounds every collective Tessera runs from now on to `seconds` (0: wait forever):
 * the process default for communicators created later (overriding
 * TESSERA_COLLECTIVE_TIMEOUT_S) and the limit of every one already created (those
 * of placements and their axes, boxing's, tess_comm_allreduce's host communicators). A
 * collective still incomplete after `seconds` fails with DEADLINE_EXCEEDED, and the
 * communicator it ran on fails every later call with FAILED_PRECONDITION (MPI cannot
 * cancel the stuck operation; its buffers must outlive it). A timeout costs speed:
 * collectives then run as nonblocking calls polled to the deadline (all-reduce
 * measured 1.3-1.8x slower). INVALID_ARGUMENT for a negative, NaN or infinite value, or
 * one above 1e6 s (~11.6 days; docs/c-api.md, "Limits").
 * Local (no communication), but call it with the same value on every rank. Works
 * before tess_runtime_init. Must not race with collective calls. */
TESS_API tess_status tess_comm_set_collective_timeout(double seconds);
/* The process default: the last tess_comm_set_collective_timeout value, else
 * TESSERA_COLLECTIVE_TIMEOUT_S, else 0. INVALID_ARGUMENT, naming the variable, when
 * it is not a number >= 0 and <= 1e6. Thread safety: any thread. */
TESS_API tess_status tess_comm_collective_timeout(double* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_COMM_H_ */
