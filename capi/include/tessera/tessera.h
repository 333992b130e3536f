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
/* Whether cuda placements can hold eager tensors in this process: *out_built_with_cuda
 * = 1 when the library was built with CUDA (--config=cuda), else 0; *out_device_count
 * = the CUDA devices visible to this process (0 without a CUDA build, a GPU or a
 * driver). Without a CUDA build tensors on cuda placements fail with UNIMPLEMENTED,
 * with one but no device with UNAVAILABLE. INVALID_ARGUMENT, naming it, for a NULL
 * out-param; FAILED_PRECONDITION when the driver is older than the CUDA runtime.
 * Works before tess_init. Local. Thread safety: any thread. */
TESS_API tess_status tess_cuda_info(int32_t* out_built_with_cuda, int32_t* out_device_count);

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

/* ------------------------------------------------------------------------ */
/* Eager tensors                                                             */
/* ------------------------------------------------------------------------ */

/* A global tensor: a logical shape, dtype, placement and nd-sbp, plus this rank's
 * local piece when the placement holds this rank (ranks outside it hold the
 * metadata only). Immutable: ops and casts make new tensors. Any thread may read
 * one tensor at once (every const function).
 *
 * SPMD. Creation, tess_tensor_to_global, tess_tensor_to_host and every op are
 * collective: every rank of the world makes the same calls, in the same order,
 * with the same arguments (except the local data of tess_tensor_from_local and
 * tess_tensor_from_dlpack). A call that fails on one rank only (say, a too-small
 * buffer) leaves the others waiting, as in MPI.
 *
 * Thread safety. Collective calls: one thread per rank at a time (their order must
 * match across ranks). Local calls (metadata, copy_local, the DLPack export,
 * destroy, tess_explain_last): any thread, on any tensor not being destroyed.
 *
 * Ownership. Tensors, placements, nd-sbps and explanations returned through `T**
 * out` are new handles owned by the caller; a tensor handle shares the immutable
 * core tensor, which lives while any handle or DLPack export of it does.
 *
 * cuda placements (in a --config=cuda build; UNIMPLEMENTED "built without CUDA"
 * otherwise) keep each piece on the rank's CUDA device (local rank % device
 * count). Ops queue CUDA kernels without waiting; to_host, copy_local and the
 * DLPack export wait for them and report their errors. A layout change between
 * two cuda placements runs on the devices (NCCL collectives, device copies) when
 * no two ranks of the world share a GPU, and is staged through host memory
 * otherwise (NCCL refuses two ranks on one device) and between cpu and cuda. */
typedef struct tess_tensor tess_tensor;

/* The logical tensor at `data` (row-major; the product of the ndim dims of
 * `shape` elements of `dtype`, the same on every rank), held as `nd_sbp` on
 * `placement`: each rank keeps its piece (a copy). `data` may be NULL for an empty
 * tensor or on a rank outside the placement. INVALID_ARGUMENT for a negative dim,
 * more than 8 dims, an unknown dtype or an nd-sbp that does not fit the placement
 * or shape; UNIMPLEMENTED for f16/bf16. Collective. */
TESS_API tess_status tess_tensor_from_host(tess_tensor** out, const void* data,
                                           const int64_t* shape, size_t ndim, tess_dtype dtype,
                                           const tess_placement* placement,
                                           const tess_nd_sbp* nd_sbp);
/* The global tensor whose piece on this rank is `local` (row-major, the product of
 * `local_shape`'s ndim dims elements): shards for S, partial values for P, copies
 * for B (the copy at coordinate 0 of each broadcast axis wins). `logical_shape`
 * (ndim dims) states the logical shape, checked against this rank's piece without
 * communication; NULL infers it from every rank's local shape, a collective over
 * the world that must find exactly the balanced split's shapes. Ranks outside the
 * placement pass any local shape (and NULL data). Collective. */
TESS_API tess_status tess_tensor_from_local(tess_tensor** out, const void* local,
                                            const int64_t* local_shape, size_t ndim,
                                            tess_dtype dtype, const tess_placement* placement,
                                            const tess_nd_sbp* nd_sbp,
                                            const int64_t* logical_shape);
/* Every element `value` converted to `dtype`; INVALID_ARGUMENT when the dtype
 * cannot hold it exactly (0.5 or NaN for an integer dtype). Collective. */
TESS_API tess_status tess_tensor_full(tess_tensor** out, const int64_t* shape, size_t ndim,
                                      tess_dtype dtype, double value,
                                      const tess_placement* placement, const tess_nd_sbp* nd_sbp);
/* The 1-d tensor start, start + step, ... up to but excluding stop (from above
 * when step < 0). INVALID_ARGUMENT for step 0, or a non-integral start or step
 * with an integer dtype. Collective. */
