// An op definition: its name, named inputs and outputs (an input may repeat, e.g.
// add_n's `in` x k), a typed attribute schema with defaults, a shape+dtype inference
// function and an SBP-signature-list function. Definitions are values built with a
// fluent builder and handed to an OpRegistry.
#ifndef TESSERA_CORE_OP_OP_DEF_H_
#define TESSERA_CORE_OP_OP_DEF_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/status.h"
#include "core/op/attr.h"
#include "core/op/grad.h"

namespace tessera {
namespace op {

class OpContext;
class SignatureList;

// Fills every output's shape and dtype from the inputs and attributes, or returns an
// INVALID_ARGUMENT made with ctx->Error(...) that names the op, the argument and the
// values.
using ShapeFn = Status (*)(OpContext* ctx);
// Declares the op's valid 1-d SBP signatures for one placement axis with
// ctx.parallel_num() ranks, using list->NewBuilder(). Every declared signature must
// be mathematically valid for any input values and for uneven (even empty) splits;
// each one carries a comment saying why. The all-broadcast signature is appended by
// the framework, which also drops any signature with a bool input or output under a
// partial (bool has no sum, max or min).
using SignatureFn = void (*)(const OpContext& ctx, SignatureList* list);

struct ArgDef {
  std::string name;
  int min_count = 1;
  // -1: unbounded. Inputs only; outputs have a fixed count (min_count == max_count).
  int max_count = 1;
  bool repeated() const { return min_count != max_count; }
};

struct AttrDef {
  std::string name;
  AttrType type = AttrType::kInt;
  // Absent: the attribute is required.
  std::optional<AttrValue> default_value;
};

class OpDef {
 public:
  explicit OpDef(std::string name) : name_(std::move(name)) {}

  // Builder. At most one input may repeat; it takes whatever inputs the fixed ones
  // leave.
  OpDef& Input(std::string name);
  OpDef& RepeatedInput(std::string name, int min_count, int max_count = -1);
  OpDef& Output(std::string name, int count = 1);
  OpDef& Attr(std::string name, AttrValue default_value);
  OpDef& RequiredAttr(std::string name, AttrType type);
  OpDef& SetShapeFn(ShapeFn fn);
  OpDef& SetSignatureFn(SignatureFn fn);
  // The op's gradient (core/op/grad.h). Ops without one are not differentiable:
  // backward through them is an error naming the op.
  OpDef& SetGradFn(GradFn fn);
  OpDef& Doc(std::string doc);

  const std::string& name() const { return name_; }
  const std::vector<ArgDef>& inputs() const { return inputs_; }
  const std::vector<ArgDef>& outputs() const { return outputs_; }
  const std::vector<AttrDef>& attrs() const { return attrs_; }
  ShapeFn shape_fn() const { return shape_fn_; }
  SignatureFn signature_fn() const { return signature_fn_; }
  GradFn grad_fn() const { return grad_fn_; }
  const std::string& doc() const { return doc_; }

  const AttrDef* FindAttr(std::string_view name) const;
  // Checks the definition itself (a programmer error if it fails): functions set,
  // names unique, at most one repeated input, outputs fixed.
  Status Validate() const;
  // Checks one call attribute against the schema: an unknown name (the message lists
  // the known ones) or a wrong type (naming the expected and the given type).
  Status ValidateAttr(std::string_view name, const AttrValue& value) const;
  // Checks call attributes against the schema: unknown names, wrong types, missing
  // required attributes.
  Status ValidateAttrs(const AttrMap& attrs) const;
  // How many slots each input arg takes when the op is called with `num_inputs`
  // inputs, in arg order.
  Result<std::vector<int>> ResolveInputCounts(size_t num_inputs) const;
  int num_outputs() const;

  // "matmul(a, b) -> (out); attrs: transpose_a: bool = false, transpose_b: bool = false".
  std::string Signature() const;

 private:
  std::string name_;
  std::vector<ArgDef> inputs_;
  std::vector<ArgDef> outputs_;
  std::vector<AttrDef> attrs_;
  ShapeFn shape_fn_ = nullptr;
  SignatureFn signature_fn_ = nullptr;
  GradFn grad_fn_ = nullptr;
  std::string doc_;
};

}  // namespace op
}  // namespace tessera

#endif  // TESSERA_CORE_OP_OP_DEF_H_
