// Ops that move elements without changing them: transpose, reshape, concat, slice.
// Each output element is a copy of one input element, so every one commutes with the
// three partial reductions (P, P(max), P(min)).
#include <vector>

#include "core/common/checked_math.h"
#include "core/op/op_context.h"
#include "core/op/op_def.h"
#include "core/op/ops/grad_rules.h"
#include "core/op/ops/register_ops.h"
#include "core/op/ops/util.h"
#include "core/op/signature.h"

namespace tessera {
namespace op {
namespace {

// ---- transpose ----

Status TransposeShape(OpContext* ctx) {
  const Shape& x = ctx->input("x").shape;
  const std::vector<int64_t>& perm = ctx->Ints("perm");
  if (static_cast<int>(perm.size()) != x.ndim()) {
    return ctx->Error("attribute \"perm\" " + IntsToString(perm) + " has " +
                      std::to_string(perm.size()) + " entries but input \"x\" has shape " +
                      x.ToString() + " (" + std::to_string(x.ndim()) + " axes)");
  }
  std::vector<bool> seen(perm.size(), false);
  Shape out = x;
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= x.ndim() || seen[perm[i]]) {
      return ctx->Error("attribute \"perm\" " + IntsToString(perm) +
                        " is not a permutation of 0.." + std::to_string(x.ndim() - 1));
    }
    seen[perm[i]] = true;
    out.set_dim(static_cast<int>(i), x.dim(static_cast<int>(perm[i])));
  }
  *ctx->mutable_output("out") = {out, ctx->input("x").dtype};
  return Status::Ok();
}

void TransposeSignatures(const OpContext& ctx, SignatureList* list) {
  const std::vector<int64_t>& perm = ctx.Ints("perm");
  for (size_t i = 0; i < perm.size(); ++i) {
    // out axis i is x axis perm[i]: the same index range moves with it.
    list->NewBuilder()
        .Split("x", static_cast<int>(perm[i]))
        .Split("out", static_cast<int>(i))
        .Build();
  }
  PartialsPassThrough(list);
}

// ---- reshape ----

Status ReshapeShape(OpContext* ctx) {
  const Shape& x = ctx->input("x").shape;
  std::vector<int64_t> dims = ctx->Ints("shape");
  int infer_at = -1;
  int64_t known = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (infer_at >= 0) {
        return ctx->Error("attribute \"shape\" " + IntsToString(dims) + " has more than one -1");
      }
      infer_at = static_cast<int>(i);
    } else if (dims[i] < 0) {
      return ctx->Error("attribute \"shape\" " + IntsToString(dims) + " has dim " +
                        std::to_string(dims[i]) + "; dims must be >= 0 or a single -1");
    } else if (!CheckedMul(known, dims[i], &known)) {
      return ctx->Error("attribute \"shape\" " + IntsToString(dims) +
                        ": the element count overflows int64");
    }
  }
  const int64_t total = x.num_elements();
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0) {
      return ctx->Error("cannot reshape input \"x\" of shape " + x.ToString() + " (" +
                        std::to_string(total) + " elements) into " + IntsToString(dims));
    }
    dims[infer_at] = total / known;
  } else if (known != total) {
    return ctx->Error("cannot reshape input \"x\" of shape " + x.ToString() + " (" +
                      std::to_string(total) + " elements) into " + IntsToString(dims) + " (" +
                      std::to_string(known) + " elements)");
  }
  TESS_ASSIGN_OR_RETURN(Shape out, MakeShape(*ctx, dims, "attribute \"shape\""));
  *ctx->mutable_output("out") = {out, ctx->input("x").dtype};
  return Status::Ok();
}

// reshape's splits are the ones every row-major reshape shares (util.h).
void ReshapeSignatures(const OpContext& ctx, SignatureList* list) {
  ReshapeSplits(ctx, list);
  PartialsPassThrough(list);
}

// ---- concat ----

Status ConcatShape(OpContext* ctx) {
  const TensorDesc& first = ctx->input("in", 0);
  TESS_RETURN_IF_ERROR(ExpectRank(*ctx, "in", 1, /*at_least=*/true));
  TESS_ASSIGN_OR_RETURN(int axis,
                        NormalizeAxis(*ctx, "axis", ctx->Int("axis"), first.shape.ndim(), "in"));
  Shape out = first.shape;
  int64_t sum = 0;
  for (int k = 0; k < ctx->input_count("in"); ++k) {
    const TensorDesc& d = ctx->input("in", k);
    std::string name = "in[" + std::to_string(k) + "]";
    if (d.dtype != first.dtype) {
      return ctx->Error("input \"" + name + "\" has dtype " + DTypeName(d.dtype) +
                        " but \"in[0]\" has " + DTypeName(first.dtype));
    }
    bool ok = d.shape.ndim() == first.shape.ndim();
    for (int i = 0; ok && i < first.shape.ndim(); ++i) {
      ok = i == axis || d.shape.dim(i) == first.shape.dim(i);
    }
    if (!ok) {
      return ctx->Error("input \"" + name + "\" has shape " + d.shape.ToString() +
                        " but \"in[0]\" has " + first.shape.ToString() +
                        "; shapes must match except on axis " + std::to_string(axis));
    }
    if (!CheckedAdd(sum, d.shape.dim(axis), &sum)) {
      return ctx->Error("the inputs' dims on axis " + std::to_string(axis) +
                        " add up to more than int64 holds");
    }
  }
  out.set_dim(axis, sum);
  *ctx->mutable_output("out") = {out, first.dtype};
  return Status::Ok();
}

