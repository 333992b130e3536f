// Neural-network ops: gather, embedding, layer_norm, bias_add,
// sparse_softmax_cross_entropy.
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

// ---- gather: out = params[:axis] + indices.shape + params[axis+1:] ----

Status GatherShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectIndex(*ctx, "indices"));
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, "params", 1, /*at_least=*/true));
  const Shape& p = ctx->input("params").shape;
  const Shape& idx = ctx->input("indices").shape;
  TESS_ASSIGN_OR_RETURN(int axis,
                        NormalizeAxis(*ctx, "axis", ctx->Int("axis"), p.ndim(), "params"));
  std::vector<int64_t> dims;
  for (int i = 0; i < axis; ++i) dims.push_back(p.dim(i));
  for (int i = 0; i < idx.ndim(); ++i) dims.push_back(idx.dim(i));
  for (int i = axis + 1; i < p.ndim(); ++i) dims.push_back(p.dim(i));
  TESS_ASSIGN_OR_RETURN(Shape out, MakeShape(*ctx, dims, "output shape"));
  *ctx->mutable_output("out") = {out, ctx->input("params").dtype};
  return Status::Ok();
}

void GatherSignatures(const OpContext& ctx, SignatureList* list) {
  const Shape& p = ctx.input("params").shape;
  const int ni = ctx.input("indices").shape.ndim();
  const int axis = *NormalizeAxis(ctx, "axis", ctx.Int("axis"), p.ndim(), "params");
  for (int i = 0; i < ni; ++i) {
    // Each rank looks up its own indices in the whole table; index axis i sits at
    // output axis axis + i.
    list->NewBuilder().Split("indices", i).Broadcast("params").Split("out", axis + i).Build();
  }
  for (int j = 0; j < p.ndim(); ++j) {
    if (j == axis) continue;  // needs per-rank index offsets a local kernel lacks
    // A non-gathered params axis is carried through unchanged.
    list->NewBuilder()
        .Split("params", j)
        .Broadcast("indices")
        .Split("out", j < axis ? j : j + ni - 1)
        .Build();
  }
  // A gather copies elements, so it commutes with sum, max and min of the tables.
  list->NewBuilder().PartialSum("params").Broadcast("indices").PartialSum("out").Build();
  list->NewBuilder().PartialMax("params").Broadcast("indices").PartialMax("out").Build();
  list->NewBuilder().PartialMin("params").Broadcast("indices").PartialMin("out").Build();
}

// ---- embedding: out = weight[indices], shape indices.shape + [D] ----

Status EmbeddingShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, "weight", 2));
  TESS_RETURN_IF_ERROR(ExpectIndex(*ctx, "indices"));
  std::vector<int64_t> dims = ctx->input("indices").shape.ToVector();
  dims.push_back(ctx->input("weight").shape.dim(1));
  TESS_ASSIGN_OR_RETURN(Shape out, MakeShape(*ctx, dims, "output shape"));
  *ctx->mutable_output("out") = {out, ctx->input("weight").dtype};
  return Status::Ok();
}

void EmbeddingSignatures(const OpContext& ctx, SignatureList* list) {
  const int ni = ctx.input("indices").shape.ndim();
  for (int i = 0; i < ni; ++i) {
    // Each rank looks up its own indices in the whole table.
    list->NewBuilder().Split("indices", i).Broadcast("weight").Split("out", i).Build();
  }
  // Embedding columns are independent: each rank returns its columns of every row.
  list->NewBuilder().Split("weight", 1).Broadcast("indices").Split("out", ni).Build();
  // A lookup copies rows, so it commutes with sum, max and min of the tables.
  list->NewBuilder().PartialSum("weight").Broadcast("indices").PartialSum("out").Build();
  list->NewBuilder().PartialMax("weight").Broadcast("indices").PartialMax("out").Build();
  list->NewBuilder().PartialMin("weight").Broadcast("indices").PartialMin("out").Build();
}

// ---- layer_norm: normalise over axes >= begin_norm_axis, scale by gamma and shift by
// beta of shape x.shape[begin_params_axis:]; mean and inv_variance have shape
// x.shape[:begin_norm_axis]. ----

struct LayerNormAxes {
  int norm, params;
};