TESS_API tess_status tess_tensor_arange(tess_tensor** out, double start, double stop, double step,
                                        tess_dtype dtype, const tess_placement* placement,
                                        const tess_nd_sbp* nd_sbp);
/* Uniform [0, 1) (rand) or standard normal (randn) values from a counter-based
 * generator: the logical value depends only on (shape, dtype, seed), never on the
 * placement, nd-sbp or world size. Floating dtypes only. Collective. */
TESS_API tess_status tess_tensor_rand(tess_tensor** out, const int64_t* shape, size_t ndim,
                                      tess_dtype dtype, uint64_t seed,
                                      const tess_placement* placement, const tess_nd_sbp* nd_sbp);
TESS_API tess_status tess_tensor_randn(tess_tensor** out, const int64_t* shape, size_t ndim,
                                       tess_dtype dtype, uint64_t seed,
                                       const tess_placement* placement, const tess_nd_sbp* nd_sbp);
/* Releases this handle; the data lives on while another handle or a DLPack export
 * of it does. Local: ranks may destroy in any order. Accepts NULL. */
TESS_API void tess_tensor_destroy(tess_tensor* tensor);

/* Metadata. Local: no communication, any thread. */
TESS_API tess_status tess_tensor_ndim(size_t* out, const tess_tensor* tensor);
/* Logical size along `dim`; OUT_OF_RANGE past the last dim. */
TESS_API tess_status tess_tensor_dim(int64_t* out, const tess_tensor* tensor, size_t dim);
TESS_API tess_status tess_tensor_num_elements(int64_t* out, const tess_tensor* tensor);
TESS_API tess_status tess_tensor_dtype(tess_dtype* out, const tess_tensor* tensor);
/* New handles, owned by the caller. */
TESS_API tess_status tess_tensor_placement(tess_placement** out, const tess_tensor* tensor);
TESS_API tess_status tess_tensor_nd_sbp(tess_nd_sbp** out, const tess_tensor* tensor);
/* *out = 1 if this rank holds a local piece (the placement holds it), else 0. */
TESS_API tess_status tess_tensor_has_local(int32_t* out, const tess_tensor* tensor);
/* The local piece's shape and size. FAILED_PRECONDITION on a rank outside the
 * placement; a piece past the end of an uneven split has 0 elements. */
TESS_API tess_status tess_tensor_local_ndim(size_t* out, const tess_tensor* tensor);
TESS_API tess_status tess_tensor_local_dim(int64_t* out, const tess_tensor* tensor, size_t dim);
TESS_API tess_status tess_tensor_local_num_elements(int64_t* out, const tess_tensor* tensor);
/* "[4,6] f32 cpu:[0,1] S(0)". Valid while `tensor` lives. */
TESS_API const char* tess_tensor_string(const tess_tensor* tensor);

/* Data. */
/* Writes the whole logical value (row-major) to `out` on EVERY rank of the world,
 * including ranks outside the placement. INVALID_ARGUMENT when out_bytes is less
 * than num_elements * dtype size (the message gives both). Collective over the
 * world. */
TESS_API tess_status tess_tensor_to_host(void* out, size_t out_bytes, const tess_tensor* tensor);
/* Copies this rank's local piece (row-major, local_num_elements elements) to `out`.
 * INVALID_ARGUMENT when out_bytes is too small; FAILED_PRECONDITION on a rank
 * outside the placement. Local. */
TESS_API tess_status tess_tensor_copy_local(void* out, size_t out_bytes, const tess_tensor* tensor);
/* The same logical value held as `nd_sbp` on `placement`, moved by boxing (any
 * placement, any nd-sbp). Collective over the union of both placements (every
 * rank calls). */
TESS_API tess_status tess_tensor_to_global(tess_tensor** out, const tess_tensor* tensor,
                                           const tess_placement* placement,
                                           const tess_nd_sbp* nd_sbp);

/* DLPack (<tessera/dlpack.h> or the official <dlpack/dlpack.h> defines the
 * structs). Export is zero-copy and covers this rank's LOCAL piece: a compact
 * row-major kDLCPU tensor, or kDLCUDA with the device id for a cuda placement
 * (the export first waits for the kernels writing it), flagged READ_ONLY (tensors
 * are immutable). The export keeps the data alive after tess_tensor_destroy; call
 * its deleter exactly once when done (any thread), and for kDLCUDA only after the
 * consumer's device work reading it has finished. FAILED_PRECONDITION on a rank
 * outside the placement. Local. */
struct DLManagedTensorVersioned;
struct DLManagedTensor;
TESS_API tess_status tess_tensor_to_dlpack(struct DLManagedTensorVersioned** out,
                                           const tess_tensor* tensor);
/* The same as the pre-1.0 struct, for consumers that only read it (numpy < 2.1). */
TESS_API tess_status tess_tensor_to_dlpack_legacy(struct DLManagedTensor** out,
                                                  const tess_tensor* tensor);
