/*
 * Tessera C API: optimizers over parameters (tensors that require gradients).
 *
 * An optimizer holds a list of parameters and their states. tess_optimizer_step
 * updates every parameter that has a gradient, IN PLACE: the parameter handles keep
 * their identity and see the new values (parameters are the one kind of tensor whose
 * data changes; a tensor derived from a parameter before a step keeps the old
 * values). SGD (momentum, dampening, Nesterov, weight decay), Adam and AdamW follow
 * PyTorch's update rules (torch.optim.SGD / Adam / AdamW).
 *
 * Each parameter's gradient is first brought to the parameter's layout by the
 * update op's signature inference (for a broadcast weight trained on batch-split
 * data, the partial-sum gradient is all-reduced). With `fused` set, parameters of one
 * dtype and layout are packed in flat buckets (Bagua's manner): one update kernel per
 * bucket, and each bucket's gradient all-reduce starts during backward as soon as its
 * last gradient is ready.
 *
 * SPMD: create, step and zero_grad are collective over the parameters' placements.
 * One thread at a time per optimizer.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_OPTIM_H_
#define TESSERA_OPTIM_H_

#include <stddef.h>
#include <stdint.h>

#include "tessera/common.h"
#include "tessera/status.h"
#include "tessera/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tess_optimizer tess_optimizer;

/* tess_optimizer_options.algorithm. */
#define TESS_OPTIMIZER_SGD 0
#define TESS_OPTIMIZER_ADAM 1
#define TESS_OPTIMIZER_ADAMW 2

/* Options of tess_optimizer_create. Start from TESS_OPTIMIZER_OPTIONS_INIT
 * (docs/c-api.md, "ABI"). Append only. */
typedef struct tess_optimizer_options {
  size_t struct_size;  /* sizeof(tess_optimizer_options) */
  int32_t algorithm;   /* TESS_OPTIMIZER_SGD (default), _ADAM or _ADAMW */
  double lr;           /* learning rate, >= 0 and finite (default 0.01) */
  double weight_decay; /* >= 0 (default 0; AdamW decouples it) */
  /* SGD. */
  double momentum;  /* >= 0 (default 0) */
  double dampening; /* default 0 */
  int32_t nesterov; /* nonzero: Nesterov momentum (needs momentum > 0, dampening 0) */
  /* Adam and AdamW. */
  double beta1; /* in [0, 1) (default 0.9) */
  double beta2; /* in [0, 1) (default 0.999) */
  double eps;   /* >= 0 and finite (default 1e-8) */
  /* Nonzero: flat buckets, one update kernel per bucket, gradient all-reduce overlapped
   * with backward (default 0: one update op per parameter). */
  int32_t fused;
  int64_t bucket_bytes; /* fused: the largest bucket, > 0 (default 25 MiB) */
  /* fused: nonzero keeps optimizer states split across the data-parallel ranks
   * (ZeRO-1: each bucket's gradient reduce-scatter starts during backward, like the
   * all-reduce; the step all-gathers the parameters). */
  int32_t zero1;
  /* fused: nonzero starts a thread that progresses the all-reduces in flight between
   * gradient hooks (Open MPI advances non-blocking collectives only inside MPI calls);
   * needs MPI_THREAD_MULTIPLE. */
  int32_t progress_thread;
} tess_optimizer_options;

#define TESS_OPTIMIZER_OPTIONS_INIT \
  { sizeof(tess_optimizer_options), 0, 0.01, 0.0, 0.0, 0.0, 0, 0.9, 0.999, 1e-8, 0, 25 << 20, 0, 0 }

/* An optimizer over params[0..num_params): leaves that require gradients, each listed
 * once. With `fused`, the parameters' data moves into the buckets (the handles stay
 * valid and keep their values; tensors taken from a parameter before create keep the
 * old storage). `options` may be NULL (SGD, lr 0.01). INVALID_ARGUMENT naming the
 * option and value (lr, momentum, dampening, weight_decay or eps negative or not
 * finite, a beta outside [0, 1), nesterov without momentum > 0 and dampening 0, an
 * unknown algorithm, bucket_bytes < 1, zero1 or progress_thread without fused), or the
 * parameter's index (NULL, not a leaf requiring a gradient, not floating, listed
 * twice). UNIMPLEMENTED for fused on a cuda placement. Collective. */
TESS_API tess_status tess_optimizer_create(tess_optimizer** out, tess_tensor* const* params,
                                           size_t num_params,
                                           const tess_optimizer_options* options);
TESS_API void tess_optimizer_destroy(tess_optimizer* optimizer);

/* Updates every parameter that has a gradient (tess_tensor_grad); parameters without
 * one are skipped, as in PyTorch. Collective. */
TESS_API tess_status tess_optimizer_step(tess_optimizer* optimizer);
/* Plan mode (docs/training.md, "Plan mode"): while a capture is active
 * (tess_capture_begin) and after a captured tess_autograd_backward, records one step
 * of every parameter with a gradient instead of running it: the update ops, and
 * tess_capture_assign of the new parameters and optimizer state, so each run of the
 * compiled plan is one training step, in place. The gradients are dropped afterwards.
 * Plan runs do not count in the stats' steps. FAILED_PRECONDITION without a capture,
 * or for SGD with momentum and dampening != 0 before any eager step; UNIMPLEMENTED for
 * fused. Local (records; runs are collective). */
TESS_API tess_status tess_optimizer_capture_step(tess_optimizer* optimizer);
/* Drops every parameter's gradient (tess_tensor_zero_grad on each). */
TESS_API tess_status tess_optimizer_zero_grad(tess_optimizer* optimizer);
/* Changes the learning rate for the next steps (a schedule); INVALID_ARGUMENT for a
 * negative or non-finite lr. */
TESS_API tess_status tess_optimizer_set_lr(tess_optimizer* optimizer, double lr);

/* What an optimizer has done. Start from TESS_OPTIMIZER_STATS_INIT. Append only. */
typedef struct tess_optimizer_stats {
  size_t struct_size; /* sizeof(tess_optimizer_stats) */
  int64_t steps;      /* tess_optimizer_step calls */
  int64_t num_params;
  int64_t num_buckets; /* fused: flat buckets; 0 otherwise */
  /* fused: gradient all-reduces started during backward, and seconds from their start
   * to completion, summed, of which the steps spent waiting: 1 - wait / in_flight is
   * the share of all-reduce time that backward hid. */
  int64_t allreduces_in_backward;
  double allreduce_seconds;
  double allreduce_wait_seconds;
  int64_t state_bytes; /* optimizer state this rank holds in the buckets */
} tess_optimizer_stats;

#define TESS_OPTIMIZER_STATS_INIT \
  { sizeof(tess_optimizer_stats), 0, 0, 0, 0, 0.0, 0.0, 0 }

TESS_API tess_status tess_optimizer_get_stats(tess_optimizer_stats* out,
                                              const tess_optimizer* optimizer);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_OPTIM_H_ */
