#include "core/op/grad.h"

#include <algorithm>

#include "core/op/op_def.h"

namespace tessera {
namespace op {
namespace {

// attrs() holds every declared attribute (defaults filled in), so a miss is a rule
// asking for an attribute its op does not declare: a programmer error.
const AttrValue& Lookup(const GradBuilder& b, std::string_view name) {
  const AttrValue* v = b.attrs().Find(name);
  if (v == nullptr) {
    static const AttrValue kZero;
    return kZero;
  }
  return *v;
}

}  // namespace

int64_t GradBuilder::Int(std::string_view name) const { return Lookup(*this, name).int_value(); }
double GradBuilder::Float(std::string_view name) const { return Lookup(*this, name).float_value(); }
bool GradBuilder::Bool(std::string_view name) const { return Lookup(*this, name).bool_value(); }
std::vector<int64_t> GradBuilder::Ints(std::string_view name) const {
  return Lookup(*this, name).ints_value();
}

GradBuilder::Value GradBuilder::SumToShape(Value grad, const Shape& shape) {
  if (grad == kNoValue) return kNoValue;
  const Shape from = this->shape(grad);
  if (from == shape) return grad;
  // numpy broadcasting aligns trailing axes: the leading extra axes of `from` were
  // added, and an axis where `shape` has 1 but `from` has more was stretched.
  const int extra = from.ndim() - shape.ndim();
  if (extra < 0) {
    return Fail(InvalidArgument(def().name() + " gradient: cannot sum a gradient of shape " +
                                from.ToString() + " to the larger shape " + shape.ToString()));
  }
  std::vector<int64_t> axes;
  for (int i = 0; i < from.ndim(); ++i) {
    if (i < extra || (shape.dim(i - extra) == 1 && from.dim(i) != 1)) axes.push_back(i);
  }
  Value summed = grad;
  if (!axes.empty()) {
    summed = Call("reduce_sum", {grad},
                  {{"axes", AttrValue::Ints(axes)}, {"keepdims", AttrValue::Bool(false)}});
  }
  return Call("reshape", {summed}, {{"shape", AttrValue::Ints(shape.ToVector())}});
}

GradBuilder::Value GradBuilder::ExpandFromReduced(Value grad, const Shape& shape,
                                                  std::vector<int64_t> axes, bool keepdims) {
  if (grad == kNoValue) return kNoValue;
  const int nd = shape.ndim();
  std::vector<bool> reduced(static_cast<size_t>(nd), axes.empty());
  for (int64_t a : axes) reduced[static_cast<size_t>(a < 0 ? a + nd : a)] = true;
  // The gradient with the reduced axes as size 1, then expanded over them: expand
  // keeps a split of a kept axis and cuts a broadcast gradient to a split of an
  // expanded one, so no full-size zeros are made.
  std::vector<int64_t> kept_dims;
  for (int i = 0; i < nd; ++i) kept_dims.push_back(reduced[i] ? 1 : shape.dim(i));
  Value g = grad;
  if (!keepdims) g = Call("reshape", {grad}, {{"shape", AttrValue::Ints(kept_dims)}});
  return Call("expand", {g}, {{"shape", AttrValue::Ints(shape.ToVector())}});
}

}  // namespace op
}  // namespace tessera