/* tess_tensor_from_local with `local` as this rank's piece (kDLCPU, kDLCUDAHost,
 * or kDLCUDA whose writes have finished; any strides; the data is copied).
 * `logical_shape` has local->dl_tensor.ndim dims or is NULL (see
 * tess_tensor_from_local). Takes ownership of `local` whenever it is not NULL: its
 * deleter has been called when this returns, on success and failure alike.
 * INVALID_ARGUMENT for a major version other than 1, another device type, kDLCUDA
 * data that is not memory of the named device, lanes != 1 or an element type
 * Tessera lacks (the message names it); UNIMPLEMENTED for kDLCUDA without a CUDA
 * build. Collective. */
TESS_API tess_status tess_tensor_from_dlpack(tess_tensor** out,
                                             struct DLManagedTensorVersioned* local,
                                             const tess_placement* placement,
                                             const tess_nd_sbp* nd_sbp,
                                             const int64_t* logical_shape);
/* The same for the pre-1.0 struct. */
TESS_API tess_status tess_tensor_from_dlpack_legacy(tess_tensor** out,
                                                    struct DLManagedTensor* local,
                                                    const tess_placement* placement,
                                                    const tess_nd_sbp* nd_sbp,
                                                    const int64_t* logical_shape);

/* ------------------------------------------------------------------------ */
/* Ops on eager tensors                                                      */
/* ------------------------------------------------------------------------ */

/* Runs the op of `call` (its attributes and constraints; tess_op_call_add_input is
 * for inference and must not have been used) on `inputs`: SBP signature inference
 * through the calling thread's cache, boxing of the inputs that need it, then the
 * local kernel. Writes *num_outputs new tensors to outputs[0..]. All inputs must
 * share one placement (tess_tensor_to_global moves one). INVALID_ARGUMENT for a
 * call with input metas, outputs_capacity below the op's output count, a NULL
 * input, or inputs the op rejects (the message names the op and the input).
 * Collective over the inputs' placement. Thread safety: the call may be shared by
 * several threads while none changes it. */
TESS_API tess_status tess_apply(tess_tensor** outputs, size_t outputs_capacity, size_t* num_outputs,
                                const tess_op_call* call, const tess_tensor* const* inputs,
                                size_t num_inputs);

/* Typed ops: the same as tess_apply with the named op (numpy broadcasting for the
 * binary ones). A warm call with the inference cached and no boxing allocates only
 * the output (its handle and the core's tensor; storage comes from the caching
 * allocator) and takes no lock. Collective over the inputs' placement. */
TESS_API tess_status tess_add(tess_tensor** out, const tess_tensor* x, const tess_tensor* y);
TESS_API tess_status tess_sub(tess_tensor** out, const tess_tensor* x, const tess_tensor* y);
TESS_API tess_status tess_mul(tess_tensor** out, const tess_tensor* x, const tess_tensor* y);
TESS_API tess_status tess_div(tess_tensor** out, const tess_tensor* x, const tess_tensor* y);
TESS_API tess_status tess_maximum(tess_tensor** out, const tess_tensor* x, const tess_tensor* y);
TESS_API tess_status tess_minimum(tess_tensor** out, const tess_tensor* x, const tess_tensor* y);
TESS_API tess_status tess_relu(tess_tensor** out, const tess_tensor* x);
TESS_API tess_status tess_gelu(tess_tensor** out, const tess_tensor* x);
TESS_API tess_status tess_sigmoid(tess_tensor** out, const tess_tensor* x);
TESS_API tess_status tess_tanh(tess_tensor** out, const tess_tensor* x);
TESS_API tess_status tess_exp(tess_tensor** out, const tess_tensor* x);
TESS_API tess_status tess_neg(tess_tensor** out, const tess_tensor* x);
TESS_API tess_status tess_sqrt(tess_tensor** out, const tess_tensor* x);
/* op(a) @ op(b), op transposing the last two dims when the flag is nonzero. */
TESS_API tess_status tess_matmul(tess_tensor** out, const tess_tensor* a, const tess_tensor* b,
                                 int32_t transpose_a, int32_t transpose_b);
/* Reduces over `axes` (num_axes of them; none = every axis; negative counts from
 * the end), keeping them as size 1 when keepdims is nonzero. */
TESS_API tess_status tess_reduce_sum(tess_tensor** out, const tess_tensor* x, const int64_t* axes,
                                     size_t num_axes, int32_t keepdims);
TESS_API tess_status tess_reduce_mean(tess_tensor** out, const tess_tensor* x, const int64_t* axes,
                                      size_t num_axes, int32_t keepdims);
TESS_API tess_status tess_reduce_max(tess_tensor** out, const tess_tensor* x, const int64_t* axes,
                                     size_t num_axes, int32_t keepdims);
TESS_API tess_status tess_reduce_min(tess_tensor** out, const tess_tensor* x, const int64_t* axes,
                                     size_t num_axes, int32_t keepdims);
