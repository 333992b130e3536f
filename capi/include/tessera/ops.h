/*
 * Tessera C API. Ops on eager tensors: tess_apply, the typed ops, tess_explain_last.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_OPS_H_
#define TESSERA_OPS_H_

#include <stddef.h>
#include <stdint.h>

#include "tessera/common.h"
#include "tessera/infer.h"
#include "tessera/status.h"
#include "tessera/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_OPS_H_ */
