/*
 * Tessera C API. Boxing of local buffers: tess_boxing_run and boxing plans.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_BOXING_H_
#define TESSERA_BOXING_H_

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
 * before tess_runtime_init.
 * Collective over the ranks of both placements, with the same arguments but the
 * buffers; a rank in neither returns at once (it need not call). Staging is kept
 * per thread (until it exits) and reused, so repeating a boxing allocates nothing
 * after the first.
 * Thread safety (<tessera/common.h>): any thread, several at once; boxings between
 * overlapping placements from several threads must reach every rank in the same
 * order, which the program ensures (Tessera serialises them, it does not order
 * them). */
TESS_API tess_status tess_boxing_run(void* out_local, size_t out_bytes, const void* in_local,
                                     size_t in_bytes, const int64_t* shape, size_t ndim,
                                     tess_dtype dtype, const tess_placement* src_placement,
                                     const tess_nd_sbp* src, const tess_placement* dst_placement,
                                     const tess_nd_sbp* dst);

/* The plan tess_boxing_run runs for the same arguments: its steps (one hierarchy axis
 * changed by one collective, or a reshard across placements) with their modelled
 * costs. Plans are cached process-wide and are the same on every rank. Fails like
 * tess_boxing_run, but needs no tess_runtime_init, and takes two cuda placements too (the plan
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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_BOXING_H_ */