Result<LayerNormAxes> LayerNormAxesOf(const OpContext& ctx) {
  const int nd = ctx.input("x").shape.ndim();
  TESS_ASSIGN_OR_RETURN(int norm,
                        NormalizeAxis(ctx, "begin_norm_axis", ctx.Int("begin_norm_axis"), nd, "x"));
  TESS_ASSIGN_OR_RETURN(
      int params, NormalizeAxis(ctx, "begin_params_axis", ctx.Int("begin_params_axis"), nd, "x"));
  return LayerNormAxes{norm, params};
}

Status LayerNormShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectFloating(*ctx, "x"));
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, "x", 1, /*at_least=*/true));
  TESS_ASSIGN_OR_RETURN(LayerNormAxes ax, LayerNormAxesOf(*ctx));
  const Shape& x = ctx->input("x").shape;
  std::vector<int64_t> params(x.data() + ax.params, x.data() + x.ndim());
  for (const char* arg : {"gamma", "beta"}) {
    TESS_RETURN_IF_ERROR(ExpectSameDType(*ctx, arg, "x"));
    if (ctx->input(arg).shape.ToVector() != params) {
      return ctx->Error("input \"" + std::string(arg) + "\" has shape " +
                        ctx->input(arg).shape.ToString() + " but input \"x\" " + x.ToString() +
                        " with begin_params_axis " + std::to_string(ax.params) + " needs " +
                        IntsToString(params));
    }
  }
  Shape stats = *Shape::Make(x.data(), static_cast<size_t>(ax.norm));
  const DType dt = ctx->input("x").dtype;
  *ctx->mutable_output("y") = {x, dt};
  *ctx->mutable_output("mean") = {stats, dt};
  *ctx->mutable_output("inv_variance") = {stats, dt};
  return Status::Ok();
}

void LayerNormSignatures(const OpContext& ctx, SignatureList* list) {
  LayerNormAxes ax = *LayerNormAxesOf(ctx);
  for (int i = 0; i < ax.norm; ++i) {
    // Axes before begin_norm_axis index independent normalisation groups: each rank
    // normalises whole groups. gamma/beta are needed whole unless axis i is one of
    // their axes, where the same balanced split gives each rank the matching part.
    SignatureList::Builder b = list->NewBuilder();
    b.Split("x", i).Split(AllOutputs(), i);
    if (i < ax.params) {
      b.Broadcast("gamma").Broadcast("beta");
    } else {
      b.Split("gamma", i - ax.params).Split("beta", i - ax.params);
    }
    b.Build();
  }
}

// ---- bias_add: out = a + b broadcast along `axis` (b is 1-d of size a.shape[axis]) ----

Status BiasAddShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectSameDType(*ctx, "b", "a"));
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, "a", 1, /*at_least=*/true));
  const Shape& a = ctx->input("a").shape;
  const Shape& b = ctx->input("b").shape;
  TESS_ASSIGN_OR_RETURN(int axis, NormalizeAxis(*ctx, "axis", ctx->Int("axis"), a.ndim(), "a"));
  if (b.ndim() != 1 || b.dim(0) != a.dim(axis)) {
    return ctx->Error("input \"b\" has shape " + b.ToString() + " but \"a\" " + a.ToString() +
                      " needs [" + std::to_string(a.dim(axis)) + "] (its axis " +
                      std::to_string(axis) + ")");
  }
  *ctx->mutable_output("out") = ctx->input("a");
  return Status::Ok();
}

void BiasAddSignatures(const OpContext& ctx, SignatureList* list) {
  const int nd = ctx.input("a").shape.ndim();
  const int axis = *NormalizeAxis(ctx, "axis", ctx.Int("axis"), nd, "a");
  for (int i = 0; i < nd; ++i) {
    if (i == axis) {
      // Same balanced split of a's `axis` and of b: each rank adds its bias entries.
      list->NewBuilder().Split("a", axis).Split("b", 0).Split("out", axis).Build();
    } else {
      // Rows along another axis all use the whole bias.
      list->NewBuilder().Split("a", i).Broadcast("b").Split("out", i).Build();
    }
  }
  // Linear: sum_r a_r + sum_r b_r = sum_r (a_r + b_r).
  list->NewBuilder().PartialSum("a").PartialSum("b").PartialSum("out").Build();
  // a + b is non-decreasing in a: max_r a_r + b = max_r (a_r + b); likewise min.
  list->NewBuilder().PartialMax("a").Broadcast("b").PartialMax("out").Build();
  list->NewBuilder().PartialMin("a").Broadcast("b").PartialMin("out").Build();
}

