/*
 * Tessera C API: reverse-mode autograd on global tensors.
 *
 * A floating tensor may require a gradient (tess_tensor_set_requires_grad): it is
 * then a leaf, a parameter. Every op (typed or tess_op_call_apply) run while grad
 * mode is on with an input that requires a gradient is recorded on a tape, and its
 * floating outputs require gradients in turn. tess_autograd_backward runs each
 * recorded op's declared gradient, latest first, and adds the result into every
 * leaf's gradient (tess_tensor_grad); call tess_tensor_zero_grad between steps.
 *
 * Gradients are global tensors like any other and come out with the SBP that
 * inference chose for the backward ops: a broadcast weight used by batch-split data
 * gets a partial-sum gradient, reduced only when something asks for another layout
 * (tess_tensor_to_host, tess_tensor_to_global, an optimizer). The gradient ops run
 * with grad mode off: no gradients of gradients.
 *
 * SPMD: backward is collective over the placements of the recorded ops; every rank
 * calls it alike. Threads: a tape belongs to the thread that records it; grad mode
 * is per thread. A handle whose requires_grad or gradient is being changed must not
 * be used by another thread at the same time.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_AUTOGRAD_H_
#define TESSERA_AUTOGRAD_H_

#include <stddef.h>
#include <stdint.h>

#include "tessera/common.h"
#include "tessera/status.h"
#include "tessera/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Makes `tensor` a leaf that requires a gradient (nonzero) or not (0). INVALID_ARGUMENT
 * for a non-floating tensor (requires_grad nonzero), or for the output of a recorded op
 * (it is part of a graph: tess_tensor_detach it first). Not collective. */
TESS_API tess_status tess_tensor_set_requires_grad(tess_tensor* tensor, int32_t requires_grad);
/* *out = 1 when gradients flow into `tensor` (a leaf that requires one, or the output
 * of a recorded op), else 0. */
TESS_API tess_status tess_tensor_requires_grad(int32_t* out, const tess_tensor* tensor);
/* *out = 1 when `tensor` is a leaf (not the output of a recorded op), else 0. */
TESS_API tess_status tess_tensor_is_leaf(int32_t* out, const tess_tensor* tensor);
/* *out = a new handle to the accumulated gradient of the leaf `tensor`, or NULL when
 * no backward has reached it since it was made or zeroed. Same shape, dtype and
 * placement as the tensor; its SBP is whatever backward produced. */
TESS_API tess_status tess_tensor_grad(tess_tensor** out, const tess_tensor* tensor);
/* Drops the accumulated gradient of the leaf `tensor` (the next backward starts from
 * zero). A no-op for a tensor without one. */
TESS_API tess_status tess_tensor_zero_grad(tess_tensor* tensor);
/* *out = a new handle to the same data that requires no gradient and records nothing:
 * gradients stop there. */
TESS_API tess_status tess_tensor_detach(tess_tensor** out, const tess_tensor* tensor);

/* Options of tess_autograd_backward. Start from TESS_BACKWARD_OPTIONS_INIT
 * (docs/c-api.md, "ABI"). Append only. */
typedef struct tess_backward_options {
  size_t struct_size;
  /* Nonzero: keep the tape's saved tensors so the same graph can be backpropagated
   * again (default 0: they are freed, and a second backward is FAILED_PRECONDITION). */
  int32_t retain_graph;
} tess_backward_options;

#define TESS_BACKWARD_OPTIONS_INIT \
  { sizeof(tess_backward_options), 0 }

/* Backpropagates from roots[0..num_roots): each root's gradient is grads[i], or, when
 * `grads` is NULL or grads[i] is NULL, ones (for a one-element root only; a larger root
 * needs its gradient, INVALID_ARGUMENT otherwise). Adds into the gradient of every leaf
 * reached. `options` may be NULL (defaults). INVALID_ARGUMENT for no roots, a root that
 * requires no gradient, or a gradient whose shape or dtype differs from its root's;
 * UNIMPLEMENTED for an op on the path without a declared gradient (the message names
 * it); FAILED_PRECONDITION for a graph already backpropagated without retain_graph.
 * Collective over the recorded ops' placements. */
TESS_API tess_status tess_autograd_backward(const tess_tensor* const* roots, size_t num_roots,
                                            const tess_tensor* const* grads,
                                            const tess_backward_options* options);

/* Turns grad mode on (nonzero) or off for the calling thread; *previous (if not NULL)
 * gets the mode before the call, so a no-grad scope is set(0, &prev) ... set(prev, NULL).
 * With grad mode off nothing is recorded (evaluation, optimizer updates). On by
 * default in every thread. */
TESS_API tess_status tess_autograd_set_grad_enabled(int32_t enabled, int32_t* previous);
/* *out = the calling thread's grad mode (1 on, 0 off). */
TESS_API tess_status tess_autograd_is_grad_enabled(int32_t* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_AUTOGRAD_H_ */
