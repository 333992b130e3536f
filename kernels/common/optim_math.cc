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

Result<AdamCoef<double>> ReadAdamCoefWithoutStep(const KernelContext& ctx, AdamStepTerms* terms) {
  TESS_ASSIGN_OR_RETURN(terms->lr, FloatAttr(ctx, "lr"));
  TESS_ASSIGN_OR_RETURN(terms->beta1, FloatAttr(ctx, "beta1"));
  TESS_ASSIGN_OR_RETURN(terms->beta2, FloatAttr(ctx, "beta2"));
  TESS_ASSIGN_OR_RETURN(const double eps, FloatAttr(ctx, "eps"));
  TESS_ASSIGN_OR_RETURN(const double weight_decay, FloatAttr(ctx, "weight_decay"));
  TESS_ASSIGN_OR_RETURN(const bool decoupled, BoolAttr(ctx, "decoupled"));
  AdamCoef<double> c{};
  c.beta1 = terms->beta1;
  c.one_minus_beta1 = 1 - terms->beta1;
  c.beta2 = terms->beta2;
  c.one_minus_beta2 = 1 - terms->beta2;
  c.eps = eps;
  c.weight_decay = weight_decay;
  c.decay = 1 - terms->lr * weight_decay;
  c.decoupled = decoupled;
  return c;
}

Result<AdamCoef<double>> ReadAdamCoef(const KernelContext& ctx) {
  AdamStepTerms terms{};
  TESS_ASSIGN_OR_RETURN(AdamCoef<double> c, ReadAdamCoefWithoutStep(ctx, &terms));
  TESS_ASSIGN_OR_RETURN(const int64_t step, IntAttr(ctx, "step"));
  if (step < 1) {
    return KernelError(ctx, "attribute \"step\" is " + std::to_string(step) + "; expected >= 1");
  }
  SetAdamStep(terms, step, &c);
  return c;
}

std::string AdamStepError(int64_t step) {
  return "input \"step\" is " + std::to_string(step) +
         "; expected >= 1 (the number of this step, counting from 1)";
}

Status CheckUpdateOperands(const KernelContext& ctx, int num_inputs) {
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
  const int checked = num_inputs < 0 ? ctx.num_inputs : num_inputs;
  for (int i = 1; i < checked; ++i) {
    TESS_RETURN_IF_ERROR(check(ctx.inputs[i], true, i));
  }
  for (int i = 0; i < ctx.num_outputs; ++i) {
    TESS_RETURN_IF_ERROR(check(ctx.outputs[i], false, i));
  }
  return Status::Ok();
}

}  // namespace kernels
}  // namespace tessera
