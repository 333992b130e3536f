// Elementwise ops: unary math (abs, log, sin, cos included), scalar_add / scalar_mul,
// numpy-broadcasting binary ops (pow included), add_n, identity and cast.
//
// Partial values and monotone maps: for a non-decreasing f, f(max_r x_r) =
// max_r f(x_r) and f(min_r x_r) = min_r f(x_r), so f maps P(max) to P(max) and
// P(min) to P(min); a non-increasing f swaps them. A map commutes with P (sum) only
// when it is linear.
#include <cmath>

#include "core/op/op_context.h"
#include "core/op/op_def.h"
#include "core/op/ops/grad_rules.h"
#include "core/op/ops/register_ops.h"
#include "core/op/ops/util.h"
#include "core/op/signature.h"

namespace tessera {
namespace op {
namespace {

// ---- shapes ----

Status SameAsInput(OpContext* ctx) {
  *ctx->mutable_output("out") = ctx->input("x");
  return Status::Ok();
}

Status SameAsFloatInput(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectFloating(*ctx, "x"));
  return SameAsInput(ctx);
}

Status CastShape(OpContext* ctx) {
  *ctx->mutable_output("out") = {ctx->input("x").shape, ctx->DTypeAttr("dtype")};
  return Status::Ok();
}

Status BroadcastBinaryShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectSameDType(*ctx, "y", "x"));
  TESS_ASSIGN_OR_RETURN(Shape out, BroadcastShape(*ctx, {"x", "y"}));
  *ctx->mutable_output("out") = {out, ctx->input("x").dtype};
  return Status::Ok();
}

// pow: x^y is defined by the floating types' pow (a negative base with a fractional
// exponent is NaN), so integer inputs are refused rather than truncated.
Status FloatBroadcastBinaryShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectFloating(*ctx, "x"));
  return BroadcastBinaryShape(ctx);
}

Status AddNShape(OpContext* ctx) {
  const TensorDesc& first = ctx->input("in", 0);
  for (int i = 1; i < ctx->input_count("in"); ++i) {
    const TensorDesc& d = ctx->input("in", i);
    std::string name = "in[" + std::to_string(i) + "]";
    if (d.shape != first.shape) {
      return ctx->Error("input \"" + name + "\" has shape " + d.shape.ToString() +
                        " but \"in[0]\" has " + first.shape.ToString() +
                        "; add_n does not broadcast");
    }
    if (d.dtype != first.dtype) {
      return ctx->Error("input \"" + name + "\" has dtype " + DTypeName(d.dtype) +
                        " but \"in[0]\" has " + DTypeName(first.dtype));
    }
  }
  *ctx->mutable_output("out") = first;
  return Status::Ok();
}

// ---- signatures ----

// Output element e depends only on input element e (after broadcasting), so any
// axis can be split the same way on every operand.
void SplitEveryAxis(const OpContext& ctx, SignatureList* list) {
  for (int i = 0; i < ctx.input(0).shape.ndim(); ++i) {
    list->NewBuilder().Split(AllInputs(), i).Split(AllOutputs(), i).Build();
  }
}

void PartialMaxMinPreserved(SignatureList* list) {
  // Non-decreasing map: f(max_r x_r) = max_r f(x_r).
  list->NewBuilder().PartialMax("x").PartialMax("out").Build();
  // Non-decreasing map: f(min_r x_r) = min_r f(x_r).
  list->NewBuilder().PartialMin("x").PartialMin("out").Build();
}

void PartialMaxMinSwapped(SignatureList* list) {
  // Non-increasing map: f(max_r x_r) = min_r f(x_r).
  list->NewBuilder().PartialMax("x").PartialMin("out").Build();
  // Non-increasing map: f(min_r x_r) = max_r f(x_r).
  list->NewBuilder().PartialMin("x").PartialMax("out").Build();
}

// gelu (x * Phi(x)) is not monotone (it dips below 0 near x = -0.75) and not
// linear: splits only. Likewise sin and cos (periodic: sin 0 = sin pi, and
// sin(pi/2 + pi/2) = 0 but sin(pi/2) + sin(pi/2) = 2).
void SplitOnlySignatures(const OpContext& ctx, SignatureList* list) { SplitEveryAxis(ctx, list); }

// abs: splits only. |x| is not monotone (-2 < 1 but |-2| > |1|), so it commutes with
// neither max_r nor min_r: P(max) of locals {-3, -1} is -1 with |-1| = 1, while the
// max of |-3|, |-1| is 3. Nor is it linear: |(-1) + 1| = 0 but |-1| + |1| = 2, so no
// P (sum). B is the framework's.
void AbsSignatures(const OpContext& ctx, SignatureList* list) { SplitEveryAxis(ctx, list); }

