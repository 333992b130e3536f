// Ops that re-view x without reordering its elements: expand (numpy broadcasting to a
// target shape) and the reshapes squeeze, unsqueeze and flatten. Kernels write into
// the caller's output (the kernel interface has no views), so each is a copy: a plain
// one for the reshapes, a strided one for expand. Every output element is a copy of an
// input element, so all of them commute with the three partial reductions.
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

// ---- expand ----

// numpy.broadcast_to(x, shape), right-aligned; as in torch.Tensor.expand, -1 keeps
// x's dim on an axis x has.
Status ExpandShape(OpContext* ctx) {
  const Shape& x = ctx->input("x").shape;
  const std::vector<int64_t>& target = ctx->Ints("shape");
  const int nd = static_cast<int>(target.size());
  if (nd < x.ndim()) {
    return ctx->Error("attribute \"shape\" " + IntsToString(target) + " has " + std::to_string(nd) +
                      " dims but input \"x\" has shape " + x.ToString() + " (" +
                      std::to_string(x.ndim()) + " dims); expand cannot drop axes");
  }
  std::vector<int64_t> dims(target);
  for (int i = 0; i < nd; ++i) {
    const int j = i - (nd - x.ndim());
    const std::string where = "attribute \"shape\" " + IntsToString(target) + " has " +
                              std::to_string(target[i]) + " at axis " + std::to_string(i);
    if (j < 0) {
      if (target[i] < 0) return ctx->Error(where + "; a new leading axis needs a size >= 0");
      continue;
    }
    if (target[i] == -1) {
      dims[i] = x.dim(j);
    } else if (target[i] < 0) {
      return ctx->Error(where + "; sizes must be >= 0, or -1 to keep x's");
    } else if (x.dim(j) != target[i] && x.dim(j) != 1) {
      return ctx->Error(where + " but input \"x\" " + x.ToString() + " has " +
                        std::to_string(x.dim(j)) + " there; only size-1 axes expand");
    }
  }
  TESS_ASSIGN_OR_RETURN(Shape out, MakeShape(*ctx, dims, "attribute \"shape\""));
  *ctx->mutable_output("out") = {out, ctx->input("x").dtype};
  return Status::Ok();
}

void ExpandSignatures(const OpContext& ctx, SignatureList* list) {
  const Shape& x = ctx.input("x").shape;
  const Shape& out = ctx.output("out").shape;
  const int shift = out.ndim() - x.ndim();
  for (int i = 0; i < out.ndim(); ++i) {
    const int j = i - shift;
    if (j >= 0 && x.dim(j) == out.dim(i)) {
      // A kept axis: out's rows along it are copies of the same rows of x, so equal
      // balanced splits of both line up.
      list->NewBuilder().Split("x", j).Split("out", i).Build();
    } else if (out.dim(i) != 1) {
      // An expanded axis (absent from x, or size 1 there): every out row along it is a
      // copy of all of x's, so a rank holding the whole x makes any piece of out. The
      // kernel broadcasts x to the local output shape, which this split cuts.
      list->NewBuilder().Broadcast("x").Split("out", i).Build();
    }
  }
  PartialsPassThrough(list);
}

// ---- squeeze, unsqueeze, flatten ----

// The reshapes share reshape's splits (util.h) and pass partials through.
void ReshapeLikeSignatures(const OpContext& ctx, SignatureList* list) {
  ReshapeSplits(ctx, list);
  PartialsPassThrough(list);
}

// squeeze(axes): drops the named size-1 axes; [] drops every size-1 axis.
Status SqueezeShape(OpContext* ctx) {
  const Shape& x = ctx->input("x").shape;
  const std::vector<int64_t>& axes = ctx->Ints("axes");
  std::vector<bool> drop(static_cast<size_t>(x.ndim()), false);
  if (axes.empty()) {
    for (int i = 0; i < x.ndim(); ++i) drop[i] = x.dim(i) == 1;
  }
  for (int64_t a : axes) {
    TESS_ASSIGN_OR_RETURN(int axis, NormalizeAxis(*ctx, "axes", a, x.ndim(), "x"));
    if (drop[axis]) {
      return ctx->Error("attribute \"axes\" " + IntsToString(axes) + " names axis " +
                        std::to_string(axis) + " twice");
    }
    if (x.dim(axis) != 1) {
      return ctx->Error("attribute \"axes\" " + IntsToString(axes) + " names axis " +
                        std::to_string(axis) + " but input \"x\" " + x.ToString() + " has " +
                        std::to_string(x.dim(axis)) + " there; only size-1 axes squeeze");
    }
    drop[axis] = true;
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < x.ndim(); ++i) {
    if (!drop[i]) dims.push_back(x.dim(i));
  }
  TESS_ASSIGN_OR_RETURN(Shape out, MakeShape(*ctx, dims, "output shape"));
  *ctx->mutable_output("out") = {out, ctx->input("x").dtype};
  return Status::Ok();
}

