// Backward-only ops that scatter a gradient back into a larger zero tensor:
//   gather_grad(dout, indices; axis, size): the gradient of gather's params (and of
//     embedding's weight with axis 0): zeros of shape dout[:axis] + [size] +
//     dout[axis + indices.ndim:], with each dout row added at the row its index names
//     (an unsorted segment sum; repeated indices add up).
//   slice_grad(dout; shape, start, step): zeros of `shape` with dout written at the
//     sliced positions start + k * step (start normalised, in [0, dim]). A shape
//     entry of -1 marks an axis slice took whole (start 0, step 1): its dim is
//     dout's, so a split of it carries over and each rank's kernel sees its own part.
#include <string>
#include <vector>

#include "core/op/op_context.h"
#include "core/op/op_def.h"
#include "core/op/ops/register_ops.h"
#include "core/op/ops/util.h"
#include "core/op/signature.h"

namespace tessera {
namespace op {
namespace {

// ---- gather_grad ----

Status GatherGradShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectFloating(*ctx, "dout"));
  TESS_RETURN_IF_ERROR(ExpectIndex(*ctx, "indices"));
  const Shape& d = ctx->input("dout").shape;
  const Shape& idx = ctx->input("indices").shape;
  const int64_t axis = ctx->Int("axis");
  const int64_t size = ctx->Int("size");
  if (axis < 0 || axis + idx.ndim() > d.ndim()) {
    return ctx->Error("attribute \"axis\" " + std::to_string(axis) + " with input \"indices\" " +
                      idx.ToString() + " does not fit input \"dout\" " + d.ToString());
  }
  if (size < 0) return ctx->Error("attribute \"size\" is " + std::to_string(size) + "; needs >= 0");
  const int ax = static_cast<int>(axis);
  for (int k = 0; k < idx.ndim(); ++k) {
    if (d.dim(ax + k) != idx.dim(k)) {
      return ctx->Error("input \"dout\" has shape " + d.ToString() + " but \"indices\" " +
                        idx.ToString() + " at axis " + std::to_string(axis) + " needs dim " +
                        std::to_string(idx.dim(k)) + " at axis " + std::to_string(ax + k));
    }
  }
  // dout[:axis] + [size] + dout[axis + indices.ndim:], as gather's params.
  std::vector<int64_t> dims(d.data(), d.data() + ax);
  dims.push_back(size);
  dims.insert(dims.end(), d.data() + ax + idx.ndim(), d.data() + d.ndim());
  TESS_ASSIGN_OR_RETURN(Shape out, MakeShape(*ctx, dims, "output shape"));
  *ctx->mutable_output("dx") = {out, ctx->input("dout").dtype};
  return Status::Ok();
}

// The transposes of gather's signatures.
void GatherGradSignatures(const OpContext& ctx, SignatureList* list) {
  const int nd = ctx.input("dout").shape.ndim();
  const int ni = ctx.input("indices").shape.ndim();
  const int axis = static_cast<int>(ctx.Int("axis"));
  for (int i = 0; i < ni; ++i) {
    // Each rank scatters its own examples into a whole table; the tables add up to
    // the full scatter (the gradient of a B table used by split indices is P).
    list->NewBuilder().Split("indices", i).Split("dout", axis + i).PartialSum("dx").Build();
  }
  for (int j = 0; j < nd - ni + 1; ++j) {
    if (j == axis) continue;
    // A non-gathered axis is carried through unchanged.
    list->NewBuilder()
        .Split("dout", j < axis ? j : j + ni - 1)
        .Broadcast("indices")
        .Split("dx", j)
        .Build();
  }
  // Linear in dout: scatter(sum_r dout_r) = sum_r scatter(dout_r).
  list->NewBuilder().PartialSum("dout").Broadcast("indices").PartialSum("dx").Build();
}

// ---- slice_grad ----

// The output dims: `shape` with each -1 (an axis taken whole) as dout's dim.
Result<std::vector<int64_t>> SliceGradDims(const OpContext& ctx) {
  const Shape& d = ctx.input("dout").shape;
  for (const char* name : {"shape", "start", "step"}) {
    if (static_cast<int>(ctx.Ints(name).size()) != d.ndim()) {
      return ctx.Error("attribute \"" + std::string(name) + "\" " + IntsToString(ctx.Ints(name)) +
                       " has " + std::to_string(ctx.Ints(name).size()) +
                       " entries but input \"dout\" " + d.ToString() + " has " +
                       std::to_string(d.ndim()) + " axes");
    }
  }
  std::vector<int64_t> dims = ctx.Ints("shape");
  for (int i = 0; i < d.ndim(); ++i) {
    const int64_t start = ctx.Ints("start")[i];
    const int64_t step = ctx.Ints("step")[i];
    const int64_t n = d.dim(i);
    bool ok;
    if (dims[i] == -1) {
      dims[i] = n;
      ok = start == 0 && step == 1;
    } else {
      // The last written position, start + (n - 1) * step, must lie inside the axis.
      ok = step >= 1 && start >= 0 && start <= dims[i] &&
           (n == 0 || (start < dims[i] && n - 1 <= (dims[i] - 1 - start) / step));
    }
    if (!ok) {
      return ctx.Error("input \"dout\" " + d.ToString() + " does not fit attribute \"shape\" " +
                       IntsToString(ctx.Ints("shape")) + " at axis " + std::to_string(i) +
                       " with start " + std::to_string(start) + " and step " +
                       std::to_string(step));
    }
  }
  return dims;
}

Status SliceGradShape(OpContext* ctx) {
  TESS_RETURN_IF_ERROR(ExpectFloating(*ctx, "dout"));
  TESS_ASSIGN_OR_RETURN(std::vector<int64_t> dims, SliceGradDims(*ctx));
  TESS_ASSIGN_OR_RETURN(Shape out, MakeShape(*ctx, dims, "attribute \"shape\""));
  *ctx->mutable_output("dx") = {out, ctx->input("dout").dtype};
  return Status::Ok();
}

void SliceGradSignatures(const OpContext& ctx, SignatureList* list) {
  for (int i = 0; i < ctx.input("dout").shape.ndim(); ++i) {
    // An axis taken whole (as slice's signatures) keeps its split.
    if (ctx.Ints("shape")[i] == -1) list->NewBuilder().Split("dout", i).Split("dx", i).Build();
  }
  // Padding with zeros is linear: pad(sum_r dout_r) = sum_r pad(dout_r).
  list->NewBuilder().PartialSum("dout").PartialSum("dx").Build();
}

}  // namespace

Status RegisterScatterGradOps(OpRegistry* r) {
  TESS_RETURN_IF_ERROR(r->Register(OpDef("gather_grad")
                                       .Input("dout")
                                       .Input("indices")
                                       .Output("dx")
                                       .RequiredAttr("axis", AttrType::kInt)
                                       .RequiredAttr("size", AttrType::kInt)
                                       .SetShapeFn(GatherGradShape)
                                       .SetSignatureFn(GatherGradSignatures)
                                       .Doc("dout rows added into zeros at the rows indices "
                                            "name (backward of gather, embedding)")));
  return r->Register(OpDef("slice_grad")
                         .Input("dout")
                         .Output("dx")
                         .RequiredAttr("shape", AttrType::kInts)
                         .RequiredAttr("start", AttrType::kInts)
                         .RequiredAttr("step", AttrType::kInts)
                         .SetShapeFn(SliceGradShape)
                         .SetSignatureFn(SliceGradSignatures)
                         .Doc("dout written into zeros of shape at start + k * step "
                              "(backward of slice)"));
}

}  // namespace op
}  // namespace tessera
