// Ops that exist for backward passes: each computes in one kernel what the gradient
// of a forward op would otherwise need several ops (or a missing one) for.
//   relu_grad(y, dy) = dy where y > 0, else 0 (y is relu's output).
//   sparse_softmax_cross_entropy_grad(prob, label, dout) = (prob - onehot(label)) *
//     dout[..., None]: the gradient of sparse_softmax_cross_entropy's `out` with
//     respect to its logits.
#include <string>

#include "core/op/op_context.h"
#include "core/op/op_def.h"
#include "core/op/ops/register_ops.h"
#include "core/op/ops/util.h"
#include "core/op/signature.h"

namespace tessera {
namespace op {
namespace {

Status ReluGradShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectSameDType(*ctx, "dy", "y"));
  const TensorDesc& y = ctx->input("y");
  if (ctx->input("dy").shape != y.shape) {
    return ctx->Error("input \"dy\" has shape " + ctx->input("dy").shape.ToString() +
                      " but \"y\" has " + y.shape.ToString());
  }
  *ctx->mutable_output("dx") = y;
  return Status::Ok();
}

void ReluGradSignatures(const OpContext& ctx, SignatureList* list) {
  for (int i = 0; i < ctx.input("y").shape.ndim(); ++i) {
    // Elementwise: each rank masks its own elements.
    list->NewBuilder().Split(AllInputs(), i).Split(AllOutputs(), i).Build();
  }
  // Linear in dy for a fixed mask: sum_r mask * dy_r = mask * sum_r dy_r.
  list->NewBuilder().Broadcast("y").PartialSum("dy").PartialSum("dx").Build();
}

Status SoftmaxXentGradShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectFloating(*ctx, "prob"));
  TESS_RETURN_IF_ERROR(ExpectIndex(*ctx, "label"));
  TESS_RETURN_IF_ERROR(ExpectSameDType(*ctx, "dout", "prob"));
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, "prob", 1, /*at_least=*/true));
  const Shape& p = ctx->input("prob").shape;
  const Shape batch = *Shape::Make(p.data(), static_cast<size_t>(p.ndim() - 1));
  for (const char* arg : {"label", "dout"}) {
    if (ctx->input(arg).shape != batch) {
      return ctx->Error(std::string("input \"") + arg + "\" has shape " +
                        ctx->input(arg).shape.ToString() + " but \"prob\" " + p.ToString() +
                        " needs " + batch.ToString() + " (all but the class axis)");
    }
  }
  *ctx->mutable_output("dx") = ctx->input("prob");
  return Status::Ok();
}

void SoftmaxXentGradSignatures(const OpContext& ctx, SignatureList* list) {
  const int nd = ctx.input("prob").shape.ndim();
  for (int i = 0; i < nd - 1; ++i) {
    // Examples are independent: whole rows of each rank's examples.
    list->NewBuilder().Split(AllInputs(), i).Split(AllOutputs(), i).Build();
  }
  // Linear in dout: (prob - onehot) * sum_r dout_r = sum_r (prob - onehot) * dout_r.
  list->NewBuilder()
      .Broadcast("prob")
      .Broadcast("label")
      .PartialSum("dout")
      .PartialSum("dx")
      .Build();
}

}  // namespace

Status RegisterGradOps(OpRegistry* r) {
  TESS_RETURN_IF_ERROR(r->Register(OpDef("relu_grad")
                                       .Input("y")
                                       .Input("dy")
                                       .Output("dx")
                                       .SetShapeFn(ReluGradShape)
                                       .SetSignatureFn(ReluGradSignatures)
                                       .Doc("dy where y > 0, else 0 (backward of relu)")));
  return r->Register(OpDef("sparse_softmax_cross_entropy_grad")
                         .Input("prob")
                         .Input("label")
                         .Input("dout")
                         .Output("dx")
                         .SetShapeFn(SoftmaxXentGradShape)
                         .SetSignatureFn(SoftmaxXentGradSignatures)
                         .Doc("(prob - onehot(label)) * dout (backward of "
                              "sparse_softmax_cross_entropy)"));
}

}  // namespace op
}  // namespace tessera
