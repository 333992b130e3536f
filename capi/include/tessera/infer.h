/*
 * Tessera C API. Ops and SBP signature inference: op calls, inference results, explanations,
 * the inference cache.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_INFER_H_
#define TESSERA_INFER_H_

#include <stddef.h>
#include <stdint.h>

#include "tessera/common.h"
#include "tessera/dtype.h"
#include "tessera/placement.h"
#include "tessera/sbp.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The registered ops, by name. Static storage; thread safety: any thread. */
TESS_API size_t tess_op_count(void);
/* The name of op `index` in sorted order; "" when index >= tess_op_count(). */
TESS_API const char* tess_op_name(size_t index);

/* One op call before inference: op, attributes, input metas, constraints. Mutable:
 * one thread at a time may change it; a call not being changed may be inferred or
 * explained from several threads at once. */
typedef struct tess_op_call tess_op_call;

/* A call of the op `op_name`; NOT_FOUND, naming close op names, when none has it. */
TESS_API tess_status tess_op_call_create(tess_op_call** out, const char* op_name);
TESS_API void tess_op_call_destroy(tess_op_call* call);
/* The op's signature, e.g. "matmul(a, b) -> (out); attrs: transpose_a: bool =
 * false, transpose_b: bool = false". Valid while `call` lives. */
TESS_API const char* tess_op_call_signature(const tess_op_call* call);
/* Sets (or replaces) attribute `name`. INVALID_ARGUMENT when the op declares no
 * such attribute (the message lists those it has) or declares another type (the
 * message names the op, the attribute, the expected and the given type). A bool is
 * any nonzero value. */
TESS_API tess_status tess_op_call_set_attr_int(tess_op_call* call, const char* name, int64_t value);
TESS_API tess_status tess_op_call_set_attr_float(tess_op_call* call, const char* name,
                                                 double value);
TESS_API tess_status tess_op_call_set_attr_bool(tess_op_call* call, const char* name,
                                                int32_t value);
TESS_API tess_status tess_op_call_set_attr_ints(tess_op_call* call, const char* name,
                                                const int64_t* values, size_t num_values);
TESS_API tess_status tess_op_call_set_attr_dtype(tess_op_call* call, const char* name,
                                                 tess_dtype value);
/* Appends the next input: a global tensor of `shape` (ndim dims), `dtype`, placed on
 * `placement` with `nd_sbp`. INVALID_ARGUMENT, naming the input, for a negative dim,
 * an unknown dtype, an nd-sbp that does not fit the placement or shape, a placement
 * other than the first input's, or one input more than the op takes. */
TESS_API tess_status tess_op_call_add_input(tess_op_call* call, const int64_t* shape, size_t ndim,
                                            tess_dtype dtype, const tess_placement* placement,
                                            const tess_nd_sbp* nd_sbp);
TESS_API tess_status tess_op_call_num_inputs(size_t* out, const tess_op_call* call);
/* Requires input (output) `slot` to have `nd_sbp`; replaces an earlier constraint on
 * the same slot. Slots count flat (a repeated input's copies in order).
 * INVALID_ARGUMENT for a slot past the op's last. */
TESS_API tess_status tess_op_call_constrain_input(tess_op_call* call, size_t slot,
                                                  const tess_nd_sbp* nd_sbp);
TESS_API tess_status tess_op_call_constrain_output(tess_op_call* call, size_t slot,
                                                   const tess_nd_sbp* nd_sbp);

/* The outcome of inference: output metas and what each input must be boxed into.
 * Immutable. */
typedef struct tess_infer_result tess_infer_result;

/* Infers the call's SBP signature through the calling thread's inference cache (a
 * hit allocates nothing in the core; see tess_infer_cache_stats). INVALID_ARGUMENT
 * for a wrong input count, a missing required attribute, shapes the op rejects, a
 * bad constraint, or when no signature fits (the message lists the input nd-sbps and
 * every candidate with why it was dropped). Thread safety: any thread; each thread
 * has its own cache. */
TESS_API tess_status tess_op_call_infer(tess_infer_result** out, const tess_op_call* call);
TESS_API void tess_infer_result_destroy(tess_infer_result* result);
TESS_API tess_status tess_infer_result_num_outputs(size_t* out, const tess_infer_result* result);
/* Output `output`'s logical shape, dtype, placement (the inputs') and nd-sbp. The
 * handles are new and owned by the caller. OUT_OF_RANGE for an index past the last.
 * The shape is borrowed: *out_dims points at *out_ndim dims (not NULL, also for 0
 * dims), valid while `result` lives. */
