// Losses over a batch of rows: nll_loss(log_probs [N, C], target [N]) and
// cross_entropy(logits [N, C], target [N]) = nll_loss(log_softmax(logits), target).
// reduction: 0 none (out [N]: each row's loss), 1 mean (out []: the sum over the
// batch divided by N), 2 sum (out []). Targets are i32 or i64 in [0, C).
#include <string>

#include "core/op/op_context.h"
#include "core/op/op_def.h"
#include "core/op/ops/grad_rules.h"
#include "core/op/ops/register_ops.h"
#include "core/op/ops/util.h"
#include "core/op/signature.h"

namespace tessera {
namespace op {
namespace {

constexpr int64_t kNone = 0, kMean = 1, kSum = 2;

Status LossShape(OpContext* ctx) {
  const char* scores = ctx->op_name() == "nll_loss" ? "log_probs" : "logits";
  TESS_RETURN_IF_ERROR(ExpectFloating(*ctx, scores));
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, scores, 2));
  TESS_RETURN_IF_ERROR(ExpectIndex(*ctx, "target"));
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, "target", 1));
  const Shape& s = ctx->input(scores).shape;
  const Shape& t = ctx->input("target").shape;
  if (t.dim(0) != s.dim(0)) {
    return ctx->Error("input \"target\" has shape " + t.ToString() + " but \"" + scores +
                      "\" has " + s.ToString() + "; target needs one class per row ([" +
                      std::to_string(s.dim(0)) + "])");
  }
  const int64_t reduction = ctx->Int("reduction");
  if (reduction != kNone && reduction != kMean && reduction != kSum) {
    return ctx->Error("attribute \"reduction\" is " + std::to_string(reduction) +
                      "; expected 0 (none), 1 (mean) or 2 (sum)");
  }
  *ctx->mutable_output("out") = {reduction == kNone ? Shape{s.dim(0)} : Shape{},
                                 ctx->input(scores).dtype};
  return Status::Ok();
}

// Rows are independent: a batch split keeps whole rows (and their targets) on each
// rank. With "none" each rank holds its rows' losses; with "sum" its rows' sum, and
// the sums of the parts add up to the whole (an empty part adds 0); with "mean" each
// rank divides its sum by the GLOBAL batch size (the kernel reads the logical shape),
// so the parts add up to the mean exactly, however unevenly the rows split.
void BatchSplit(const OpContext& ctx, SignatureList* list, const char* scores) {
  if (ctx.Int("reduction") == kNone) {
    list->NewBuilder().Split(scores, 0).Split("target", 0).Split("out", 0).Build();
  } else {
    list->NewBuilder().Split(scores, 0).Split("target", 0).PartialSum("out").Build();
  }
}

void NllLossSignatures(const OpContext& ctx, SignatureList* list) {
  BatchSplit(ctx, list, "log_probs");
  // Linear in log_probs for fixed targets: -(sum_r lp_r)[i, t_i] = sum_r -lp_r[i, t_i],
  // and sums and means of those are linear too.
  list->NewBuilder().PartialSum("log_probs").Broadcast("target").PartialSum("out").Build();
  if (ctx.Int("reduction") == kNone) {
    // Each loss is -lp[i, t_i], non-increasing in lp: max turns into min and back.
    list->NewBuilder().PartialMax("log_probs").Broadcast("target").PartialMin("out").Build();
    list->NewBuilder().PartialMin("log_probs").Broadcast("target").PartialMax("out").Build();
  }
}

void CrossEntropySignatures(const OpContext& ctx, SignatureList* list) {
  // Batch splits only: log_softmax over a row is neither linear nor monotone in each
  // logit, so no partial logits; a class split would normalise by a per-rank sum.
  BatchSplit(ctx, list, "logits");
}

}  // namespace

Status RegisterLossOps(OpRegistry* r) {
  TESS_RETURN_IF_ERROR(r->Register(
      OpDef("nll_loss")
          .Input("log_probs")
          .Input("target")
          .Output("out")
          .Attr("reduction", AttrValue::Int(kMean))
          .SetShapeFn(LossShape)
          .SetSignatureFn(NllLossSignatures)
          .SetGradFn(NllLossGrad)
          .Doc("-log_probs[i, target[i]] per row [N,C]; reduction 0 none, 1 mean, 2 sum")));
  return r->Register(
      OpDef("cross_entropy")
          .Input("logits")
          .Input("target")
          .Output("out")
          .Attr("reduction", AttrValue::Int(kMean))
          .SetShapeFn(LossShape)
          .SetSignatureFn(CrossEntropySignatures)
          .SetGradFn(CrossEntropyGrad)
          .Doc("nll_loss(log_softmax(logits), target); reduction 0 none, 1 mean, 2 sum"));
}

}  // namespace op
}  // namespace tessera