// unsqueeze(axis): a size-1 axis inserted so that it is axis `axis` of the output,
// which has x's rank + 1 axes (so axis is in [-(ndim+1), ndim]).
Status UnsqueezeShape(OpContext* ctx) {
  const Shape& x = ctx->input("x").shape;
  const int64_t a = ctx->Int("axis");
  const int nd = x.ndim() + 1;
  if (a < -nd || a >= nd) {
    return ctx->Error("attribute \"axis\" is " + std::to_string(a) + " but the output of input " +
                      "\"x\" " + x.ToString() + " has " + std::to_string(nd) +
                      " axes; valid axes are " + std::to_string(-nd) + ".." +
                      std::to_string(nd - 1));
  }
  const int axis = static_cast<int>(a < 0 ? a + nd : a);
  std::vector<int64_t> dims = x.ToVector();
  dims.insert(dims.begin() + axis, 1);
  TESS_ASSIGN_OR_RETURN(Shape out, MakeShape(*ctx, dims, "output shape"));
  *ctx->mutable_output("out") = {out, ctx->input("x").dtype};
  return Status::Ok();
}

// flatten(start_axis, end_axis): axes start..end (inclusive) merged into one, as
// torch.flatten.
Status FlattenShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, "x", 1, /*at_least=*/true));
  const Shape& x = ctx->input("x").shape;
  TESS_ASSIGN_OR_RETURN(int start,
                        NormalizeAxis(*ctx, "start_axis", ctx->Int("start_axis"), x.ndim(), "x"));
  TESS_ASSIGN_OR_RETURN(int end,
                        NormalizeAxis(*ctx, "end_axis", ctx->Int("end_axis"), x.ndim(), "x"));
  if (start > end) {
    return ctx->Error("attribute \"start_axis\" (" + std::to_string(ctx->Int("start_axis")) +
                      ", axis " + std::to_string(start) + ") comes after \"end_axis\" (" +
                      std::to_string(ctx->Int("end_axis")) + ", axis " + std::to_string(end) +
                      ") for input \"x\" " + x.ToString());
  }
  std::vector<int64_t> dims;
  int64_t merged = 1;
  for (int i = 0; i < x.ndim(); ++i) {
    if (i < start || i > end) {
      dims.push_back(x.dim(i));
    } else {
      // No overflow: Shape::Make bounds the product of x's nonzero dims.
      merged *= x.dim(i);
      if (i == end) dims.push_back(merged);
    }
  }
  TESS_ASSIGN_OR_RETURN(Shape out, MakeShape(*ctx, dims, "output shape"));
  *ctx->mutable_output("out") = {out, ctx->input("x").dtype};
  return Status::Ok();
}

}  // namespace

Status RegisterViewOps(OpRegistry* r) {
  TESS_RETURN_IF_ERROR(
      r->Register(OpDef("expand")
                      .Input("x")
                      .Output("out")
                      .RequiredAttr("shape", AttrType::kInts)
                      .SetShapeFn(ExpandShape)
                      .SetSignatureFn(ExpandSignatures)
                      .SetGradFn(ExpandGrad)
                      .Doc("x broadcast to shape (numpy rules, -1 keeps a dim); a copy")));
  TESS_RETURN_IF_ERROR(r->Register(OpDef("squeeze")
                                       .Input("x")
                                       .Output("out")
                                       .Attr("axes", AttrValue::Ints({}))
                                       .SetShapeFn(SqueezeShape)
                                       .SetSignatureFn(ReshapeLikeSignatures)
                                       .SetGradFn(ReshapeGrad)
                                       .Doc("x without the size-1 axes named ([] = all); a copy")));
  TESS_RETURN_IF_ERROR(r->Register(OpDef("unsqueeze")
                                       .Input("x")
                                       .Output("out")
                                       .RequiredAttr("axis", AttrType::kInt)
                                       .SetShapeFn(UnsqueezeShape)
                                       .SetSignatureFn(ReshapeLikeSignatures)
                                       .SetGradFn(ReshapeGrad)
                                       .Doc("x with a size-1 axis inserted at axis; a copy")));
  return r->Register(OpDef("flatten")
                         .Input("x")
                         .Output("out")
                         .Attr("start_axis", AttrValue::Int(0))
                         .Attr("end_axis", AttrValue::Int(-1))
                         .SetShapeFn(FlattenShape)
                         .SetSignatureFn(ReshapeLikeSignatures)
                         .SetGradFn(ReshapeGrad)
                         .Doc("axes start_axis..end_axis merged into one; a copy"));
}

}  // namespace op
}  // namespace tessera
