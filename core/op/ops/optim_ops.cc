// Optimizer update ops: one step of an optimizer on one parameter, elementwise, with
// PyTorch's formulas (torch.optim.SGD, Adam, AdamW; no amsgrad, no maximize). They
// return the new parameter and state; core/optim writes them back into the
// parameter. The kernels read and write each element at one index only, so core/optim's
// fused mode may run them with outputs that alias the inputs (kernels/common/optim_math.h).
//
//   sgd_update(param, grad, momentum_buf) -> (new_param, new_buf)
//     g = grad + weight_decay * param
//     momentum != 0: buf = first_step ? g : momentum * buf + (1 - dampening) * g
//                    g = nesterov ? g + momentum * buf : buf
//     new_param = param - lr * g     (new_buf = buf; unchanged when momentum == 0)
//   adam_update(param, grad, exp_avg, exp_avg_sq) -> (new_param, new_exp_avg, new_exp_avg_sq)
//     decoupled (AdamW): param = param * (1 - lr * weight_decay)
//     else:              g = grad + weight_decay * param
//     m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g
//     new_param = param - lr / (1 - beta1^step) * m / (sqrt(v) / sqrt(1 - beta2^step) + eps)
//   adam_update_at_step(param, grad, exp_avg, exp_avg_sq, step) -> the same
//     adam_update with the step number read from `step`, a scalar i64 tensor, when the
//     kernel runs: a plan captures it once and every run takes the step the tensor then
//     holds (core/optim/capture_step.cc), one kernel where adam_update's fixed "step"
//     attribute would need the bias corrections spelled out in a dozen ops.
//
// Attributes are checked here, each error naming the attribute and its value: lr,
// momentum, dampening, weight_decay and eps >= 0 (and finite), betas in [0, 1), step >= 1,
// nesterov only with momentum > 0 and dampening == 0 (as PyTorch requires).
#include <cmath>
#include <string>

#include "core/common/double_text.h"
#include "core/op/op_context.h"
#include "core/op/op_def.h"
#include "core/op/ops/register_ops.h"
#include "core/op/ops/util.h"
#include "core/op/signature.h"