/* Normalised exponentials along `axis` (negative counts from the end). */
TESS_API tess_status tess_softmax(tess_tensor** out, const tess_tensor* x, int64_t axis);

/* The full inference record (see tess_explain) of the calling thread's last op
 * (tess_apply or a typed op), including one that failed for want of a fitting
 * signature. FAILED_PRECONDITION before the thread's first op. Local; the record is
 * per thread. */
TESS_API tess_status tess_explain_last(tess_explanation** out);

/* ------------------------------------------------------------------------ */
/* Boxing of local buffers                                                   */
/* ------------------------------------------------------------------------ */

/* Moves one rank's piece of a logical tensor between layouts, without eager
 * tensors: the piece of the tensor of `shape` (ndim dims) and `dtype` held as `src`
 * on `src_placement` (read from `in_local`) becomes the piece held as `dst` on
 * `dst_placement` (written to `out_local`). Any two cpu placements, any nd-sbps; the
 * planner picks the cheapest steps (tess_boxing_plan_create shows them). Pieces are
 * row-major with tess_layout_create's shapes. in_bytes and out_bytes must equal this
 * rank's piece's byte count, 0 on a rank the placement lacks (INVALID_ARGUMENT
 * naming both counts otherwise); a buffer may be NULL when its count is 0. The
 * buffers must not overlap unless src and dst are the same (then in place is a
 * no-op).
 * Errors: INVALID_ARGUMENT for a NULL placement or nd-sbp, a negative dim, more
 * than 8 dims, an unknown dtype, or an nd-sbp that does not fit its placement or
 * the shape; OUT_OF_RANGE when a placement names a rank the world lacks;
 * UNIMPLEMENTED for f16/bf16 and cuda placements (their pieces are device memory;
 * tess_tensor_to_global boxes cuda tensors on the devices); FAILED_PRECONDITION
 * before tess_init.
 * Collective over the ranks of both placements, with the same arguments but the
 * buffers; a rank in neither returns at once (it need not call). Staging is kept
 * per thread (until it exits) and reused, so repeating a boxing allocates nothing
 * after the first.
 * Thread safety: collectives on shared ranks must come in the same order on every
 * rank, so box between overlapping placements from one thread at a time. */
TESS_API tess_status tess_box(void* out_local, size_t out_bytes, const void* in_local,
                              size_t in_bytes, const int64_t* shape, size_t ndim, tess_dtype dtype,
                              const tess_placement* src_placement, const tess_nd_sbp* src,
                              const tess_placement* dst_placement, const tess_nd_sbp* dst);

/* The plan tess_box runs for the same arguments: its steps (one hierarchy axis
 * changed by one collective, or a reshard across placements) with their modelled
 * costs. Plans are cached process-wide and are the same on every rank. Fails like
 * tess_box, but needs no tess_init, and takes two cuda placements too (the plan
 * tess_tensor_to_global runs on the devices; UNIMPLEMENTED only between device
 * types). Local. Immutable: any thread may read a plan. */
typedef struct tess_boxing_plan tess_boxing_plan;

TESS_API tess_status tess_boxing_plan_create(tess_boxing_plan** out, const int64_t* shape,
                                             size_t ndim, tess_dtype dtype,
                                             const tess_placement* src_placement,
                                             const tess_nd_sbp* src,
                                             const tess_placement* dst_placement,
                                             const tess_nd_sbp* dst);
TESS_API void tess_boxing_plan_destroy(tess_boxing_plan* plan);
/* What explain shows for a boxing, e.g.
 *   boxing f32[6,4]: cpu:[0,1] S(0) -> cpu:[0,1] B
 *   1. axis 0: S(0) -> B  all-gather-v over 2 ranks  cost 6.0e-06 s
 *   total: 1 step, cost 6.0e-06 s
 * Valid while `plan` lives. */
TESS_API const char* tess_boxing_plan_string(const tess_boxing_plan* plan);
/* Number of steps (0 when nothing moves). */
TESS_API tess_status tess_boxing_plan_num_steps(size_t* out, const tess_boxing_plan* plan);
/* Step `index`'s line of the text without its number; "" past the last step or
 * for NULL. Valid while `plan` lives. */
TESS_API const char* tess_boxing_plan_step_string(const tess_boxing_plan* plan, size_t index);
/* The modelled time of all steps, in seconds (the cost the planner minimised). */
TESS_API tess_status tess_boxing_plan_cost(double* out, const tess_boxing_plan* plan);

/* ------------------------------------------------------------------------ */
/* Collectives on host buffers                                               */
/* ------------------------------------------------------------------------ */

/* Append only. */
typedef int32_t tess_reduce_op;
#define TESS_REDUCE_SUM 0
#define TESS_REDUCE_MAX 1
#define TESS_REDUCE_MIN 2

