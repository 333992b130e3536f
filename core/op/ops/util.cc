#include "core/op/ops/util.h"

#include <algorithm>

#include "core/op/signature.h"

namespace tessera {
namespace op {

bool IsFloating(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF64 || dtype == DType::kF16 ||
         dtype == DType::kBF16;
}

bool IsInteger(DType dtype) { return dtype == DType::kI32 || dtype == DType::kI64; }

std::string IntsToString(const std::vector<int64_t>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(values[i]);
  }
  return s + "]";
}

Result<int> NormalizeAxis(const OpContext& ctx, std::string_view attr, int64_t axis, int ndim,
                          std::string_view input) {
  if (axis < -ndim || axis >= ndim) {
    return ctx.Error("attribute \"" + std::string(attr) + "\" is " + std::to_string(axis) +
                     " but input \"" + std::string(input) + "\" has shape " +
                     ctx.input(input).shape.ToString() + " (" + std::to_string(ndim) +
                     " axes; valid axes are " + std::to_string(-ndim) + ".." +
                     std::to_string(ndim - 1) + ")");
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

Status ExpectFloating(const OpContext& ctx, std::string_view arg) {
  DType d = ctx.input(arg).dtype;
  if (IsFloating(d)) return Status::Ok();
  return ctx.Error("input \"" + std::string(arg) + "\" has dtype " + DTypeName(d) +
                   "; expected a floating type (f32, f64, f16, bf16)");
}

Status ExpectIndex(const OpContext& ctx, std::string_view arg) {
  DType d = ctx.input(arg).dtype;
  if (IsInteger(d)) return Status::Ok();
  return ctx.Error("input \"" + std::string(arg) + "\" has dtype " + DTypeName(d) +
                   "; expected i32 or i64");
}

Status ExpectSameDType(const OpContext& ctx, std::string_view arg, std::string_view other) {
  DType a = ctx.input(arg).dtype;
  DType b = ctx.input(other).dtype;
  if (a == b) return Status::Ok();
  return ctx.Error("input \"" + std::string(arg) + "\" has dtype " + DTypeName(a) + " but \"" +
                   std::string(other) + "\" has " + DTypeName(b));
}

Status ExpectRank(const OpContext& ctx, std::string_view arg, int ndim, bool at_least) {
  const Shape& s = ctx.input(arg).shape;
  if (at_least ? s.ndim() >= ndim : s.ndim() == ndim) return Status::Ok();
  return ctx.Error("input \"" + std::string(arg) + "\" has shape " + s.ToString() + " (" +
                   std::to_string(s.ndim()) + " dims); expected " + (at_least ? "at least " : "") +
                   std::to_string(ndim) + " dims");
}

Result<Shape> MakeShape(const OpContext& ctx, const std::vector<int64_t>& dims,
                        std::string_view what) {
  Result<Shape> r = Shape::Make(dims);
  if (!r.ok()) return ctx.Error(std::string(what) + ": " + r.status().message());
  return r;
}

Result<Shape> BroadcastShape(const OpContext& ctx, const std::vector<const char*>& args) {
  int nd = 0;
  for (const char* a : args) nd = std::max(nd, ctx.input(a).shape.ndim());
  Shape out = ctx.input(args[0]).shape;
  for (const char* a : args) {
    if (ctx.input(a).shape.ndim() == nd) out = ctx.input(a).shape;
  }
  for (int i = 0; i < nd; ++i) {
    const char* from = nullptr;  // the first argument with a dim != 1 on axis i
    int64_t d = 1;
    for (const char* a : args) {
      const Shape& s = ctx.input(a).shape;
      const int j = i - (nd - s.ndim());
      const int64_t da = j >= 0 ? s.dim(j) : 1;
      if (da == 1) continue;
      if (from != nullptr && da != d) {
        return ctx.Error("inputs \"" + std::string(from) + "\" " +
                         ctx.input(from).shape.ToString() + " and \"" + a + "\" " + s.ToString() +
                         " do not broadcast: output axis " + std::to_string(i) + " has " +
                         std::to_string(d) + " in " + from + " and " + std::to_string(da) + " in " +
                         a);
      }
      from = a;
      d = da;
    }
    out.set_dim(i, d);
  }
  return out;
}

void BroadcastSplits(const OpContext& ctx, SignatureList* list,
                     const std::vector<const char*>& args) {
  const Shape& out = ctx.output("out").shape;
  const int nd = out.ndim();
  for (int i = 0; i < nd; ++i) {
    if (out.dim(i) == 1) continue;  // a size-1 axis cannot be split over >= 2 ranks
    SignatureList::Builder b = list->NewBuilder();
    for (const char* a : args) {
      const Shape& s = ctx.input(a).shape;
      const int j = i - (nd - s.ndim());
      if (j >= 0 && s.dim(j) == out.dim(i)) {
        b.Split(a, j);  // the same rows of the operand as of the output
      } else {
        b.Broadcast(a);  // stretched along axis i: every rank reads all of it
      }
    }
    b.Split("out", i).Build();
  }
}

void PartialsPassThrough(SignatureList* list) {
  list->NewBuilder().PartialSum(AllInputs()).PartialSum(AllOutputs()).Build();
  list->NewBuilder().PartialMax(AllInputs()).PartialMax(AllOutputs()).Build();
  list->NewBuilder().PartialMin(AllInputs()).PartialMin(AllOutputs()).Build();
}

void ReshapeSplits(const OpContext& ctx, SignatureList* list) {
  const Shape& in = ctx.input("x").shape;
  const Shape& out = ctx.output("out").shape;
  if (in.num_elements() == 0) return;  // nothing to cut
  std::vector<int> vi, vo;
  for (int i = 0; i < in.ndim(); ++i) {
    if (in.dim(i) != 1) vi.push_back(i);
  }
  for (int i = 0; i < out.ndim(); ++i) {
    if (out.dim(i) != 1) vo.push_back(i);
  }
  const int64_t total = ctx.total_parallel_num();
  size_t i = 0, j = 0;
  while (i < vi.size() && j < vo.size()) {
    const int lead_in = vi[i], lead_out = vo[j];
    int64_t pi = in.dim(vi[i++]);
    int64_t po = out.dim(vo[j++]);
    while (pi != po) {
      if (pi < po && i < vi.size()) {
        pi *= in.dim(vi[i++]);
      } else if (po < pi && j < vo.size()) {
        po *= out.dim(vo[j++]);
      } else {
        return;  // unreachable for equal element counts
      }
    }
    const int64_t din = in.dim(lead_in), dout = out.dim(lead_out);
    if (din == dout || (din % total == 0 && dout % total == 0)) {
      // Both leading dims cut the run at the same element offsets (see util.h).
      list->NewBuilder().Split("x", lead_in).Split("out", lead_out).Build();
    }
  }
}

}  // namespace op
}  // namespace tessera
