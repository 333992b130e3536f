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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_TESSERA_H_ */