TESS_API tess_status tess_infer_result_output_shape(const int64_t** out_dims, size_t* out_ndim,
                                                    const tess_infer_result* result, size_t output);
TESS_API tess_status tess_infer_result_output_dtype(tess_dtype* out,
                                                    const tess_infer_result* result, size_t output);
TESS_API tess_status tess_infer_result_output_placement(tess_placement** out,
                                                        const tess_infer_result* result,
                                                        size_t output);
TESS_API tess_status tess_infer_result_output_nd_sbp(tess_nd_sbp** out,
                                                     const tess_infer_result* result,
                                                     size_t output);
TESS_API tess_status tess_infer_result_num_inputs(size_t* out, const tess_infer_result* result);
/* The nd-sbp input `input` must be boxed into (its own when no boxing). New handle. */
TESS_API tess_status tess_infer_result_input_nd_sbp(tess_nd_sbp** out,
                                                    const tess_infer_result* result, size_t input);
/* *out = 1 if input `input`'s data must move (its nd-sbp changes on a hierarchy axis
 * of more than one rank), else 0. */
TESS_API tess_status tess_infer_result_needs_boxing(int32_t* out, const tess_infer_result* result,
                                                    size_t input);
/* Modelled bytes moved to box input `input` (the cost model of core/infer). */
TESS_API tess_status tess_infer_result_input_cost(double* out, const tess_infer_result* result,
                                                  size_t input);
TESS_API tess_status tess_infer_result_total_cost(double* out, const tess_infer_result* result);
/* Position of the chosen signature in declared order; -1 on a 1-rank placement. */
TESS_API tess_status tess_infer_result_signature_index(int32_t* out,
                                                       const tess_infer_result* result);
/* Number of candidate signatures considered (0 on a 1-rank placement). */
TESS_API tess_status tess_infer_result_num_candidates(int32_t* out,
                                                      const tess_infer_result* result);

/* The full record of one inference: every candidate with its cost and ranking (or
 * why it was dropped), the choice, the boxing per input. Immutable. */
typedef struct tess_explanation tess_explanation;

/* Explains the call (uncached). Fails like tess_op_call_infer except when no signature
 * fits: that is an explanation whose tess_explanation_failure is not "". */
TESS_API tess_status tess_op_call_explain(tess_explanation** out, const tess_op_call* call);
TESS_API void tess_explanation_destroy(tess_explanation* explanation);
/* Multi-line readable text. Valid while `explanation` lives. */
TESS_API const char* tess_explanation_text(const tess_explanation* explanation);
/* The same record as one JSON object (fields: docs/c-api.md, "Inference"). Valid
 * while `explanation` lives. */
TESS_API const char* tess_explanation_json(const tess_explanation* explanation);
/* "" when a signature was chosen; else the message tess_op_call_infer would fail with.
 * Valid while `explanation` lives. */
TESS_API const char* tess_explanation_failure(const tess_explanation* explanation);

/* The calling thread's inference cache (an LRU of tess_op_call_infer results): its counters
 * and entries are per thread. The caller sets struct_size
 * (TESS_INFER_CACHE_STATS_INIT); the library fills the fields that fit in it
 * (docs/c-api.md, "ABI"). Append only. */
typedef struct tess_infer_cache_stats {
  size_t struct_size; /* sizeof(tess_infer_cache_stats) */
  uint64_t hits;
  uint64_t misses;
  uint64_t evictions;
  uint64_t size;     /* entries now */
  uint64_t capacity; /* most entries */
} tess_infer_cache_stats;

#define TESS_INFER_CACHE_STATS_INIT \
  { sizeof(tess_infer_cache_stats), 0, 0, 0, 0, 0 }

/* Fills *out with the calling thread's cache counters. INVALID_ARGUMENT for NULL or a
 * struct_size below the first version's. Thread safety: any thread (its own cache). */
TESS_API tess_status tess_infer_cache_get_stats(tess_infer_cache_stats* out);
/* Drops every entry and zeroes the counters. */
TESS_API void tess_infer_cache_clear(void);
/* Drops every entry (counters kept) and sets the capacity; INVALID_ARGUMENT for 0 or
 * above 2^30 (docs/c-api.md, "Limits"). Memory grows with the entries held, not with
 * the capacity. */
TESS_API tess_status tess_infer_cache_set_capacity(size_t capacity);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_INFER_H_ */