// ---- sparse_softmax_cross_entropy: prediction [..., C] logits, label [...] class ids;
// prob = softmax(prediction), out = -log prob[label]. ----

Status SparseSoftmaxCrossEntropyShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectFloating(*ctx, "prediction"));
  TESS_RETURN_IF_ERROR(ExpectIndex(*ctx, "label"));
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, "prediction", 1, /*at_least=*/true));
  const Shape& p = ctx->input("prediction").shape;
  const Shape& l = ctx->input("label").shape;
  Shape batch = *Shape::Make(p.data(), static_cast<size_t>(p.ndim() - 1));
  if (l != batch) {
    return ctx->Error("input \"label\" has shape " + l.ToString() + " but \"prediction\" " +
                      p.ToString() + " needs " + batch.ToString() + " (all but the class axis)");
  }
  const DType dt = ctx->input("prediction").dtype;
  *ctx->mutable_output("prob") = {p, dt};
  *ctx->mutable_output("out") = {batch, dt};
  return Status::Ok();
}

void SparseSoftmaxCrossEntropySignatures(const OpContext& ctx, SignatureList* list) {
  const int nd = ctx.input("prediction").shape.ndim();
  for (int i = 0; i < nd - 1; ++i) {
    // Examples are independent: each rank handles whole rows (all classes) of its
    // examples with their labels.
    list->NewBuilder().Split(AllInputs(), i).Split(AllOutputs(), i).Build();
  }
}

}  // namespace

Status RegisterNnOps(OpRegistry* r) {
  TESS_RETURN_IF_ERROR(r->Register(OpDef("gather")
                                       .Input("params")
                                       .Input("indices")
                                       .Output("out")
                                       .Attr("axis", AttrValue::Int(0))
                                       .SetShapeFn(GatherShape)
                                       .SetSignatureFn(GatherSignatures)
                                       .SetGradFn(GatherGrad)
                                       .Doc("params indexed by indices along axis")));
  TESS_RETURN_IF_ERROR(r->Register(OpDef("embedding")
                                       .Input("weight")
                                       .Input("indices")
                                       .Output("out")
                                       .SetShapeFn(EmbeddingShape)
                                       .SetSignatureFn(EmbeddingSignatures)
                                       .SetGradFn(EmbeddingGrad)
                                       .Doc("rows of weight [V, D] picked by indices")));
  TESS_RETURN_IF_ERROR(r->Register(OpDef("layer_norm")
                                       .Input("x")
                                       .Input("gamma")
                                       .Input("beta")
                                       .Output("y")
                                       .Output("mean")
                                       .Output("inv_variance")
                                       .Attr("begin_norm_axis", AttrValue::Int(-1))
                                       .Attr("begin_params_axis", AttrValue::Int(-1))
                                       .Attr("epsilon", AttrValue::Float(1e-5))
                                       .SetShapeFn(LayerNormShape)
                                       .SetSignatureFn(LayerNormSignatures)
                                       .SetGradFn(LayerNormGrad)
                                       .Doc("normalise over axes >= begin_norm_axis")));
  TESS_RETURN_IF_ERROR(r->Register(OpDef("bias_add")
                                       .Input("a")
                                       .Input("b")
                                       .Output("out")
                                       .Attr("axis", AttrValue::Int(1))
                                       .SetShapeFn(BiasAddShape)
                                       .SetSignatureFn(BiasAddSignatures)
                                       .SetGradFn(BiasAddGrad)
                                       .Doc("a + b along axis; b is 1-d")));
  return r->Register(OpDef("sparse_softmax_cross_entropy")
                         .Input("prediction")
                         .Input("label")
                         .Output("prob")
                         .Output("out")
                         .SetShapeFn(SparseSoftmaxCrossEntropyShape)
                         .SetSignatureFn(SparseSoftmaxCrossEntropySignatures)
                         .SetGradFn(SparseSoftmaxCrossEntropyGrad)
                         .Doc("softmax over the last axis and -log prob[label]"));
}

}  // namespace op
}  // namespace tessera