// relu, exp, tanh, sigmoid: non-decreasing on all of R.
void MonotoneSignatures(const OpContext& ctx, SignatureList* list) {
  SplitEveryAxis(ctx, list);
  PartialMaxMinPreserved(list);
}

// sqrt is non-decreasing on its domain [0, inf), log on [0, inf) too (log 0 = -inf,
// the least value). Under P(min) every local is >= the logical value, so all locals
// are in the domain when the logical value is (and when it is not, the least local is
// outside too: NaN, which min propagates); under P(max) a local may be negative (NaN)
// while the logical value is not, so P(max) is not declared.
void SqrtSignatures(const OpContext& ctx, SignatureList* list) {
  SplitEveryAxis(ctx, list);
  // Non-decreasing on the domain, and every local >= logical >= 0.
  list->NewBuilder().PartialMin("x").PartialMin("out").Build();
}

void NegSignatures(const OpContext& ctx, SignatureList* list) {
  SplitEveryAxis(ctx, list);
  // Linear: -(sum_r x_r) = sum_r (-x_r).
  list->NewBuilder().PartialSum("x").PartialSum("out").Build();
  PartialMaxMinSwapped(list);
}

void ScalarAddSignatures(const OpContext& ctx, SignatureList* list) {
  SplitEveryAxis(ctx, list);
  // x + c is non-decreasing in x. (P (sum) is not declared: sum_r (x_r + c) adds c
  // once per rank.)
  PartialMaxMinPreserved(list);
}

void ScalarMulSignatures(const OpContext& ctx, SignatureList* list) {
  SplitEveryAxis(ctx, list);
  const double c = ctx.Float("value");
  if (!std::isfinite(c)) return;  // inf * 0 and inf - inf break every identity below
  const bool integral = c == std::floor(c);
  if (IsFloating(ctx.input("x").dtype) || integral) {
    // Linear: c * sum_r x_r = sum_r c x_r (integer tensors only for an integral c,
    // where no per-rank truncation happens).
    list->NewBuilder().PartialSum("x").PartialSum("out").Build();
  }
  if (c >= 0) {
    PartialMaxMinPreserved(list);  // c >= 0: x -> c x is non-decreasing
  } else {
    PartialMaxMinSwapped(list);  // c < 0: x -> c x is non-increasing
  }
}

void IdentitySignatures(const OpContext& ctx, SignatureList* list) {
  SplitEveryAxis(ctx, list);
  // The identity commutes with every reduction.
  list->NewBuilder().PartialSum("x").PartialSum("out").Build();
  PartialMaxMinPreserved(list);
}

void CastSignatures(const OpContext& ctx, SignatureList* list) {
  SplitEveryAxis(ctx, list);
  // Conversions (rounding, truncation, widening) are non-decreasing.
  PartialMaxMinPreserved(list);
  if (ctx.DTypeAttr("dtype") == ctx.input("x").dtype) {
    // Same dtype: the cast is the identity, which is linear. (Across dtypes the sum
    // of rounded parts differs from the rounded sum.)
    list->NewBuilder().PartialSum("x").PartialSum("out").Build();
  }
}

void AddNSignatures(const OpContext& ctx, SignatureList* list) {
  SplitEveryAxis(ctx, list);
  // Sum of sums: sum_i sum_r in_i,r = sum_r sum_i in_i,r.
  list->NewBuilder().PartialSum(AllInputs()).PartialSum("out").Build();
}

void BroadcastSplits(const OpContext& ctx, SignatureList* list) {
  BroadcastSplits(ctx, list, {"x", "y"});
}

void AddSignatures(const OpContext& ctx, SignatureList* list) {
  BroadcastSplits(ctx, list);
  // Linear: sum_r x_r + sum_r y_r = sum_r (x_r + y_r) (broadcasting is linear too).
  list->NewBuilder().PartialSum("x").PartialSum("y").PartialSum("out").Build();
  // x + y is non-decreasing in x for a fixed y: max_r x_r + y = max_r (x_r + y).
  list->NewBuilder().PartialMax("x").Broadcast("y").PartialMax("out").Build();
  list->NewBuilder().Broadcast("x").PartialMax("y").PartialMax("out").Build();
  // Same, for min.
  list->NewBuilder().PartialMin("x").Broadcast("y").PartialMin("out").Build();
  list->NewBuilder().Broadcast("x").PartialMin("y").PartialMin("out").Build();
}

