// The element formulas of the optimizer update ops (core/op/ops/optim_ops.cc, PyTorch's
// SGD / Adam / AdamW), shared by the CPU and CUDA kernels, and the reading of a call.
//
// Aliasing: each formula reads the element's old values into locals before it writes,
// so a kernel that applies it once per index may be given outputs that alias its inputs
// (new_param == param, ...). core/optim's fused mode relies on that to update flat
// buckets in place.
#ifndef TESSERA_KERNELS_COMMON_OPTIM_MATH_H_
#define TESSERA_KERNELS_COMMON_OPTIM_MATH_H_

#include <cmath>
#include <string>

#include "core/common/exact_minmax.h"  // TESS_HOST_DEVICE
#include "core/common/status.h"
#include "core/kernel/kernel.h"

namespace tessera {
namespace kernels {

// sgd_update's attributes, with the per-step constants folded.
template <typename T>
struct SgdCoef {
  T lr, momentum, one_minus_dampening, weight_decay;
  bool nesterov, first_step;

  template <typename U>
  SgdCoef<U> As() const {
    return {U(lr), U(momentum), U(one_minus_dampening), U(weight_decay), nesterov, first_step};
  }
};

// adam_update's attributes, with the bias corrections folded into step_size and
// sqrt_bias2 (PyTorch's: step_size = lr / (1 - beta1^step), denominator sqrt(v) /
// sqrt(1 - beta2^step) + eps) and AdamW's decay into decay = 1 - lr * weight_decay.
template <typename T>
struct AdamCoef {
  T beta1, one_minus_beta1, beta2, one_minus_beta2, eps, weight_decay, decay, step_size, sqrt_bias2;
  bool decoupled;

  template <typename U>
  AdamCoef<U> As() const {
    return {U(beta1),        U(one_minus_beta1), U(beta2),     U(one_minus_beta2), U(eps),
            U(weight_decay), U(decay),           U(step_size), U(sqrt_bias2),      decoupled};
  }
};

// Both compute in T (the coefficients' type) and store S: for f16/bf16 tensors T is
// float and each output rounds once on store.
template <typename T, typename S>
TESS_HOST_DEVICE inline void SgdElement(const SgdCoef<T>& c, S param_s, S grad, S buf_s,
                                        S* new_param, S* new_buf) {
  const T param = param_s;
  T buf = buf_s;
  T g = T(grad) + c.weight_decay * param;
  if (c.momentum != T(0)) {
    buf = c.first_step ? g : c.momentum * buf + c.one_minus_dampening * g;
    g = c.nesterov ? g + c.momentum * buf : buf;
  }
  *new_buf = buf;
  *new_param = param - c.lr * g;
}

template <typename T, typename S>
TESS_HOST_DEVICE inline void AdamElement(const AdamCoef<T>& c, S param_s, S grad, S m_s, S v_s,
                                         S* new_param, S* new_m, S* new_v) {
  T param = param_s, m = m_s, v = v_s;
  T g = grad;
  if (c.decoupled) {
    param = param * c.decay;
  } else {
    g = g + c.weight_decay * param;
  }
  m = c.beta1 * m + c.one_minus_beta1 * g;
  v = c.beta2 * v + c.one_minus_beta2 * g * g;
  *new_m = m;
  *new_v = v;
  *new_param = param - c.step_size * m / (std::sqrt(v) / c.sqrt_bias2 + c.eps);
}

// The step-dependent coefficients of step `step` (>= 1): one formula for the host, which
// knows the step when it reads the attributes, and adam_update_at_step's CUDA kernel,
// which reads it from device memory. Computed in double, then stored as T.
struct AdamStepTerms {
  double lr, beta1, beta2;
};
template <typename T>
TESS_HOST_DEVICE inline void SetAdamStep(const AdamStepTerms& s, int64_t step, AdamCoef<T>* c) {
  const double bias1 = 1 - std::pow(s.beta1, static_cast<double>(step));
  const double bias2 = 1 - std::pow(s.beta2, static_cast<double>(step));
  c->step_size = T(s.lr / bias1);
  c->sqrt_bias2 = T(std::sqrt(bias2));
}

// The attributes of an sgd_update / adam_update call (OpDef defaults filled in).
Result<SgdCoef<double>> ReadSgdCoef(const KernelContext& ctx);
Result<AdamCoef<double>> ReadAdamCoef(const KernelContext& ctx);
// adam_update_at_step's attributes: the coefficients but the step's (set by SetAdamStep
// from *terms once the step is known).
Result<AdamCoef<double>> ReadAdamCoefWithoutStep(const KernelContext& ctx, AdamStepTerms* terms);
// adam_update_at_step's error for a step number below 1, without the op's name (the CPU
// kernel's and the CUDA data check's message).
std::string AdamStepError(int64_t step);

// Inputs 0 .. num_inputs - 1 (all of them when -1) and every output have input 0's shape
// and dtype (the kernels walk them as one flat index range); INVALID_ARGUMENT naming the
// first that does not.
Status CheckUpdateOperands(const KernelContext& ctx, int num_inputs = -1);

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_COMMON_OPTIM_MATH_H_
