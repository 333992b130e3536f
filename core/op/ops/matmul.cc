// matmul and batch_matmul. out[..., m, n] = sum_k a[..., m, k] * b[..., k, n], with
// transpose_a / transpose_b choosing which of a's (b's) last two axes is k. matmul
// broadcasts a 2-d b over a's leading (batch) axes: a [..., m, k] @ b [k, n].
#include "core/op/op_context.h"
#include "core/op/op_def.h"
#include "core/op/ops/grad_rules.h"
#include "core/op/ops/register_ops.h"
#include "core/op/ops/util.h"
#include "core/op/signature.h"

namespace tessera {
namespace op {
namespace {

struct MatmulAxes {
  int m, ka, kb, n;  // axes of a (m, ka) and b (kb, n), counted from the start
};

MatmulAxes AxesOf(const OpContext& ctx, int nd) {
  bool ta = ctx.Bool("transpose_a");
  bool tb = ctx.Bool("transpose_b");
  return {ta ? nd - 1 : nd - 2, ta ? nd - 2 : nd - 1, tb ? nd - 1 : nd - 2, tb ? nd - 2 : nd - 1};
}

// Shared by both ops once ranks are checked: k must agree.
Status CheckK(const OpContext& ctx, const MatmulAxes& ax) {
  const Shape& a = ctx.input("a").shape;
  const Shape& b = ctx.input("b").shape;
  if (a.dim(ax.ka) == b.dim(ax.kb)) return Status::Ok();
  bool ta = ctx.Bool("transpose_a");
  bool tb = ctx.Bool("transpose_b");
  return ctx.Error("input \"b\" has shape " + b.ToString() + (tb ? " (transpose_b)" : "") +
                   " with " + std::to_string(b.dim(ax.kb)) + " rows but \"a\" has " +
                   std::to_string(a.dim(ax.ka)) + " columns" +
                   (ta ? " (shape " + a.ToString() + ", transpose_a)" : ""));
}

// The axes of a of rank `nd` and of the 2-d b.
MatmulAxes BroadcastAxesOf(const OpContext& ctx, int nd) {
  const MatmulAxes a = AxesOf(ctx, nd);
  const MatmulAxes b = AxesOf(ctx, 2);
  return {a.m, a.ka, b.kb, b.n};
}

Status MatmulShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, "a", 2, /*at_least=*/true));
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, "b", 2));
  TESS_RETURN_IF_ERROR(ExpectSameDType(*ctx, "b", "a"));
  const Shape& a = ctx->input("a").shape;
  const Shape& b = ctx->input("b").shape;
  const int nd = a.ndim();
  MatmulAxes ax = BroadcastAxesOf(*ctx, nd);
  TESS_RETURN_IF_ERROR(CheckK(*ctx, ax));
  Shape out = a;
  out.set_dim(nd - 2, a.dim(ax.m));
  out.set_dim(nd - 1, b.dim(ax.n));
  *ctx->mutable_output("out") = {out, ctx->input("a").dtype};
  return Status::Ok();
}

Status BatchMatmulShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, "a", 3, /*at_least=*/true));
  const Shape& a = ctx->input("a").shape;
  const Shape& b = ctx->input("b").shape;
  if (b.ndim() != a.ndim()) {
    return ctx->Error("input \"b\" has shape " + b.ToString() + " (" + std::to_string(b.ndim()) +
                      " dims) but \"a\" has shape " + a.ToString() + " (" +
                      std::to_string(a.ndim()) + " dims); batch_matmul needs equal ranks");
  }
  TESS_RETURN_IF_ERROR(ExpectSameDType(*ctx, "b", "a"));
  const int nd = a.ndim();
  for (int i = 0; i < nd - 2; ++i) {
    if (a.dim(i) != b.dim(i)) {
      return ctx->Error("input \"b\" has shape " + b.ToString() + " but \"a\" has " + a.ToString() +
                        ": batch axis " + std::to_string(i) + " differs (" +
                        std::to_string(b.dim(i)) + " vs " + std::to_string(a.dim(i)) + ")");
    }
  }
  MatmulAxes ax = AxesOf(*ctx, nd);
  TESS_RETURN_IF_ERROR(CheckK(*ctx, ax));
  Shape out = a;
  out.set_dim(nd - 2, a.dim(ax.m));
  out.set_dim(nd - 1, b.dim(ax.n));
  *ctx->mutable_output("out") = {out, ctx->input("a").dtype};
  return Status::Ok();
}

// The five matmul rules on the last two axes: out and a of rank `nd`, b with axes `ax`.
void MatrixSignatures(const OpContext& ctx, SignatureList* list, int nd, const MatmulAxes& ax) {
  // Rows of out depend only on the same rows of a: each rank multiplies its rows of a
  // by all of b.
  list->NewBuilder().Split("a", ax.m).Broadcast("b").Split("out", nd - 2).Build();
  // Columns of out depend only on the same columns of b.
  list->NewBuilder().Broadcast("a").Split("b", ax.n).Split("out", nd - 1).Build();
  // The sum over k splits into per-rank sums over the same k range of a and b (both
  // use the balanced split of the same k), whose sum is the full product.
  list->NewBuilder().Split("a", ax.ka).Split("b", ax.kb).PartialSum("out").Build();
  // Linear in a: (sum_r a_r) b = sum_r (a_r b).
  list->NewBuilder().PartialSum("a").Broadcast("b").PartialSum("out").Build();
  // Linear in b: a (sum_r b_r) = sum_r (a b_r).
  list->NewBuilder().Broadcast("a").PartialSum("b").PartialSum("out").Build();
}

void MatmulSignatures(const OpContext& ctx, SignatureList* list) {
  const int nd = ctx.input("a").shape.ndim();
  for (int i = 0; i < nd - 2; ++i) {
    // Batch entries of a are independent products with the same whole b.
    list->NewBuilder().Split("a", i).Broadcast("b").Split("out", i).Build();
  }
  MatrixSignatures(ctx, list, nd, BroadcastAxesOf(ctx, nd));
}

void BatchMatmulSignatures(const OpContext& ctx, SignatureList* list) {
  const int nd = ctx.input("a").shape.ndim();
  for (int i = 0; i < nd - 2; ++i) {
    // Batch entries are independent products.
    list->NewBuilder().Split(AllInputs(), i).Split("out", i).Build();
  }
  MatrixSignatures(ctx, list, nd, AxesOf(ctx, nd));
}

}  // namespace

Status RegisterMatmulOps(OpRegistry* registry) {
  TESS_RETURN_IF_ERROR(registry->Register(
      OpDef("matmul")
          .Input("a")
          .Input("b")
          .Output("out")
          .Attr("transpose_a", AttrValue::Bool(false))
          .Attr("transpose_b", AttrValue::Bool(false))
          .SetShapeFn(MatmulShape)
          .SetSignatureFn(MatmulSignatures)
          .SetGradFn(MatmulGrad)
          .Doc("out[...,m,n] = a[...,m,k] b[k,n] (b 2-d, shared by a's leading axes); "
               "transpose_a/b read a as [...,k,m] / b as [n,k]")));
  return registry->Register(
      OpDef("batch_matmul")
          .Input("a")
          .Input("b")
          .Output("out")
          .Attr("transpose_a", AttrValue::Bool(false))
          .Attr("transpose_b", AttrValue::Bool(false))
          .SetShapeFn(BatchMatmulShape)
          .SetSignatureFn(BatchMatmulSignatures)
          .SetGradFn(MatmulGrad)
          .Doc("matmul over the last two axes; leading batch axes must be equal"));
}

}  // namespace op
}  // namespace tessera