void SubSignatures(const OpContext& ctx, SignatureList* list) {
  BroadcastSplits(ctx, list);
  // Linear: sum_r x_r - sum_r y_r = sum_r (x_r - y_r).
  list->NewBuilder().PartialSum("x").PartialSum("y").PartialSum("out").Build();
  // Non-decreasing in x: max_r x_r - y = max_r (x_r - y); likewise min.
  list->NewBuilder().PartialMax("x").Broadcast("y").PartialMax("out").Build();
  list->NewBuilder().PartialMin("x").Broadcast("y").PartialMin("out").Build();
  // Non-increasing in y: x - max_r y_r = min_r (x - y_r); x - min_r y_r = max_r (x - y_r).
  list->NewBuilder().Broadcast("x").PartialMax("y").PartialMin("out").Build();
  list->NewBuilder().Broadcast("x").PartialMin("y").PartialMax("out").Build();
}

void MulSignatures(const OpContext& ctx, SignatureList* list) {
  BroadcastSplits(ctx, list);
  // Linear in x for a fixed y: (sum_r x_r) y = sum_r x_r y. (No P(max): y may be
  // negative.)
  list->NewBuilder().PartialSum("x").Broadcast("y").PartialSum("out").Build();
  // Linear in y for a fixed x.
  list->NewBuilder().Broadcast("x").PartialSum("y").PartialSum("out").Build();
}

void DivSignatures(const OpContext& ctx, SignatureList* list) {
  BroadcastSplits(ctx, list);
  if (IsFloating(ctx.input("x").dtype)) {
    // Linear in x for a fixed y: (sum_r x_r) / y = sum_r x_r / y. Integer division
    // truncates per rank, so floating types only.
    list->NewBuilder().PartialSum("x").Broadcast("y").PartialSum("out").Build();
  }
}

// `kSame` is P(max) for maximum and P(min) for minimum; `kOther` the other one.
template <SbpKind kSame, SbpKind kOther>
void ExtremumSignatures(const OpContext& ctx, SignatureList* list) {
  BroadcastSplits(ctx, list);
  const Sbp same{kSame, 0};
  const Sbp other{kOther, 0};
  // Associativity: max(max_r x_r, max_r y_r) = max_r max(x_r, y_r) (as min for min).
  list->NewBuilder().Set("x", same).Set("y", same).Set("out", same).Build();
  // max(., y) is non-decreasing, so it commutes with both max_r and min_r (likewise
  // min(., y)).
  list->NewBuilder().Set("x", same).Broadcast("y").Set("out", same).Build();
  list->NewBuilder().Broadcast("x").Set("y", same).Set("out", same).Build();
  list->NewBuilder().Set("x", other).Broadcast("y").Set("out", other).Build();
  list->NewBuilder().Broadcast("x").Set("y", other).Set("out", other).Build();
}

// pow: splits and broadcasts like the other binary ops, no partial. x^y is linear in
// neither operand ((1 + 1)^2 = 4 but 1^2 + 1^2 = 2; 2^(0 + 1) = 2 but 2^0 + 2^1 = 3),
// and monotone in neither on all of R (x^2 falls then rises; (-2)^y alternates in sign,
// and for 0 < x < 1, x^y falls as y rises), so P, P(max) and P(min) all fail.
void PowSignatures(const OpContext& ctx, SignatureList* list) { BroadcastSplits(ctx, list); }

Status RegisterUnary(OpRegistry* r, const char* name, ShapeFn shape, SignatureFn sigs,
                     const char* doc, GradFn grad = nullptr) {
  return r->Register(OpDef(name)
                         .Input("x")
                         .Output("out")
                         .SetShapeFn(shape)
                         .SetSignatureFn(sigs)
                         .SetGradFn(grad)
                         .Doc(doc));
}

Status RegisterBinary(OpRegistry* r, const char* name, SignatureFn sigs, const char* doc,
                      GradFn grad = nullptr, ShapeFn shape = BroadcastBinaryShape) {
  return r->Register(OpDef(name)
                         .Input("x")
                         .Input("y")
                         .Output("out")
                         .SetShapeFn(shape)
                         .SetSignatureFn(sigs)
                         .SetGradFn(grad)
                         .Doc(doc));
}

}  // namespace

