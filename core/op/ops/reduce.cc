// Reductions over a set of axes (reduce_sum, reduce_mean, reduce_max, reduce_min, var,
// std) and the last-axis-style normalisations softmax and log_softmax.
#include <string>
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

// reduced[i] for every axis of x. An empty "axes" reduces every axis.
Result<std::vector<bool>> ReducedAxes(const OpContext& ctx) {
  const int nd = ctx.input("x").shape.ndim();
  const std::vector<int64_t>& axes = ctx.Ints("axes");
  std::vector<bool> reduced(static_cast<size_t>(nd), axes.empty());
  for (int64_t a : axes) {
    TESS_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, "axes", a, nd, "x"));
    if (reduced[axis]) {
      return ctx.Error("attribute \"axes\" " + IntsToString(axes) + " names axis " +
                       std::to_string(axis) + " twice");
    }
    reduced[axis] = true;
  }
  return reduced;
}

Status ReduceShape(OpContext* ctx) {
  if (ctx->op_name() != "reduce_sum" && ctx->op_name() != "reduce_max" &&
      ctx->op_name() != "reduce_min") {
    TESS_RETURN_IF_ERROR(ExpectFloating(*ctx, "x"));  // reduce_mean, var, std
  }
  TESS_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReducedAxes(*ctx));
  const Shape& x = ctx->input("x").shape;
  const bool keepdims = ctx->Bool("keepdims");
  std::vector<int64_t> dims;
  for (int i = 0; i < x.ndim(); ++i) {
    if (!reduced[i]) {
      dims.push_back(x.dim(i));
    } else if (keepdims) {
      dims.push_back(1);
    }
  }
  TESS_ASSIGN_OR_RETURN(Shape out, MakeShape(*ctx, dims, "output shape"));
  *ctx->mutable_output("out") = {out, ctx->input("x").dtype};
  return Status::Ok();
}

// Kept axes: every output element reduces one slice along the reduced axes, and a
// split of a kept axis keeps whole slices on each rank. Returns reduced[].
std::vector<bool> KeptAxisSplits(const OpContext& ctx, SignatureList* list) {
  // The shape function already validated the axes.
  std::vector<bool> reduced = *ReducedAxes(ctx);
  const bool keepdims = ctx.Bool("keepdims");
  int out_axis = 0;
  for (size_t i = 0; i < reduced.size(); ++i) {
    if (!reduced[i]) {
      // Whole reduction slices stay on one rank.
      list->NewBuilder().Split("x", static_cast<int>(i)).Split("out", out_axis).Build();
    }
    if (!reduced[i] || keepdims) ++out_axis;
  }
  return reduced;
}

void ReduceSumSignatures(const OpContext& ctx, SignatureList* list) {
  std::vector<bool> reduced = KeptAxisSplits(ctx, list);
  for (size_t i = 0; i < reduced.size(); ++i) {
    // A sum over a split axis is the sum of the per-rank sums (an empty part sums
    // to 0).
    if (reduced[i]) list->NewBuilder().Split("x", static_cast<int>(i)).PartialSum("out").Build();
  }
  // Linear: sum over axes of sum_r x_r = sum_r (sum over axes of x_r).
  list->NewBuilder().PartialSum("x").PartialSum("out").Build();
}

void ReduceMeanSignatures(const OpContext& ctx, SignatureList* list) {
  KeptAxisSplits(ctx, list);
  // Linear: the mean of sum_r x_r is sum_r mean(x_r). A split reduced axis is not
  // declared: each rank would divide by its own (possibly uneven) count, and the
  // logical mean needs the global count.
  list->NewBuilder().PartialSum("x").PartialSum("out").Build();
}

// `kKind` is P(max) for reduce_max, P(min) for reduce_min.
template <SbpKind kKind>
void ReduceExtremumSignatures(const OpContext& ctx, SignatureList* list) {
  std::vector<bool> reduced = KeptAxisSplits(ctx, list);
  const Sbp partial{kKind, 0};
  for (size_t i = 0; i < reduced.size(); ++i) {
    // The max over a split axis is the max of the per-rank maxima (an empty part
    // yields the identity, -inf / the type's lowest, as the kernel's empty max).
    if (reduced[i]) list->NewBuilder().Split("x", static_cast<int>(i)).Set("out", partial).Build();
  }
  // Max is associative: max over axes of max_r x_r = max_r of the per-rank maxima.
  list->NewBuilder().Set("x", partial).Set("out", partial).Build();
}

