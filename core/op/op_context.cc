#include "core/op/op_context.h"

#include <cstdio>
#include <cstdlib>

namespace tessera {
namespace op {
namespace {

[[noreturn]] void Die(const std::string& op, const std::string& what) {
  // Reached only through a bug in an op definition, never through user input.
  std::fprintf(stderr, "tessera: op %s: %s\n", op.c_str(), what.c_str());
  std::abort();
}

}  // namespace

Result<OpContext> OpContext::Make(const OpDef& def, std::vector<TensorDesc> inputs,
                                  const AttrMap& attrs) {
  TESS_ASSIGN_OR_RETURN(std::vector<int> counts, def.ResolveInputCounts(inputs.size()));
  TESS_RETURN_IF_ERROR(def.ValidateAttrs(attrs));
  OpContext ctx;
  ctx.def_ = &def;
  ctx.attrs_ = &attrs;
  ctx.inputs_ = std::move(inputs);
  ctx.input_counts_ = std::move(counts);
  int offset = 0;
  for (int c : ctx.input_counts_) {
    ctx.input_offsets_.push_back(offset);
    offset += c;
  }
  offset = 0;
  for (const ArgDef& a : def.outputs()) {
    ctx.output_offsets_.push_back(offset);
    offset += a.min_count;
  }
  ctx.outputs_.resize(static_cast<size_t>(offset));
  return ctx;
}

int OpContext::input_arg_index(std::string_view arg) const {
  for (size_t i = 0; i < def_->inputs().size(); ++i) {
    if (def_->inputs()[i].name == arg) return static_cast<int>(i);
  }
  return -1;
}

int OpContext::output_arg_index(std::string_view arg) const {
  for (size_t i = 0; i < def_->outputs().size(); ++i) {
    if (def_->outputs()[i].name == arg) return static_cast<int>(i);
  }
  return -1;
}

int OpContext::input_count(std::string_view arg) const {
  int a = input_arg_index(arg);
  if (a < 0) Die(op_name(), "no input named \"" + std::string(arg) + "\"");
  return input_counts_[a];
}

int OpContext::input_slot(std::string_view arg, int index) const {
  int a = input_arg_index(arg);
  if (a < 0 || index < 0 || index >= input_counts_[a]) {
    Die(op_name(), "no input " + std::string(arg) + "[" + std::to_string(index) + "]");
  }
  return input_offsets_[a] + index;
}

int OpContext::output_slot(std::string_view arg, int index) const {
  int a = output_arg_index(arg);
  if (a < 0 || index < 0 || index >= def_->outputs()[a].min_count) {
    Die(op_name(), "no output " + std::string(arg) + "[" + std::to_string(index) + "]");
  }
  return output_offsets_[a] + index;
}

const TensorDesc& OpContext::input(std::string_view arg, int index) const {
  return inputs_[input_slot(arg, index)];
}

TensorDesc* OpContext::mutable_output(std::string_view arg, int index) {
  return &outputs_[output_slot(arg, index)];
}

const TensorDesc& OpContext::output(std::string_view arg, int index) const {
  return outputs_[output_slot(arg, index)];
}

std::string OpContext::InputName(int slot) const {
  for (size_t a = 0; a < input_offsets_.size(); ++a) {
    if (slot >= input_offsets_[a] && slot < input_offsets_[a] + input_counts_[a]) {
      const ArgDef& def = def_->inputs()[a];
      if (!def.repeated() && def.min_count == 1) return def.name;
      return def.name + "[" + std::to_string(slot - input_offsets_[a]) + "]";
    }
  }
  return "input#" + std::to_string(slot);
}

std::string OpContext::OutputName(int slot) const {
  for (size_t a = 0; a < output_offsets_.size(); ++a) {
    const ArgDef& def = def_->outputs()[a];
    if (slot >= output_offsets_[a] && slot < output_offsets_[a] + def.min_count) {
      if (def.min_count == 1) return def.name;
      return def.name + "[" + std::to_string(slot - output_offsets_[a]) + "]";
    }
  }
  return "output#" + std::to_string(slot);
}

const AttrValue& OpContext::AttrOrDefault(std::string_view name, AttrType type) const {
  const AttrDef* def = def_->FindAttr(name);
  if (def == nullptr || def->type != type) {
    Die(op_name(),
        "reads undeclared attribute \"" + std::string(name) + "\" as " + AttrTypeName(type));
  }
  if (const AttrValue* v = attrs_->Find(name)) return *v;
  // ValidateAttrs guarantees a required attribute is present.
  return *def->default_value;
}

int64_t OpContext::Int(std::string_view name) const {
  return AttrOrDefault(name, AttrType::kInt).int_value();
}
double OpContext::Float(std::string_view name) const {
  return AttrOrDefault(name, AttrType::kFloat).float_value();
}
bool OpContext::Bool(std::string_view name) const {
  return AttrOrDefault(name, AttrType::kBool).bool_value();
}
const std::vector<int64_t>& OpContext::Ints(std::string_view name) const {
  return AttrOrDefault(name, AttrType::kInts).ints_value();
}
DType OpContext::DTypeAttr(std::string_view name) const {
  return AttrOrDefault(name, AttrType::kDType).dtype_value();
}

Status OpContext::Error(const std::string& message) const {
  return InvalidArgument(op_name() + ": " + message);
}

}  // namespace op
}  // namespace tessera