/* How tess_allreduce runs. Hosts are the groups of ranks that share memory, or
 * TESSERA_RANKS_PER_HOST consecutive world ranks when that is set. Append only. */
typedef int32_t tess_allreduce_algorithm;
/* One all-reduce over all the ranks. */
#define TESS_ALLREDUCE_FLAT 0
/* Host by host from TESSERA_HIERARCHICAL_ALLREDUCE_BYTES (default 1 MiB) up when
 * some host has several ranks and there are several hosts; flat otherwise. */
#define TESS_ALLREDUCE_AUTO 1
/* Always host by host: intra-host reduce-scatter, inter-host all-reduce of each
 * shard, intra-host all-gather. */
#define TESS_ALLREDUCE_HIERARCHICAL 2

/* buffer[k] := op over the ranks of `placement` (NULL: the world) of buffer[k], for
 * k < count, in place. f32, f64, i32 and i64. The first AUTO or HIERARCHICAL call
 * on a placement's ranks creates its host communicators (collective over them) and
 * keeps them until tess_finalize. Ranks outside the placement return at once (they
 * need not call). INVALID_ARGUMENT for a negative count, NULL buffer with count >
 * 0, an unknown dtype, op or algorithm; OUT_OF_RANGE when the placement names a
 * rank the world lacks; UNIMPLEMENTED for f16/bf16 and cuda placements;
 * DEADLINE_EXCEEDED after the collective timeout (tess_set_collective_timeout).
 * Collective over the placement, with the same count, dtype, op and algorithm on
 * every rank. Thread safety: one thread at a time per placement's ranks. */
TESS_API tess_status tess_allreduce(void* buffer, int64_t count, tess_dtype dtype,
                                    tess_reduce_op op, const tess_placement* placement,
                                    tess_allreduce_algorithm algorithm);

/* All-reduces many buffers of one dtype (say, gradients) with few collectives: they
 * are packed in list order into buckets of at most bucket_bytes, one all-reduce per
 * bucket; a buffer bigger than a bucket is all-reduced in place without a copy. The
 * packing plan and staging are cached in the reducer by (dtype, counts), so a
 * repeated call with the same counts allocates nothing. Mutable: one thread at a
 * time. */
typedef struct tess_bucketed_allreducer tess_bucketed_allreducer;

/* bucket_bytes 0 means the default, 25 MiB. INVALID_ARGUMENT above INT64_MAX.
 * Local; any thread. */
TESS_API tess_status tess_bucketed_allreducer_create(tess_bucketed_allreducer** out,
                                                     size_t bucket_bytes);
TESS_API void tess_bucketed_allreducer_destroy(tess_bucketed_allreducer* reducer);
/* buffers[i] (counts[i] elements of `dtype`) := op over the ranks of `placement`
 * (NULL: the world) of buffers[i], for every i < num_tensors, in place. Buffers must
 * not overlap; a buffer may be NULL when its count is 0. INVALID_ARGUMENT, before
 * any communication, for a negative count, a NULL buffer with elements, an unknown
 * dtype or op; otherwise fails like tess_allreduce (a failure inside a bucket leaves
 * that bucket's buffers and later ones unspecified). Ranks outside the placement
 * return at once. Collective over the placement, with the same counts, dtype and op
 * on every rank. */
TESS_API tess_status tess_bucketed_allreduce(tess_bucketed_allreducer* reducer,
                                             void* const* buffers, const int64_t* counts,
                                             size_t num_tensors, tess_dtype dtype,
                                             tess_reduce_op op, const tess_placement* placement);
/* Counters: calls, plans built (cache misses), and the last call's buckets and how
 * many of those went without a copy. Local; not while the reducer is in a call. */
TESS_API tess_status tess_bucketed_allreducer_stats(int64_t* out_calls, int64_t* out_plans_built,
                                                    int64_t* out_buckets,
                                                    int64_t* out_in_place_buckets,
                                                    const tess_bucketed_allreducer* reducer);

/* Bounds every collective Tessera runs from now on to `seconds` (0: wait forever):
 * the process default for communicators created later (overriding
 * TESSERA_COLLECTIVE_TIMEOUT_S) and the limit of every one already created (those
 * of placements and their axes, boxing's, tess_allreduce's host communicators). A
 * collective still incomplete after `seconds` fails with DEADLINE_EXCEEDED, and the
 * communicator it ran on fails every later call with FAILED_PRECONDITION (MPI cannot
 * cancel the stuck operation; its buffers must outlive it). A timeout costs speed:
 * collectives then run as nonblocking calls polled to the deadline (all-reduce
 * measured 1.3-1.8x slower). INVALID_ARGUMENT for a negative, NaN or infinite value.
 * Local (no communication), but call it with the same value on every rank. Works
 * before tess_init. Must not race with collective calls. */