void ConcatSignatures(const OpContext& ctx, SignatureList* list) {
  const int nd = ctx.input("in", 0).shape.ndim();
  const int axis = *NormalizeAxis(ctx, "axis", ctx.Int("axis"), nd, "in");
  for (int i = 0; i < nd; ++i) {
    // Off the concat axis every input has the same dim, so equal balanced splits
    // give each rank matching rows of every input and of the output.
    if (i != axis) list->NewBuilder().Split(AllInputs(), i).Split("out", i).Build();
  }
  PartialsPassThrough(list);
}

// ---- slice ----

struct SliceAxis {
  int64_t start, stop, step;
  bool full;  // selects the whole axis in order
};

Result<std::vector<SliceAxis>> SliceAxes(const OpContext& ctx) {
  const Shape& x = ctx.input("x").shape;
  const char* names[] = {"start", "stop", "step"};
  for (const char* name : names) {
    if (static_cast<int>(ctx.Ints(name).size()) != x.ndim()) {
      return ctx.Error("attribute \"" + std::string(name) + "\" " + IntsToString(ctx.Ints(name)) +
                       " has " + std::to_string(ctx.Ints(name).size()) +
                       " entries but input \"x\" has shape " + x.ToString() + " (" +
                       std::to_string(x.ndim()) + " axes)");
    }
  }
  std::vector<SliceAxis> axes;
  for (int i = 0; i < x.ndim(); ++i) {
    const int64_t d = x.dim(i);
    int64_t step = ctx.Ints("step")[i];
    if (step < 1) {
      return ctx.Error("attribute \"step\" " + IntsToString(ctx.Ints("step")) + " has " +
                       std::to_string(step) + " at axis " + std::to_string(i) +
                       "; steps must be >= 1");
    }
    // Python semantics: negative positions count from the end; clamp into [0, d].
    auto clamp = [d](int64_t v) {
      if (v < 0) v += d;
      return v < 0 ? 0 : (v > d ? d : v);
    };
    int64_t start = clamp(ctx.Ints("start")[i]);
    int64_t stop = clamp(ctx.Ints("stop")[i]);
    axes.push_back({start, stop, step, start == 0 && stop == d && step == 1});
  }
  return axes;
}

Status SliceShape(OpContext* ctx) {
  TESS_ASSIGN_OR_RETURN(std::vector<SliceAxis> axes, SliceAxes(*ctx));
  Shape out = ctx->input("x").shape;
  for (size_t i = 0; i < axes.size(); ++i) {
    const SliceAxis& a = axes[i];
    out.set_dim(static_cast<int>(i),
                a.stop > a.start ? (a.stop - a.start + a.step - 1) / a.step : 0);
  }
  *ctx->mutable_output("out") = {out, ctx->input("x").dtype};
  return Status::Ok();
}

void SliceSignatures(const OpContext& ctx, SignatureList* list) {
  std::vector<SliceAxis> axes = *SliceAxes(ctx);
  for (size_t i = 0; i < axes.size(); ++i) {
    // An axis taken whole is untouched, so its split carries over. (A partially
    // sliced split axis would need each rank's offset, which a local kernel lacks.)
    if (axes[i].full) {
      list->NewBuilder().Split("x", static_cast<int>(i)).Split("out", static_cast<int>(i)).Build();
    }
  }
  PartialsPassThrough(list);
}

}  // namespace

Status RegisterShapeOps(OpRegistry* r) {
  TESS_RETURN_IF_ERROR(r->Register(OpDef("transpose")
                                       .Input("x")
                                       .Output("out")
                                       .RequiredAttr("perm", AttrType::kInts)
                                       .SetShapeFn(TransposeShape)
                                       .SetSignatureFn(TransposeSignatures)
                                       .SetGradFn(TransposeGrad)
                                       .Doc("out axis i = x axis perm[i]")));
  TESS_RETURN_IF_ERROR(r->Register(OpDef("reshape")
                                       .Input("x")
                                       .Output("out")
                                       .RequiredAttr("shape", AttrType::kInts)
                                       .SetShapeFn(ReshapeShape)
                                       .SetSignatureFn(ReshapeSignatures)
                                       .SetGradFn(ReshapeGrad)
                                       .Doc("row-major reshape; one dim may be -1")));
  TESS_RETURN_IF_ERROR(r->Register(OpDef("concat")
                                       .RepeatedInput("in", 1)
                                       .Output("out")
                                       .Attr("axis", AttrValue::Int(0))
                                       .SetShapeFn(ConcatShape)
                                       .SetSignatureFn(ConcatSignatures)
                                       .SetGradFn(ConcatGrad)
                                       .Doc("concatenation of k >= 1 inputs along axis")));
  return r->Register(OpDef("slice")
                         .Input("x")
                         .Output("out")
                         .RequiredAttr("start", AttrType::kInts)
                         .RequiredAttr("stop", AttrType::kInts)
                         .RequiredAttr("step", AttrType::kInts)
                         .SetShapeFn(SliceShape)
                         .SetSignatureFn(SliceSignatures)
                         .SetGradFn(SliceGrad)
                         .Doc("x[start:stop:step] per axis, Python semantics, step >= 1"));
}

}  // namespace op
}  // namespace tessera
