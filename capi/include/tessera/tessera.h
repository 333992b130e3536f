/*
 * Tessera C API: the stable surface of libtessera.so.
 *
 * Conventions
 * - Every fallible function returns tess_status (TESS_OK == 0). On failure the
 *   detail is in tess_last_error_message(), out-params are left untouched and
 *   nothing is leaked.
 * - Out-params come first. A handle returned through `T** out` is owned by the
 *   caller and released with the matching *_destroy, which accepts NULL.
 * - Strings returned as `const char*` are borrowed: their lifetime is stated on
 *   each function. All strings are UTF-8 (in practice ASCII).
 * - Thread safety: unless a function says otherwise, distinct handles may be
 *   used from distinct threads at once; one handle may be read (any const
 *   function) from several threads at once. tess_init/tess_finalize must not
 *   race with any other call.
 */
#ifndef TESSERA_TESSERA_H_
#define TESSERA_TESSERA_H_

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define TESS_API __declspec(dllexport)
#else
#define TESS_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Versions                                                                  */
/* ------------------------------------------------------------------------ */

#define TESS_VERSION_MAJOR 0
#define TESS_VERSION_MINOR 1
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

/* ------------------------------------------------------------------------ */
/* Status                                                                    */
/* ------------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------------ */
/* Runtime                                                                   */
/* ------------------------------------------------------------------------ */

/* Starts the runtime. Initialises MPI (with MPI_THREAD_MULTIPLE) unless the host
 * program already did; without mpirun the process is a world of one rank.
 * Calling it again while initialised is a no-op returning TESS_OK.
 * Thread safety: call once, before other threads use Tessera. */
TESS_API tess_status tess_init(void);
/* Stops the runtime; finalises MPI only if tess_init initialised it. A no-op
 * when not initialised. After it, tess_init fails (MPI cannot restart). */
TESS_API tess_status tess_finalize(void);
/* This process's rank in the world. FAILED_PRECONDITION before tess_init. */
TESS_API tess_status tess_world_rank(int32_t* out_rank);
/* Number of ranks in the world. FAILED_PRECONDITION before tess_init. */
TESS_API tess_status tess_world_size(int32_t* out_size);

/* ------------------------------------------------------------------------ */
/* Placements                                                                */
/* ------------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------------ */
/* SBP                                                                       */
/* ------------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------------ */
/* Physical layout                                                           */
/* ------------------------------------------------------------------------ */

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
TESS_API tess_status tess_layout_ndim(size_t* out, const tess_layout* layout);
/* Size of the local tensor along `dim`. */
TESS_API tess_status tess_layout_local_dim(int64_t* out, const tess_layout* layout, size_t dim);
/* The logical index range [begin, end) held along `dim`. */
TESS_API tess_status tess_layout_range(int64_t* out_begin, int64_t* out_end,
                                       const tess_layout* layout, size_t dim);
/* Number of local elements (0 for an empty part). */
TESS_API tess_status tess_layout_num_elements(int64_t* out, const tess_layout* layout);
/* "[0,3)x[3,5)". Valid while `layout` lives. */
TESS_API const char* tess_layout_string(const tess_layout* layout);

/* ------------------------------------------------------------------------ */
/* Element types                                                             */
/* ------------------------------------------------------------------------ */

/* Append only. f16 and bf16 are named but no kernel supports them yet. */
typedef int32_t tess_dtype;
#define TESS_DTYPE_F32 0
#define TESS_DTYPE_F64 1
#define TESS_DTYPE_I32 2
#define TESS_DTYPE_I64 3
#define TESS_DTYPE_F16 4
#define TESS_DTYPE_BF16 5

/* Parses "f32", "f64", "i32", "i64", "f16", "bf16". Thread safety: any thread. */
TESS_API tess_status tess_dtype_parse(tess_dtype* out, const char* text);
/* "f32" etc.; "" for an unknown value. Static storage. Thread safety: any thread. */
TESS_API const char* tess_dtype_name(tess_dtype dtype);

/* ------------------------------------------------------------------------ */
/* Ops and SBP signature inference                                           */
/* ------------------------------------------------------------------------ */

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
TESS_API tess_status tess_infer(tess_infer_result** out, const tess_op_call* call);
TESS_API void tess_infer_result_destroy(tess_infer_result* result);
TESS_API tess_status tess_infer_result_num_outputs(size_t* out, const tess_infer_result* result);
/* Output `output`'s logical shape, dtype, placement (the inputs') and nd-sbp. The
 * handles are new and owned by the caller. OUT_OF_RANGE for an index past the last. */
TESS_API tess_status tess_infer_result_output_ndim(size_t* out, const tess_infer_result* result,
                                                   size_t output);
TESS_API tess_status tess_infer_result_output_dim(int64_t* out, const tess_infer_result* result,
                                                  size_t output, size_t dim);
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

/* Explains the call (uncached). Fails like tess_infer except when no signature
 * fits: that is an explanation whose tess_explanation_failure is not "". */
TESS_API tess_status tess_explain(tess_explanation** out, const tess_op_call* call);
TESS_API void tess_explanation_destroy(tess_explanation* explanation);
/* Multi-line readable text. Valid while `explanation` lives. */
TESS_API const char* tess_explanation_text(const tess_explanation* explanation);
/* The same record as one JSON object (fields: docs/c-api.md, "Inference"). Valid
 * while `explanation` lives. */
TESS_API const char* tess_explanation_json(const tess_explanation* explanation);
/* "" when a signature was chosen; else the message tess_infer would fail with.
 * Valid while `explanation` lives. */
TESS_API const char* tess_explanation_failure(const tess_explanation* explanation);

/* The calling thread's inference cache (an LRU of tess_infer results). Counters
 * and entries are per thread. */
TESS_API tess_status tess_infer_cache_stats(uint64_t* out_hits, uint64_t* out_misses,
                                            uint64_t* out_evictions, size_t* out_size,
                                            size_t* out_capacity);
/* Drops every entry and zeroes the counters. */
TESS_API void tess_infer_cache_clear(void);
/* Drops every entry (counters kept) and sets the capacity; INVALID_ARGUMENT for 0. */
TESS_API tess_status tess_infer_cache_set_capacity(size_t capacity);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_TESSERA_H_ */
