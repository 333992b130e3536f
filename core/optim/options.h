// The options of an optimizer (optimizer.h): a plain struct, so a C API can carry it in
// a sized struct field by field.
#ifndef TESSERA_CORE_OPTIM_OPTIONS_H_
#define TESSERA_CORE_OPTIM_OPTIONS_H_

#include <cstdint>

#include "core/common/status.h"
#include "core/op/attr.h"

namespace tessera {
namespace optim {

// Values may appear in a C API: append only.
enum class Algorithm : int {
  kSgd = 0,    // torch.optim.SGD: lr, momentum, dampening, nesterov, weight_decay
  kAdam = 1,   // torch.optim.Adam: lr, beta1, beta2, eps, weight_decay (L2, in the gradient)
  kAdamW = 2,  // torch.optim.AdamW: the same, weight decay decoupled (p *= 1 - lr * wd)
};

// "sgd", "adam", "adamw"; "unknown" otherwise.
const char* AlgorithmName(Algorithm algorithm);

struct OptimizerOptions {
  Algorithm algorithm = Algorithm::kSgd;
  double lr = 0.01;
  // SGD only.
  double momentum = 0;
  double dampening = 0;
  bool nesterov = false;
  // Adam and AdamW only (PyTorch's defaults).
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  // Every algorithm; PyTorch's AdamW default is 0.01, here it is 0 for all three.
  double weight_decay = 0;
  // Fused mode (optimizer.h): parameters, gradients and state packed into flat buckets,
  // one update per bucket, the data-parallel all-reduce started from gradient hooks.
  bool fused = false;
  // Fused mode: the most logical bytes of parameters one bucket holds (a larger
  // parameter gets a bucket of its own). PyTorch DDP's default, 25 MiB.
  int64_t bucket_bytes = int64_t{25} << 20;
  // Fused mode only: ZeRO stage 1. In a bucket whose gradients are reduced over
  // data-parallel axes, each rank of those axes keeps and updates only its slice of the
  // bucket's state (equal slices of the padded flat bucket): the gradients are
  // reduce-scattered instead of all-reduced (started from the hooks, like the
  // all-reduce), the slice updated, and the parameters all-gathered in Step. Optimizer
  // state per rank shrinks by the data-parallel degree.
  bool zero1 = false;
  // Fused mode only: a helper thread calls MPI_Test on the all-reduces in flight about
  // every 50 us, so they progress between gradient hooks (Open MPI advances a
  // non-blocking collective only inside MPI calls). Costs a polling thread while a
  // reduction is in flight; needs MPI_THREAD_MULTIPLE (Create fails otherwise).
  bool progress_thread = false;
};

// OK, or INVALID_ARGUMENT naming the first bad option and its value: an unknown
// algorithm, lr / momentum / dampening / weight_decay / eps negative or not finite,
// beta1 or beta2 outside [0, 1), nesterov without momentum > 0 and dampening 0,
// bucket_bytes < 1, zero1 or progress_thread without fused.
Status ValidateOptions(const OptimizerOptions& options);

// The update op ("sgd_update" or "adam_update") and its attributes for step number
// `step` (counting from 1) of a parameter.
const char* UpdateOpName(Algorithm algorithm);
op::AttrMap UpdateAttrs(const OptimizerOptions& options, int64_t step);
// Adam / AdamW's attributes of adam_update_at_step, which reads the step from a tensor.
op::AttrMap AdamAttrsWithoutStep(const OptimizerOptions& options);
// The state tensors the update op carries besides param and grad: 1 for SGD (the
// momentum buffer), 2 for Adam / AdamW (exp_avg, exp_avg_sq).
int NumStates(Algorithm algorithm);

}  // namespace optim
}  // namespace tessera

#endif  // TESSERA_CORE_OPTIM_OPTIONS_H_