TESS_API tess_status tess_set_collective_timeout(double seconds);
/* The process default: the last tess_set_collective_timeout value, else
 * TESSERA_COLLECTIVE_TIMEOUT_S, else 0. INVALID_ARGUMENT, naming the variable, when
 * it is not a number >= 0. Thread safety: any thread. */
TESS_API tess_status tess_collective_timeout(double* out);

/* ------------------------------------------------------------------------ */
/* Plan mode: programs, capture, compiled plans                              */
/* ------------------------------------------------------------------------ */

/* A program: a graph of op calls on values, numbered 0, 1, ... in the order they
 * are added: data inputs (fed at every run), variables (eager tensors the program
 * keeps and every run reads in place) and op outputs. Each op call is inferred at
 * once (SBP signature inference), so a bad call fails at the call. Build one
 * explicitly (tess_program_*) or record it from eager calls (tess_capture_*).
 * Every rank builds the same program. Not thread-safe: one thread builds a
 * program; a finished program may be read (compiled, printed) by any thread. */
typedef struct tess_program tess_program;

/* An empty program. Local. */
TESS_API tess_status tess_program_create(tess_program** out);
TESS_API void tess_program_destroy(tess_program* program);
/* A data input named `name` of `shape` (ndim dims), `dtype` and `placement`, held as
 * `nd_sbp` (NULL: split along axis 0 on every placement axis, as a data-parallel
 * batch is; broadcast for a 0-d input). *out = its value id. INVALID_ARGUMENT for an
 * empty or repeated name, a bad shape or dtype, or an nd-sbp that does not fit. */
TESS_API tess_status tess_program_add_input(int64_t* out, tess_program* program, const char* name,
                                            const int64_t* shape, size_t ndim, tess_dtype dtype,
                                            const tess_placement* placement,
                                            const tess_nd_sbp* nd_sbp);
/* A variable (a weight) named `name`: the program keeps `value` alive and every run
 * reads its storage. *out = its value id. INVALID_ARGUMENT for an empty or repeated
 * name; FAILED_PRECONDITION for a placeholder. */
TESS_API tess_status tess_program_add_variable(int64_t* out, tess_program* program,
                                               const char* name, const tess_tensor* value);
/* Appends the op of `call` (its attributes and constraints; tess_op_call_add_input
 * must not have been used) applied to the values `value_ids` (num_values of them).
 * Its outputs are the values *out_first_output .. *out_first_output +
 * *out_num_outputs - 1. NOT_FOUND never (the call names a known op);
 * INVALID_ARGUMENT for an unknown value id (naming it and the number of values), a
 * call with input metas, and every inference error, prefixed with the op's index. */
TESS_API tess_status tess_program_add_op(int64_t* out_first_output, size_t* out_num_outputs,
                                         tess_program* program, const tess_op_call* call,
                                         const int64_t* value_ids, size_t num_values);
/* Makes value `value_id` the program's next output. INVALID_ARGUMENT for an unknown
 * id or one already an output. */
TESS_API tess_status tess_program_mark_output(tess_program* program, int64_t value_id);
/* Counts of values, ops, data inputs and outputs. */
TESS_API tess_status tess_program_sizes(int64_t* out_values, int64_t* out_ops, int64_t* out_inputs,
                                        int64_t* out_outputs, const tess_program* program);
/* The graph, one line per value and op:
 *   %0 = input "x" [8,16] f32 cpu:[0,1] S(0)
 *   %3 = matmul(%0, %1) {} -> [8,32] f32 cpu:[0,1] S(0)
 * then "outputs: %5, %7". Valid until `program` changes or is destroyed. "" for
 * NULL. */
TESS_API const char* tess_program_string(const tess_program* program);

/* Capture: records eager ops into a program instead of listing them.
 *   tess_capture_begin();
 *   tess_capture_placeholder(&x, "x", shape, 2, TESS_DTYPE_F32, placement, NULL);
 *   tess_matmul(&h, x, w, 0, 0);      recorded: h is a placeholder; w, a real
 *   tess_relu(&y, h);                 tensor, becomes a variable
 *   tess_capture_end(&program, &y, 1);
 * While a capture is active on a thread, every op there (tess_apply and the typed
 * ops) with a placeholder input is recorded and returns placeholders carrying the
 * inferred metadata. A real tensor used with a placeholder becomes a variable ("v0",
 * "v1", ... by first use; one tensor used twice is one variable). Ops on real
 * tensors alone run eagerly as usual. tess_tensor_to_global of a placeholder to a
 * new nd-sbp on its placement records a boxing step (UNIMPLEMENTED for another
 * placement). A placeholder has no data: to_host, copy_local and the DLPack export
 * fail with FAILED_PRECONDITION. One capture per thread; placeholders work only in
 * their own capture, on its thread (FAILED_PRECONDITION otherwise). Local: every
 * rank captures the same calls. */
