// Comparisons (equal, not_equal, less, less_equal, greater, greater_equal) producing
// bool, and where(cond, x, y); all with numpy broadcasting.
//
// A comparison's output is bool, which has no partial (dtype.h), and x < y is linear in
// neither operand, so comparisons split only. where picks, element by element, one of
// two values: that commutes with sums over x and y together and with max and min.
#include "core/op/op_context.h"
#include "core/op/op_def.h"
#include "core/op/ops/grad_rules.h"
#include "core/op/ops/register_ops.h"
#include "core/op/ops/util.h"
#include "core/op/signature.h"

namespace tessera {
namespace op {
namespace {

// Any two inputs of one dtype (bool included: equal and not_equal of masks; the
// orderings of false < true as numpy).
Status CompareShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectSameDType(*ctx, "y", "x"));
  TESS_ASSIGN_OR_RETURN(Shape out, BroadcastShape(*ctx, {"x", "y"}));
  *ctx->mutable_output("out") = {out, DType::kBool};
  return Status::Ok();
}

void CompareSignatures(const OpContext& ctx, SignatureList* list) {
  // Output element e compares input elements e (after broadcasting) only.
  BroadcastSplits(ctx, list, {"x", "y"});
}

Status WhereShape(OpContext* ctx) {
  const DType c = ctx->input("cond").dtype;
  if (c != DType::kBool) {
    return ctx->Error(std::string("input \"cond\" has dtype ") + DTypeName(c) +
                      "; expected bool (a comparison's output, or cast to bool)");
  }
  TESS_RETURN_IF_ERROR(ExpectSameDType(*ctx, "y", "x"));
  TESS_ASSIGN_OR_RETURN(Shape out, BroadcastShape(*ctx, {"cond", "x", "y"}));
  *ctx->mutable_output("out") = {out, ctx->input("x").dtype};
  return Status::Ok();
}

void WhereSignatures(const OpContext& ctx, SignatureList* list) {
  // Output element e reads element e (after broadcasting) of each operand only.
  BroadcastSplits(ctx, list, {"cond", "x", "y"});
  // With cond whole on every rank, each element picks x or y from every rank alike:
  // where(c, sum_r x_r, sum_r y_r) = sum_r where(c, x_r, y_r), and the same for max
  // and min. (The framework drops these for bool x and y, which are never partial.)
  list->NewBuilder().Broadcast("cond").PartialSum("x").PartialSum("y").PartialSum("out").Build();
  list->NewBuilder().Broadcast("cond").PartialMax("x").PartialMax("y").PartialMax("out").Build();
  list->NewBuilder().Broadcast("cond").PartialMin("x").PartialMin("y").PartialMin("out").Build();
}

}  // namespace

Status RegisterCompareOps(OpRegistry* r) {
  const struct {
    const char* name;
    const char* doc;
  } compares[] = {
      {"equal", "x == y -> bool, numpy broadcasting"},
      {"not_equal", "x != y -> bool, numpy broadcasting"},
      {"less", "x < y -> bool, numpy broadcasting"},
      {"less_equal", "x <= y -> bool, numpy broadcasting"},
      {"greater", "x > y -> bool, numpy broadcasting"},
      {"greater_equal", "x >= y -> bool, numpy broadcasting"},
  };
  for (const auto& c : compares) {
    TESS_RETURN_IF_ERROR(r->Register(OpDef(c.name)
                                         .Input("x")
                                         .Input("y")
                                         .Output("out")
                                         .SetShapeFn(CompareShape)
                                         .SetSignatureFn(CompareSignatures)
                                         .Doc(c.doc)));
  }
  return r->Register(OpDef("where")
                         .Input("cond")
                         .Input("x")
                         .Input("y")
                         .Output("out")
                         .SetShapeFn(WhereShape)
                         .SetSignatureFn(WhereSignatures)
                         .SetGradFn(WhereGrad)
                         .Doc("cond ? x : y elementwise (cond bool), numpy broadcasting"));
}

}  // namespace op
}  // namespace tessera