// var, std: sum((x - mean)^2) / (count - correction), then sqrt for std.
Status VarShape(OpContext* ctx) {
  if (ctx->Int("correction") < 0) {
    return ctx->Error("attribute \"correction\" is " + std::to_string(ctx->Int("correction")) +
                      "; it must be >= 0 (1: unbiased, 0: the population variance)");
  }
  return ReduceShape(ctx);
}

void VarSignatures(const OpContext& ctx, SignatureList* list) {
  // Kept-axis splits only: the variance of a split reduced axis needs the global mean,
  // and (x - mean)^2 is linear in nothing, so neither a split reduced axis nor any
  // partial input gives per-rank parts that add, max or min up to it.
  KeptAxisSplits(ctx, list);
}

Status SoftmaxShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectFloating(*ctx, "x"));
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, "x", 1, /*at_least=*/true));
  TESS_RETURN_IF_ERROR(
      NormalizeAxis(*ctx, "axis", ctx->Int("axis"), ctx->input("x").shape.ndim(), "x"));
  *ctx->mutable_output("out") = ctx->input("x");
  return Status::Ok();
}

void SoftmaxSignatures(const OpContext& ctx, SignatureList* list) {
  const int nd = ctx.input("x").shape.ndim();
  const int axis = *NormalizeAxis(ctx, "axis", ctx.Int("axis"), nd, "x");
  for (int i = 0; i < nd; ++i) {
    // Each softmax row (along `axis`) stays whole on one rank. Splitting `axis`
    // itself would normalise by a per-rank sum, and softmax is neither linear nor
    // monotone in each element, so no partial signature holds.
    if (i != axis) list->NewBuilder().Split("x", i).Split("out", i).Build();
  }
}

Status RegisterReduce(OpRegistry* r, const char* name, SignatureFn sigs, const char* doc,
                      GradFn grad = nullptr) {
  return r->Register(OpDef(name)
                         .Input("x")
                         .Output("out")
                         .Attr("axes", AttrValue::Ints({}))
                         .Attr("keepdims", AttrValue::Bool(false))
                         .SetShapeFn(ReduceShape)
                         .SetSignatureFn(sigs)
                         .SetGradFn(grad)
                         .Doc(doc));
}

}  // namespace

Status RegisterReduceOps(OpRegistry* r) {
  TESS_RETURN_IF_ERROR(RegisterReduce(r, "reduce_sum", ReduceSumSignatures,
                                      "sum over axes ([] = all axes)", ReduceSumGrad));
  TESS_RETURN_IF_ERROR(RegisterReduce(r, "reduce_mean", ReduceMeanSignatures,
                                      "mean over axes ([] = all axes); floating types",
                                      ReduceMeanGrad));
  TESS_RETURN_IF_ERROR(RegisterReduce(r, "reduce_max",
                                      ReduceExtremumSignatures<SbpKind::kPartialMax>,
                                      "max over axes ([] = all axes)", ReduceExtremumGrad));
  TESS_RETURN_IF_ERROR(RegisterReduce(r, "reduce_min",
                                      ReduceExtremumSignatures<SbpKind::kPartialMin>,
                                      "min over axes ([] = all axes)", ReduceExtremumGrad));
  for (const char* name : {"var", "std"}) {
    TESS_RETURN_IF_ERROR(r->Register(
        OpDef(name)
            .Input("x")
            .Output("out")
            .Attr("axes", AttrValue::Ints({}))
            .Attr("correction", AttrValue::Int(1))
            .Attr("keepdims", AttrValue::Bool(false))
            .SetShapeFn(VarShape)
            .SetSignatureFn(VarSignatures)
            .SetGradFn(VarGrad)
            .Doc(std::string(name == std::string("var") ? "variance" : "standard deviation") +
                 " over axes ([] = all): divides by count - correction (1: unbiased); "
                 "floating types")));
  }
  for (const char* name : {"softmax", "log_softmax"}) {
    TESS_RETURN_IF_ERROR(
        r->Register(OpDef(name)
                        .Input("x")
                        .Output("out")
                        .Attr("axis", AttrValue::Int(-1))
                        .SetShapeFn(SoftmaxShape)
                        .SetSignatureFn(SoftmaxSignatures)
                        .SetGradFn(std::string(name) == "softmax" ? SoftmaxGrad : LogSoftmaxGrad)
                        .Doc("normalised exponentials along axis")));
  }
  return Status::Ok();
}

}  // namespace op
}  // namespace tessera