Status RegisterElementwiseOps(OpRegistry* r) {
  TESS_RETURN_IF_ERROR(
      RegisterUnary(r, "relu", SameAsInput, MonotoneSignatures, "max(x, 0)", ReluGrad));
  TESS_RETURN_IF_ERROR(
      RegisterUnary(r, "gelu", SameAsFloatInput, SplitOnlySignatures, "x * Phi(x)", GeluGrad));
  TESS_RETURN_IF_ERROR(
      RegisterUnary(r, "exp", SameAsFloatInput, MonotoneSignatures, "e^x", ExpGrad));
  TESS_RETURN_IF_ERROR(RegisterUnary(r, "neg", SameAsInput, NegSignatures, "-x", NegGrad));
  TESS_RETURN_IF_ERROR(
      RegisterUnary(r, "sqrt", SameAsFloatInput, SqrtSignatures, "sqrt(x)", SqrtGrad));
  TESS_RETURN_IF_ERROR(RegisterUnary(r, "log", SameAsFloatInput, SqrtSignatures,
                                     "natural log of x; floating types", LogGrad));
  TESS_RETURN_IF_ERROR(RegisterUnary(r, "sin", SameAsFloatInput, SplitOnlySignatures,
                                     "sin(x); floating types", SinGrad));
  TESS_RETURN_IF_ERROR(RegisterUnary(r, "cos", SameAsFloatInput, SplitOnlySignatures,
                                     "cos(x); floating types", CosGrad));
  TESS_RETURN_IF_ERROR(
      RegisterUnary(r, "tanh", SameAsFloatInput, MonotoneSignatures, "tanh(x)", TanhGrad));
  TESS_RETURN_IF_ERROR(RegisterUnary(r, "sigmoid", SameAsFloatInput, MonotoneSignatures,
                                     "1 / (1 + e^-x)", SigmoidGrad));
  TESS_RETURN_IF_ERROR(
      RegisterUnary(r, "identity", SameAsInput, IdentitySignatures, "x", IdentityGrad));
  TESS_RETURN_IF_ERROR(
      RegisterUnary(r, "abs", SameAsInput, AbsSignatures, "elementwise |x|", AbsGrad));
  TESS_RETURN_IF_ERROR(r->Register(OpDef("scalar_add")
                                       .Input("x")
                                       .Output("out")
                                       .RequiredAttr("value", AttrType::kFloat)
                                       .SetShapeFn(SameAsInput)
                                       .SetSignatureFn(ScalarAddSignatures)
                                       .SetGradFn(ScalarAddGrad)
                                       .Doc("x + value")));
  TESS_RETURN_IF_ERROR(r->Register(OpDef("scalar_mul")
                                       .Input("x")
                                       .Output("out")
                                       .RequiredAttr("value", AttrType::kFloat)
                                       .SetShapeFn(SameAsInput)
                                       .SetSignatureFn(ScalarMulSignatures)
                                       .SetGradFn(ScalarMulGrad)
                                       .Doc("x * value")));
  TESS_RETURN_IF_ERROR(r->Register(OpDef("cast")
                                       .Input("x")
                                       .Output("out")
                                       .RequiredAttr("dtype", AttrType::kDType)
                                       .SetShapeFn(CastShape)
                                       .SetSignatureFn(CastSignatures)
                                       .SetGradFn(CastGrad)
                                       .Doc("x converted to dtype")));
  TESS_RETURN_IF_ERROR(r->Register(OpDef("add_n")
                                       .RepeatedInput("in", 2)
                                       .Output("out")
                                       .SetShapeFn(AddNShape)
                                       .SetSignatureFn(AddNSignatures)
                                       .SetGradFn(AddNGrad)
                                       .Doc("sum of k >= 2 same-shape inputs")));
  TESS_RETURN_IF_ERROR(
      RegisterBinary(r, "add", AddSignatures, "x + y, numpy broadcasting", AddGrad));
  TESS_RETURN_IF_ERROR(
      RegisterBinary(r, "sub", SubSignatures, "x - y, numpy broadcasting", SubGrad));
  TESS_RETURN_IF_ERROR(
      RegisterBinary(r, "mul", MulSignatures, "x * y, numpy broadcasting", MulGrad));
  TESS_RETURN_IF_ERROR(
      RegisterBinary(r, "div", DivSignatures, "x / y, numpy broadcasting", DivGrad));
  TESS_RETURN_IF_ERROR(RegisterBinary(r, "pow", PowSignatures,
                                      "x^y elementwise, numpy broadcasting; floating types",
                                      PowGrad, FloatBroadcastBinaryShape));
  TESS_RETURN_IF_ERROR(
      RegisterBinary(r, "maximum", ExtremumSignatures<SbpKind::kPartialMax, SbpKind::kPartialMin>,
                     "elementwise max(x, y), numpy broadcasting", ExtremumGrad));
  return RegisterBinary(r, "minimum",
                        ExtremumSignatures<SbpKind::kPartialMin, SbpKind::kPartialMax>,
                        "elementwise min(x, y), numpy broadcasting", ExtremumGrad);
}

}  // namespace op
}  // namespace tessera
