#include "kernels/common/optim_math.h"

#include <cmath>

#include "kernels/common/kernel_args.h"

namespace tessera {
namespace kernels {

Result<SgdCoef<double>> ReadSgdCoef(const KernelContext& ctx) {
  SgdCoef<double> c{};
  TESS_ASSIGN_OR_RETURN(c.lr, FloatAttr(ctx, "lr"));
  TESS_ASSIGN_OR_RETURN(c.momentum, FloatAttr(ctx, "momentum"));
  TESS_ASSIGN_OR_RETURN(const double dampening, FloatAttr(ctx, "dampening"));
  c.one_minus_dampening = 1 - dampening;
  TESS_ASSIGN_OR_RETURN(c.weight_decay, FloatAttr(ctx, "weight_decay"));
  TESS_ASSIGN_OR_RETURN(c.nesterov, BoolAttr(ctx, "nesterov"));
  TESS_ASSIGN_OR_RETURN(c.first_step, BoolAttr(ctx, "first_step"));
  return c;
}

Result<AdamCoef<double>> ReadAdamCoef(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const double lr, FloatAttr(ctx, "lr"));
  TESS_ASSIGN_OR_RETURN(const double beta1, FloatAttr(ctx, "beta1"));
  TESS_ASSIGN_OR_RETURN(const double beta2, FloatAttr(ctx, "beta2"));
  TESS_ASSIGN_OR_RETURN(const double eps, FloatAttr(ctx, "eps"));
  TESS_ASSIGN_OR_RETURN(const double weight_decay, FloatAttr(ctx, "weight_decay"));
  TESS_ASSIGN_OR_RETURN(const bool decoupled, BoolAttr(ctx, "decoupled"));
  TESS_ASSIGN_OR_RETURN(const int64_t step, IntAttr(ctx, "step"));
  if (step < 1) {
    return KernelError(ctx, "attribute \"step\" is " + std::to_string(step) + "; expected >= 1");
  }
  const double bias1 = 1 - std::pow(beta1, static_cast<double>(step));
  const double bias2 = 1 - std::pow(beta2, static_cast<double>(step));
  AdamCoef<double> c{};
  c.beta1 = beta1;
  c.one_minus_beta1 = 1 - beta1;
  c.beta2 = beta2;
  c.one_minus_beta2 = 1 - beta2;
  c.eps = eps;
  c.weight_decay = weight_decay;
  c.decay = 1 - lr * weight_decay;
  c.step_size = lr / bias1;
  c.sqrt_bias2 = std::sqrt(bias2);
  c.decoupled = decoupled;
  return c;
}

Status CheckUpdateOperands(const KernelContext& ctx) {
  const LocalTensor& param = ctx.inputs[0];
  // The name is built only on failure: a successful call allocates nothing.
  auto check = [&](const LocalTensor& t, bool is_input, int slot) -> Status {
    if (t.shape == param.shape && t.dtype == param.dtype) return Status::Ok();
    const std::string name = is_input ? "input \"" + InputName(ctx, slot) + "\""
                                      : "output \"" + OutputName(ctx, slot) + "\"";
    return KernelError(ctx, name + " is " + t.shape.ToString() + " " + DTypeName(t.dtype) +
                                " but \"param\" is " + param.shape.ToString() + " " +
                                DTypeName(param.dtype));
  };
  for (int i = 1; i < ctx.num_inputs; ++i) {
    TESS_RETURN_IF_ERROR(check(ctx.inputs[i], true, i));
  }
  for (int i = 0; i < ctx.num_outputs; ++i) {
    TESS_RETURN_IF_ERROR(check(ctx.outputs[i], false, i));
  }
  return Status::Ok();
}

}  // namespace kernels
}  // namespace tessera