namespace tessera {
namespace op {
namespace {

Status ExpectNonNegative(const OpContext& ctx, const char* attr) {
  const double v = ctx.Float(attr);
  if (std::isfinite(v) && v >= 0) return Status::Ok();
  return ctx.Error(std::string("attribute \"") + attr + "\" is " + DoubleText(v) +
                   "; expected a finite value >= 0");
}

Status ExpectBeta(const OpContext& ctx, const char* attr) {
  const double v = ctx.Float(attr);
  if (v >= 0 && v < 1) return Status::Ok();
  return ctx.Error(std::string("attribute \"") + attr + "\" is " + DoubleText(v) +
                   "; expected a value in [0, 1)");
}

// Inputs 0 .. num_inputs - 1 (every input when -1) have the parameter's shape and
// dtype, a floating one; so does every output.
Status SameAsParam(OpContext* ctx, int num_inputs = -1) {
  TESS_RETURN_IF_ERROR(ExpectFloating(*ctx, "param"));
  const TensorDesc& param = ctx->input("param");
  const int checked = num_inputs < 0 ? ctx->num_inputs() : num_inputs;
  for (int i = 1; i < checked; ++i) {
    const std::string name = ctx->InputName(i);
    TESS_RETURN_IF_ERROR(ExpectSameDType(*ctx, name, "param"));
    if (ctx->input(i).shape != param.shape) {
      return ctx->Error("input \"" + name + "\" has shape " + ctx->input(i).shape.ToString() +
                        " but \"param\" has " + param.shape.ToString());
    }
  }
  for (const ArgDef& out : ctx->def().outputs()) *ctx->mutable_output(out.name) = param;
  return Status::Ok();
}

Status SgdShape(OpContext* ctx) {
  for (const char* attr : {"lr", "momentum", "dampening", "weight_decay"}) {
    TESS_RETURN_IF_ERROR(ExpectNonNegative(*ctx, attr));
  }
  if (ctx->Bool("nesterov") && (ctx->Float("momentum") <= 0 || ctx->Float("dampening") != 0)) {
    return ctx->Error("attribute \"nesterov\" is true with momentum " +
                      DoubleText(ctx->Float("momentum")) + " and dampening " +
                      DoubleText(ctx->Float("dampening")) +
                      "; Nesterov momentum needs momentum > 0 and dampening 0");
  }
  return SameAsParam(ctx);
}

// The attributes adam_update and adam_update_at_step share.
Status CheckAdamAttrs(const OpContext& ctx) {
  for (const char* attr : {"lr", "eps", "weight_decay"}) {
    TESS_RETURN_IF_ERROR(ExpectNonNegative(ctx, attr));
  }
  TESS_RETURN_IF_ERROR(ExpectBeta(ctx, "beta1"));
  return ExpectBeta(ctx, "beta2");
}

Status AdamShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(CheckAdamAttrs(*ctx));
  if (ctx->Int("step") < 1) {
    return ctx->Error("attribute \"step\" is " + std::to_string(ctx->Int("step")) +
                      "; expected >= 1 (the number of this step, counting from 1)");
  }
  return SameAsParam(ctx);
}

// adam_update's checks of the four tensors; `step` is an i64 scalar (its value >= 1 is
// the kernels' data check).
Status AdamAtStepShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(CheckAdamAttrs(*ctx));
  const TensorDesc& step = ctx->input("step");
  if (step.dtype != DType::kI64 || step.shape.ndim() != 0) {
    return ctx->Error("input \"step\" is " + std::string(DTypeName(step.dtype)) + " " +
                      step.shape.ToString() + "; expected an i64 scalar (shape [])");
  }
  return SameAsParam(ctx, 4);
}

void UpdateSignatures(const OpContext& ctx, SignatureList* list) {
  for (int i = 0; i < ctx.input("param").shape.ndim(); ++i) {
    // Elementwise: each rank updates its own elements of the parameter from the same
    // elements of the gradient and the state.
    list->NewBuilder().Split(AllInputs(), i).Split(AllOutputs(), i).Build();
  }
  // No partial signature: the update is not linear in the gradient (Adam divides by
  // its root, and every update adds it to a non-partial parameter), so a P gradient is
  // boxed to the parameter's layout first. The all-B signature is the framework's.
}

void AdamAtStepSignatures(const OpContext& ctx, SignatureList* list) {
  for (int i = 0; i < ctx.input("param").shape.ndim(); ++i) {
    // As UpdateSignatures; every rank reads the whole step number.
    list->NewBuilder()
        .Split("param", i)
        .Split("grad", i)
        .Split("exp_avg", i)
        .Split("exp_avg_sq", i)
        .Broadcast("step")
        .Split(AllOutputs(), i)
        .Build();
  }
}

// The arguments adam_update and adam_update_at_step share; the step number is an
// attribute of the one and a fifth input of the other.
OpDef AdamDef(const char* name, bool step_input) {
  OpDef def(name);
  def.Input("param").Input("grad").Input("exp_avg").Input("exp_avg_sq");
  if (step_input) def.Input("step");
  def.Output("new_param")
      .Output("new_exp_avg")
      .Output("new_exp_avg_sq")
      .Attr("lr", AttrValue::Float(0.001))
      .Attr("beta1", AttrValue::Float(0.9))
      .Attr("beta2", AttrValue::Float(0.999))
      .Attr("eps", AttrValue::Float(1e-8))
      .Attr("weight_decay", AttrValue::Float(0))
      .Attr("decoupled", AttrValue::Bool(false));
  if (!step_input) def.Attr("step", AttrValue::Int(1));
  return def;
}

}  // namespace

Status RegisterOptimOps(OpRegistry* r) {
  TESS_RETURN_IF_ERROR(r->Register(OpDef("sgd_update")
                                       .Input("param")
                                       .Input("grad")
                                       .Input("momentum_buf")
                                       .Output("new_param")
                                       .Output("new_momentum_buf")
                                       .Attr("lr", AttrValue::Float(0.01))
                                       .Attr("momentum", AttrValue::Float(0))
                                       .Attr("dampening", AttrValue::Float(0))
                                       .Attr("nesterov", AttrValue::Bool(false))
                                       .Attr("weight_decay", AttrValue::Float(0))
                                       .Attr("first_step", AttrValue::Bool(false))
                                       .SetShapeFn(SgdShape)
                                       .SetSignatureFn(UpdateSignatures)
                                       .Doc("one step of SGD with momentum (torch.optim.SGD); "
                                            "first_step: the buffer starts as the gradient")));
  TESS_RETURN_IF_ERROR(r->Register(AdamDef("adam_update", /*step_input=*/false)
                                       .SetShapeFn(AdamShape)
                                       .SetSignatureFn(UpdateSignatures)
                                       .Doc("one step of Adam (torch.optim.Adam), or AdamW when "
                                            "decoupled; step counts from 1 for the bias "
                                            "corrections")));
  return r->Register(AdamDef("adam_update_at_step", /*step_input=*/true)
                         .SetShapeFn(AdamAtStepShape)
                         .SetSignatureFn(AdamAtStepSignatures)
                         .Doc("adam_update with the step number (from 1) read from the i64 "
                              "scalar tensor step when the kernel runs, so a captured plan's "
                              "bias corrections advance with it"));
}

}  // namespace op
}  // namespace tessera
