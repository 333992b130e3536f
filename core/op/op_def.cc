#include "core/op/op_def.h"

#include <set>

namespace tessera {
namespace op {

OpDef& OpDef::Input(std::string name) {
  inputs_.push_back({std::move(name), 1, 1});
  return *this;
}

OpDef& OpDef::RepeatedInput(std::string name, int min_count, int max_count) {
  inputs_.push_back({std::move(name), min_count, max_count});
  return *this;
}

OpDef& OpDef::Output(std::string name, int count) {
  outputs_.push_back({std::move(name), count, count});
  return *this;
}

OpDef& OpDef::Attr(std::string name, AttrValue default_value) {
  AttrType type = default_value.type();
  attrs_.push_back({std::move(name), type, std::move(default_value)});
  return *this;
}

OpDef& OpDef::RequiredAttr(std::string name, AttrType type) {
  attrs_.push_back({std::move(name), type, std::nullopt});
  return *this;
}

OpDef& OpDef::SetShapeFn(ShapeFn fn) {
  shape_fn_ = fn;
  return *this;
}

OpDef& OpDef::SetSignatureFn(SignatureFn fn) {
  signature_fn_ = fn;
  return *this;
}

OpDef& OpDef::SetGradFn(GradFn fn) {
  grad_fn_ = fn;
  return *this;
}

OpDef& OpDef::Doc(std::string doc) {
  doc_ = std::move(doc);
  return *this;
}

const AttrDef* OpDef::FindAttr(std::string_view name) const {
  for (const AttrDef& a : attrs_) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

Status OpDef::Validate() const {
  if (name_.empty()) return InvalidArgument("op definition has an empty name");
  if (shape_fn_ == nullptr) return InvalidArgument(name_ + ": op definition has no shape function");
  if (signature_fn_ == nullptr) {
    return InvalidArgument(name_ + ": op definition has no signature function");
  }
  std::set<std::string> names;
  int repeated = 0;
  for (const ArgDef& a : inputs_) {
    if (!names.insert(a.name).second) {
      return InvalidArgument(name_ + ": argument \"" + a.name + "\" is declared twice");
    }
    if (a.min_count < 0 || (a.max_count >= 0 && a.max_count < a.min_count)) {
      return InvalidArgument(name_ + ": input \"" + a.name + "\" has an empty count range");
    }
    if (a.repeated()) ++repeated;
  }
  if (repeated > 1) return InvalidArgument(name_ + ": more than one repeated input");
  for (const ArgDef& a : outputs_) {
    if (!names.insert(a.name).second) {
      return InvalidArgument(name_ + ": argument \"" + a.name + "\" is declared twice");
    }
    if (a.repeated() || a.min_count < 1) {
      return InvalidArgument(name_ + ": output \"" + a.name + "\" must have a fixed count >= 1");
    }
  }
  std::set<std::string> attr_names;
  for (const AttrDef& a : attrs_) {
    if (!attr_names.insert(a.name).second) {
      return InvalidArgument(name_ + ": attribute \"" + a.name + "\" is declared twice");
    }
  }
  return Status::Ok();
}

Status OpDef::ValidateAttr(std::string_view name, const AttrValue& value) const {
  const AttrDef* def = FindAttr(name);
  if (def == nullptr) {
    std::string known;
    for (const AttrDef& a : attrs_) known += (known.empty() ? "" : ", ") + a.name;
    return InvalidArgument(
        name_ + ": unknown attribute \"" + std::string(name) + "\"; " +
        (known.empty() ? "the op takes no attributes" : "known attributes: " + known));
  }
  if (def->type != value.type()) {
    return InvalidArgument(name_ + ": attribute \"" + std::string(name) + "\" must be " +
                           AttrTypeName(def->type) + " but got " + AttrTypeName(value.type()) +
                           " " + value.ToString());
  }
  return Status::Ok();
}

Status OpDef::ValidateAttrs(const AttrMap& attrs) const {
  for (const auto& [name, value] : attrs.entries()) {
    TESS_RETURN_IF_ERROR(ValidateAttr(name, value));
  }
  for (const AttrDef& a : attrs_) {
    if (!a.default_value && attrs.Find(a.name) == nullptr) {
      return InvalidArgument(name_ + ": required attribute \"" + a.name + "\" (" +
                             AttrTypeName(a.type) + ") is missing");
    }
  }
  return Status::Ok();
}

Result<std::vector<int>> OpDef::ResolveInputCounts(size_t num_inputs) const {
  std::vector<int> counts(inputs_.size());
  size_t fixed = 0;
  int repeated_arg = -1;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].repeated()) {
      repeated_arg = static_cast<int>(i);
    } else {
      counts[i] = inputs_[i].min_count;
      fixed += static_cast<size_t>(inputs_[i].min_count);
    }
  }
  if (repeated_arg < 0) {
    if (num_inputs != fixed) {
      return InvalidArgument(name_ + ": takes " + std::to_string(fixed) + " input" +
                             (fixed == 1 ? "" : "s") + " but got " + std::to_string(num_inputs));
    }
    return counts;
  }
  const ArgDef& r = inputs_[repeated_arg];
  int64_t rest = static_cast<int64_t>(num_inputs) - static_cast<int64_t>(fixed);
  if (rest < r.min_count || (r.max_count >= 0 && rest > r.max_count)) {
    std::string range = "at least " + std::to_string(r.min_count);
    if (r.max_count >= 0) {
      range = std::to_string(r.min_count) + " to " + std::to_string(r.max_count);
    }
    return InvalidArgument(name_ + ": input \"" + r.name + "\" repeats " + range +
                           " times but the call gives it " + std::to_string(rest < 0 ? 0 : rest) +
                           " (" + std::to_string(num_inputs) + " inputs in all)");
  }
  counts[repeated_arg] = static_cast<int>(rest);
  return counts;
}

int OpDef::num_outputs() const {
  int n = 0;
  for (const ArgDef& a : outputs_) n += a.min_count;
  return n;
}

std::string OpDef::Signature() const {
  std::string s = name_ + "(";
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (i) s += ", ";
    s += inputs_[i].name;
    if (inputs_[i].repeated()) s += " x " + std::to_string(inputs_[i].min_count) + "+";
  }
  s += ") -> (";
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (i) s += ", ";
    s += outputs_[i].name;
    if (outputs_[i].min_count != 1) s += " x " + std::to_string(outputs_[i].min_count);
  }
  s += ")";
  if (!attrs_.empty()) {
    s += "; attrs: ";
    for (size_t i = 0; i < attrs_.size(); ++i) {
      if (i) s += ", ";
      s += attrs_[i].name + ": " + AttrTypeName(attrs_[i].type);
      s += attrs_[i].default_value ? " = " + attrs_[i].default_value->ToString() : " (required)";
    }
  }
  return s;
}

}  // namespace op
}  // namespace tessera
