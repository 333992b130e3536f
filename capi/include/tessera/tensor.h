/*
 * Tessera C API. Eager (global) tensors: creation, metadata, data out, to_global, DLPack.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_TENSOR_H_
#define TESSERA_TENSOR_H_

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

/* A global tensor: a logical shape, dtype, placement and nd-sbp, plus this rank's
 * local piece when the placement holds this rank (ranks outside it hold the
 * metadata only). Immutable: ops and casts make new tensors. Any thread may read
 * one tensor at once (every const function).
 *
 * SPMD. Creation, tess_tensor_to_global, tess_tensor_to_host and every op are
 * collective: every rank of the world makes the same calls, in the same order,
 * with the same arguments (except the local data of tess_tensor_from_local and
 * tess_tensor_from_dlpack). A call that fails on one rank only (say, a too-small
 * buffer) leaves the others waiting, as in MPI; the exceptions are the errors of
 * from_local / from_dlpack that depend on one rank's piece, which every rank of the
 * placement agrees on and returns alike. Check mode (tess_runtime_init_options.check_mode,
 * TESSERA_CHECK; docs/reliability.md) turns calls that differ across ranks into
 * FAILED_PRECONDITION on every rank involved.
 *
 * Thread safety (<tessera/common.h>). Collective calls: any thread, also several
 * at once on one tensor or placement; calls communicating over overlapping ranks
 * must reach every rank in the same order, which the program ensures (Tessera
 * serialises them per communicator but does not order them). Local calls
 * (metadata, copy_local, the DLPack export, destroy, tess_explanation_last): any
 * thread, on any tensor not being destroyed.
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
 * for B (the copy at coordinate 0 of each broadcast axis wins; in check mode the
 * ranks of a B axis must pass equal data, else FAILED_PRECONDITION on all of them).
 * `logical_shape` (ndim dims) states the logical shape, checked against each rank's
 * piece, the placement agreeing the outcome with one small all-reduce: when one rank's
 * piece is wrong (or NULL with elements), every rank of the placement returns the
 * lowest such rank's INVALID_ARGUMENT. NULL infers it from every rank's local shape,
 * a collective over the world that must find exactly the balanced split's shapes.
 * Ranks outside the placement pass any local shape (and NULL data). Collective. */
TESS_API tess_status tess_tensor_from_local(tess_tensor** out, const void* local,
                                            const int64_t* local_shape, size_t ndim,
                                            tess_dtype dtype, const tess_placement* placement,
                                            const tess_nd_sbp* nd_sbp,
                                            const int64_t* logical_shape);
/* Every element `value` converted to `dtype`; INVALID_ARGUMENT when the dtype
 * cannot hold it exactly (0.5 or NaN for an integer dtype; anything but 0 and 1 for
 * bool). Collective. */
TESS_API tess_status tess_tensor_full(tess_tensor** out, const int64_t* shape, size_t ndim,
                                      tess_dtype dtype, double value,
                                      const tess_placement* placement, const tess_nd_sbp* nd_sbp);
/* The 1-d tensor start, start + step, ... up to but excluding stop (from above
 * when step < 0). INVALID_ARGUMENT for step 0, a non-integral start or step
 * with an integer dtype, or dtype bool. Collective. */
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
/* The logical shape, borrowed: *out_dims points at *out_ndim dims (not NULL, also
 * for 0 dims), valid while `tensor` lives. */
TESS_API tess_status tess_tensor_shape(const int64_t** out_dims, size_t* out_ndim,
                                       const tess_tensor* tensor);
TESS_API tess_status tess_tensor_num_elements(int64_t* out, const tess_tensor* tensor);
TESS_API tess_status tess_tensor_dtype(tess_dtype* out, const tess_tensor* tensor);
/* New handles, owned by the caller. */
TESS_API tess_status tess_tensor_placement(tess_placement** out, const tess_tensor* tensor);
TESS_API tess_status tess_tensor_nd_sbp(tess_nd_sbp** out, const tess_tensor* tensor);
/* *out = 1 if this rank holds a local piece (the placement holds it), else 0. */
TESS_API tess_status tess_tensor_has_local(int32_t* out, const tess_tensor* tensor);
/* The local piece's shape and size. FAILED_PRECONDITION on a rank outside the
 * placement; a piece past the end of an uneven split has 0 elements. */
TESS_API tess_status tess_tensor_local_shape(const int64_t** out_dims, size_t* out_ndim,
                                             const tess_tensor* tensor);
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
/* Waits until the work queued so far on the device that holds this rank's piece of
 * `tensor` has finished, and reports an error any of it hit: ops on cuda placements
 * return once queued (docs/gpu.md, "Asynchronous eager"), so a failed kernel or a data
 * error (an index out of range, with the CPU kernel's message) surfaces here or in the
 * next to_host/copy_local. OK at once on cpu placements and on ranks outside the
 * placement. INVALID_ARGUMENT for a NULL tensor. Local. Thread safety: any thread. */
TESS_API tess_status tess_tensor_synchronize(const tess_tensor* tensor);
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
 * build. These depend on one rank's tensor, so the ranks that exchange next (the
 * world for a NULL logical_shape, else the placement) agree on them: every one returns
 * the lowest failing rank's error. Collective. */
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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_TENSOR_H_ */