/* FAILED_PRECONDITION when a capture is already active on this thread. */
TESS_API tess_status tess_capture_begin(void);
/* *out = 1 while a capture is active on this thread, else 0. */
TESS_API tess_status tess_capture_active(int32_t* out);
/* A data input of the program being captured (tess_program_add_input's arguments
 * and errors), as a placeholder tensor. FAILED_PRECONDITION without a capture. */
TESS_API tess_status tess_capture_placeholder(tess_tensor** out, const char* name,
                                              const int64_t* shape, size_t ndim, tess_dtype dtype,
                                              const tess_placement* placement,
                                              const tess_nd_sbp* nd_sbp);
/* Ends the capture and returns its program, whose outputs are `tensors`
 * (num_tensors placeholders of this capture, in order). The capture ends whether
 * or not this succeeds. FAILED_PRECONDITION without a capture; INVALID_ARGUMENT for
 * no outputs, a NULL, a real tensor, a placeholder of another capture (naming its
 * index) or one listed twice. */
TESS_API tess_status tess_capture_end(tess_program** out, const tess_tensor* const* tensors,
                                      size_t num_tensors);
/* Ends the capture, if any, dropping what it recorded. */
TESS_API void tess_capture_abort(void);

/* A compiled plan: the program's steps for this rank (kernels and explicit boxing
 * steps) and its register memory, packed with reuse. Immutable: any thread may read
 * it; any number of instances may be made from it. */
typedef struct tess_plan tess_plan;

/* Compiles `program` for this rank. input_register_num (0 means 1; at most 8) is
 * the number of copies ("slots") of each data input's register: with 2 or more,
 * one thread can push the next inputs (tess_plan_push) while another runs the
 * plan on earlier ones (tess_plan_run_pushed). The plan holds its own copy of the
 * program. FAILED_PRECONDITION before tess_init; INVALID_ARGUMENT for a program
 * without outputs or an input_register_num outside [0, 8]; UNIMPLEMENTED for a cuda
 * placement in a build without CUDA, or an op without a kernel for its device
 * (naming it); UNAVAILABLE for a cuda placement on a rank with no CUDA device.
 * Values on a cuda placement live in that rank's device memory and run CUDA
 * kernels; their boxing steps are staged through host registers (not NCCL yet).
 * Local. */
TESS_API tess_status tess_plan_compile(tess_plan** out, const tess_program* program,
                                       int32_t input_register_num);
TESS_API void tess_plan_destroy(tess_plan* plan);
/* The program, the steps ("3: box %1 S(1) -> B into r4", "4: kernel matmul r0, r4
 * -> r5") and the memory table. Valid while `plan` lives; "" for NULL. */
TESS_API const char* tess_plan_string(const tess_plan* plan);

/* A runnable plan: its register memory is allocated once, here; every run reuses
 * it. After the first run, a run allocates nothing (tess_plan_last_run_allocations
 * shows it). Mutable: one thread runs an instance, except that with
 * input_register_num >= 2 one pusher thread (tess_plan_push) and one runner thread
 * (tess_plan_run_pushed and the output functions) may work at once. */
typedef struct tess_plan_instance tess_plan_instance;

/* RESOURCE_EXHAUSTED when the register memory cannot be allocated. Local. */
TESS_API tess_status tess_plan_instantiate(tess_plan_instance** out, const tess_plan* plan);
TESS_API void tess_plan_instance_destroy(tess_plan_instance* instance);
/* Runs the plan on `inputs` (num_inputs eager tensors, in the program's input
 * order; each must have its input's shape, dtype and placement, whose device type
 * may differ (a cpu tensor feeds a cuda input on the same ranks); a different
 * nd-sbp is boxed in). The outputs stay in the instance until the next run.
 * INVALID_ARGUMENT naming the input for a wrong count, a NULL or a mismatch.
 * Collective over the program's placements, like the ops it runs. */
TESS_API tess_status tess_plan_run(tess_plan_instance* instance, const tess_tensor* const* inputs,
                                   size_t num_inputs);
/* Pipelining. Copies one input set (tess_plan_run's checks; the tensors are not read
 * after this returns) into the next free input slot, waiting up to timeout_seconds
 * (negative: forever; 0: only try) while every slot is full. An input whose nd-sbp
 * differs from the program's is boxed, which is collective: such a push first waits
 * until every set pushed before it has run, so the collectives keep one order on
 * every rank (it overlaps nothing; push tensors already in the program's nd-sbp to
 * overlap). DEADLINE_EXCEEDED when the wait times out; CANCELLED after
 * tess_plan_close; INVALID_ARGUMENT as tess_plan_run, or for a NaN timeout;
 * nothing is pushed on error. */
TESS_API tess_status tess_plan_push(tess_plan_instance* instance, const tess_tensor* const* inputs,
                                    size_t num_inputs, double timeout_seconds);
