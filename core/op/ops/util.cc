#include "core/op/ops/util.h"

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

}  // namespace op
}  // namespace tessera
