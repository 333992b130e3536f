// Ops along one axis: argmax (the index of the first largest element; NaN counts as
// the largest, as numpy's) and cumsum (running sums).
#include <vector>

#include "core/op/op_context.h"
#include "core/op/op_def.h"
#include "core/op/ops/grad_rules.h"
#include "core/op/ops/register_ops.h"
#include "core/op/ops/util.h"
#include "core/op/signature.h"

namespace tessera {
namespace op {
namespace {

Status ExpectNumeric(const OpContext& ctx) {
  const DType d = ctx.input("x").dtype;
  if (IsFloating(d) || IsInteger(d)) return Status::Ok();
  return ctx.Error(std::string("input \"x\" has dtype ") + DTypeName(d) +
                   "; expected a number type (f32, f64, i32, i64)");
}

// ---- argmax ----

Status ArgmaxShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectNumeric(*ctx));
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, "x", 1, /*at_least=*/true));
  const Shape& x = ctx->input("x").shape;
  TESS_ASSIGN_OR_RETURN(int axis, NormalizeAxis(*ctx, "axis", ctx->Int("axis"), x.ndim(), "x"));
  if (x.dim(axis) == 0) {
    return ctx->Error("input \"x\" " + x.ToString() + " has no elements on axis " +
                      std::to_string(axis) + "; an empty axis has no argmax");
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < x.ndim(); ++i) {
    if (i != axis) {
      dims.push_back(x.dim(i));
    } else if (ctx->Bool("keepdims")) {
      dims.push_back(1);
    }
  }
  TESS_ASSIGN_OR_RETURN(Shape out, MakeShape(*ctx, dims, "output shape"));
  *ctx->mutable_output("out") = {out, DType::kI64};
  return Status::Ok();
}

void ArgmaxSignatures(const OpContext& ctx, SignatureList* list) {
  const int nd = ctx.input("x").shape.ndim();
  const int axis = *NormalizeAxis(ctx, "axis", ctx.Int("axis"), nd, "x");
  const bool keepdims = ctx.Bool("keepdims");
  for (int i = 0; i < nd; ++i) {
    // Each argmax row (along `axis`) stays whole on one rank, so its index is the
    // global one. Splitting `axis` would give per-rank indices, and the index of a
    // maximum is no sum, max or min of per-rank values: no partial either.
    if (i != axis)
      list->NewBuilder().Split("x", i).Split("out", i < axis || keepdims ? i : i - 1).Build();
  }
}

// ---- cumsum ----

Status CumsumShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectNumeric(*ctx));
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, "x", 1, /*at_least=*/true));
  TESS_RETURN_IF_ERROR(
      NormalizeAxis(*ctx, "axis", ctx->Int("axis"), ctx->input("x").shape.ndim(), "x"));
  *ctx->mutable_output("out") = ctx->input("x");
  return Status::Ok();
}

void CumsumSignatures(const OpContext& ctx, SignatureList* list) {
  const int nd = ctx.input("x").shape.ndim();
  const int axis = *NormalizeAxis(ctx, "axis", ctx.Int("axis"), nd, "x");
  for (int i = 0; i < nd; ++i) {
    // Each running sum (along `axis`) stays whole on one rank. (A split `axis` would
    // need the sums of the ranks before.)
    if (i != axis) list->NewBuilder().Split("x", i).Split("out", i).Build();
  }
  // Linear: the running sums of sum_r x_r are sum_r of the running sums of x_r
  // (integers wrap alike in either order). Not max or min: cumsum of P(max) parts is
  // not the max of their cumsums.
  list->NewBuilder().PartialSum("x").PartialSum("out").Build();
}

}  // namespace

Status RegisterAxisOps(OpRegistry* r) {
  TESS_RETURN_IF_ERROR(
      r->Register(OpDef("argmax")
                      .Input("x")
                      .Output("out")
                      .Attr("axis", AttrValue::Int(-1))
                      .Attr("keepdims", AttrValue::Bool(false))
                      .SetShapeFn(ArgmaxShape)
                      .SetSignatureFn(ArgmaxSignatures)
                      .Doc("i64 index of the first largest element along axis (NaN is largest)")));
  return r->Register(OpDef("cumsum")
                         .Input("x")
                         .Output("out")
                         .Attr("axis", AttrValue::Int(-1))
                         .SetShapeFn(CumsumShape)
                         .SetSignatureFn(CumsumSignatures)
                         .SetGradFn(CumsumGrad)
                         .Doc("running sums along axis (out[i] = x[0] + ... + x[i])"));
}

}  // namespace op
}  // namespace tessera