/* Waits up to timeout_seconds (negative: forever) for the oldest pushed set, runs
 * the plan on it and frees its slot; the outputs then read as after tess_plan_run
 * and stay valid until the next run (input_register_num >= 2). DEADLINE_EXCEEDED
 * when nothing was pushed in time; CANCELLED after tess_plan_close. tess_plan_run
 * fails with FAILED_PRECONDITION while pushed sets wait. */
TESS_API tess_status tess_plan_run_pushed(tess_plan_instance* instance, double timeout_seconds);
/* Wakes every waiting push and run_pushed with CANCELLED and makes later ones fail
 * the same way (to stop a pipeline, say, from the runner after an error). Any
 * thread; idempotent. tess_plan_instance_destroy closes too and waits for calls in
 * progress. */
TESS_API tess_status tess_plan_close(tess_plan_instance* instance);
/* The same with this rank's local pieces: locals[i] holds input i's piece in its
 * declared nd-sbp (host memory, also for a cuda input; row-major, local_bytes[i]
 * bytes, which must equal the piece's size: 0, and NULL allowed, on a rank the
 * placement lacks). */
TESS_API tess_status tess_plan_run_local(tess_plan_instance* instance, const void* const* locals,
                                         const size_t* local_bytes, size_t num_inputs);
/* The number of the program's outputs. */
TESS_API tess_status tess_plan_num_outputs(size_t* out, const tess_plan_instance* instance);
/* Output `index` of the last run as a new eager tensor (a copy; its metadata is the
 * program's). OUT_OF_RANGE for a bad index; FAILED_PRECONDITION before the first
 * run. Collective over the output's placement, as tess_tensor_from_local is. */
TESS_API tess_status tess_plan_output(tess_tensor** out, const tess_plan_instance* instance,
                                      size_t index);
/* Copies this rank's piece of output `index` (row-major) to `out` (host memory),
 * without allocating; from a cuda placement it waits for the device first and
 * reports errors of its queued kernels. INVALID_ARGUMENT when out_bytes is too
 * small (naming both sizes); FAILED_PRECONDITION before the first run or on a rank
 * the output's placement lacks. Local. */
TESS_API tess_status tess_plan_output_local(void* out, size_t out_bytes,
                                            const tess_plan_instance* instance, size_t index);
/* The element count of this rank's piece of output `index` (0 on a rank outside its
 * placement). */
TESS_API tess_status tess_plan_output_local_num_elements(int64_t* out,
                                                         const tess_plan_instance* instance,
                                                         size_t index);
/* Output `index`'s dtype, and the rank and dims of this rank's piece of it (what
 * tess_plan_output_local writes, row-major): enough to shape that buffer without
 * the collective tess_plan_output. Valid before the first run. OUT_OF_RANGE for a
 * bad index or dim; FAILED_PRECONDITION for the piece's rank and dims on a rank the
 * output's placement lacks. Local. */
TESS_API tess_status tess_plan_output_dtype(tess_dtype* out, const tess_plan_instance* instance,
                                            size_t index);
TESS_API tess_status tess_plan_output_local_ndim(size_t* out, const tess_plan_instance* instance,
                                                 size_t index);
TESS_API tess_status tess_plan_output_local_dim(int64_t* out, const tess_plan_instance* instance,
                                                size_t index, size_t dim);
/* Registers, kernel-and-boxing steps, boxing steps among them, and runs so far. */
TESS_API tess_status tess_plan_stats(int64_t* out_registers, int64_t* out_steps,
                                     int64_t* out_boxing_steps, int64_t* out_runs,
                                     const tess_plan_instance* instance);
/* The last run's calls to the host caching allocator and, for a plan on a cuda
 * placement, to the device's caching allocator (0 once warm), and its heap
 * allocations on the calling thread (-1: not counted; libtessera.so does not
 * replace operator new, tests linking Tessera statically do). */
TESS_API tess_status tess_plan_last_run_allocations(int64_t* out_allocator_calls,
                                                    int64_t* out_heap_allocations,
                                                    const tess_plan_instance* instance);
/* The memory cases ("cpu", one per CUDA device) the plan's registers live in. */
TESS_API tess_status tess_plan_num_mem_cases(size_t* out, const tess_plan_instance* instance);
/* Memory case `index`: its packed block's bytes, the lower bound (the most bytes
 * live at one step: no packing does better), and the bytes without reuse.
 * OUT_OF_RANGE for a bad index. */
TESS_API tess_status tess_plan_mem_case_bytes(int64_t* out_block_bytes, int64_t* out_lower_bound,
                                              int64_t* out_no_reuse_bytes,
                                              const tess_plan_instance* instance, size_t index);
/* Memory case `index`'s name ("cpu", "cuda:0"); "" for a bad index or NULL. Valid
 * while `instance` lives. */
TESS_API const char* tess_plan_mem_case_name(const tess_plan_instance* instance, size_t index);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_TESSERA_H_ */
