// Ops that exist for backward passes: each computes in one kernel what the gradient
// of a forward op would otherwise need several ops (or a missing one) for. The
// elementwise ones take two inputs of one shape (the rules broadcast first).
//   relu_grad(y, dy) = dy where y > 0, else 0 (y is relu's output).
//   gelu_grad(x, dy) = dy * (Phi(x) + x phi(x)), the exact (erf) gelu's derivative.
//   equal_mask(x, y) = 1 where x == y, else 0, in x's floating dtype: the argmax
//     positions of reduce_max/min and maximum/minimum, and the sign of x for abs.
//   xlogy(x, y) = x * log(y), and 0 where x == 0 (even for y = 0): the exponent's
//     gradient of pow, dout * out * log(base), which is 0 where out is 0.
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

// Two inputs of one shape and dtype; the output is like the first.
Status SameShapePairShape(OpContext* ctx, const char* a, const char* b, const char* out) {
  TESS_RETURN_IF_ERROR(ExpectSameDType(*ctx, b, a));
  const TensorDesc& x = ctx->input(a);
  if (ctx->input(b).shape != x.shape) {
    return ctx->Error(std::string("input \"") + b + "\" has shape " +
                      ctx->input(b).shape.ToString() + " but \"" + a + "\" has " +
                      x.shape.ToString());
  }
  *ctx->mutable_output(out) = x;
  return Status::Ok();
}

Status ReluGradShape(OpContext* ctx) { return SameShapePairShape(ctx, "y", "dy", "dx"); }

Status GeluGradShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectFloating(*ctx, "x"));
  return SameShapePairShape(ctx, "x", "dy", "dx");
}

Status FloatPairShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectFloating(*ctx, "x"));
  return SameShapePairShape(ctx, "x", "y", "out");
}

// Elementwise: each rank computes its own elements.
void SplitEveryAxis(const OpContext& ctx, SignatureList* list) {
  for (int i = 0; i < ctx.input(0).shape.ndim(); ++i) {
    list->NewBuilder().Split(AllInputs(), i).Split(AllOutputs(), i).Build();
  }
}

void ReluGradSignatures(const OpContext& ctx, SignatureList* list) {
  SplitEveryAxis(ctx, list);
  // Linear in dy for a fixed mask: sum_r mask * dy_r = mask * sum_r dy_r.
  list->NewBuilder().Broadcast("y").PartialSum("dy").PartialSum("dx").Build();
}

void GeluGradSignatures(const OpContext& ctx, SignatureList* list) {
  SplitEveryAxis(ctx, list);
  // Linear in dy for a fixed x: f'(x) * sum_r dy_r = sum_r f'(x) * dy_r.
  list->NewBuilder().Broadcast("x").PartialSum("dy").PartialSum("dx").Build();
}

// equal_mask: splits only. Equality does not commute with a sum of parts: x = 1 + 1
// equals y = 2 + 0, but (1 == 2) + (1 == 0) is 0; nor with max or min of them.
void EqualMaskSignatures(const OpContext& ctx, SignatureList* list) { SplitEveryAxis(ctx, list); }

void XlogySignatures(const OpContext& ctx, SignatureList* list) {
  SplitEveryAxis(ctx, list);
  // Linear in x for a fixed y: (sum_r x_r) log y = sum_r x_r log y (and 0 * log y = 0).
  list->NewBuilder().PartialSum("x").Broadcast("y").PartialSum("out").Build();
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
  TESS_RETURN_IF_ERROR(r->Register(OpDef("gelu_grad")
                                       .Input("x")
                                       .Input("dy")
                                       .Output("dx")
                                       .SetShapeFn(GeluGradShape)
                                       .SetSignatureFn(GeluGradSignatures)
                                       .Doc("dy * gelu'(x) (backward of gelu)")));
  TESS_RETURN_IF_ERROR(r->Register(OpDef("equal_mask")
                                       .Input("x")
                                       .Input("y")
                                       .Output("out")
                                       .SetShapeFn(FloatPairShape)
                                       .SetSignatureFn(EqualMaskSignatures)
                                       .Doc("1 where x == y, else 0; same shapes (for "
                                            "backward passes)")));
  TESS_RETURN_IF_ERROR(r->Register(OpDef("xlogy")
                                       .Input("x")
                                       .Input("y")
                                       .Output("out")
                                       .SetShapeFn(FloatPairShape)
                                       .SetSignatureFn(XlogySignatures)
                                       .Doc("x * log(y), 0 where x == 0; same shapes (for "
                                            "backward passes)")));
  TESS_RETURN_IF_ERROR(RegisterScatterGradOps(r));
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
