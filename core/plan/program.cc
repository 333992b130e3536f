#include "core/plan/program.h"

#include <string>
#include <utility>

#include "core/op/op_registry.h"

namespace tessera::plan {
namespace {

std::string Percent(ValueId id) { return "%" + std::to_string(id); }

// S(0) on every hierarchy axis: a batch split across all ranks. A scalar cannot split.
NdSbp DefaultInputNdSbp(const Shape& shape, const Placement& placement) {
  NdSbp nd_sbp;
  const Sbp sbp = shape.ndim() > 0 ? Sbp::Split(0) : Sbp::Broadcast();
  for (int i = 0; i < placement.num_axes(); ++i) nd_sbp.Append(sbp);
  return nd_sbp;
}

}  // namespace

Status Program::CheckNewName(const std::string& name, const char* where) const {
  if (name.empty()) return InvalidArgument(std::string(where) + ": name is empty");
  for (const ProgramValue& v : values_) {
    if (v.kind != ValueKind::kOpOutput && v.name == name) {
      return InvalidArgument(std::string(where) + ": name \"" + name + "\" is already used by " +
                             (v.kind == ValueKind::kInput ? "an input" : "a variable"));
    }
  }
  return Status::Ok();
}

Status Program::CheckId(ValueId id, const std::string& where) const {
  if (id < 0 || id >= static_cast<ValueId>(values_.size())) {
    return InvalidArgument(where + ": value " + Percent(id) + " does not exist (the program has " +
                           std::to_string(values_.size()) + " values)");
  }
  return Status::Ok();
}

Result<ValueId> Program::AddInput(std::string name, const Shape& shape, DType dtype,
                                  const Placement& placement, const std::optional<NdSbp>& nd_sbp) {
  TESS_RETURN_IF_ERROR(CheckNewName(name, "AddInput"));
  Result<infer::TensorMeta> meta = infer::TensorMeta::Make(
      shape, dtype, placement, nd_sbp ? *nd_sbp : DefaultInputNdSbp(shape, placement));
  if (!meta.ok()) {
    return InvalidArgument("AddInput: input \"" + name + "\": " + meta.status().message());
  }
  ProgramValue v{ValueKind::kInput, std::move(name), std::move(meta).value(), nullptr, -1};
  const ValueId id = static_cast<ValueId>(values_.size());
  values_.push_back(std::move(v));
  inputs_.push_back(id);
  return id;
}

Result<ValueId> Program::AddVariable(std::string name, tensor::Tensor value) {
  TESS_RETURN_IF_ERROR(CheckNewName(name, "AddVariable"));
  if (value == nullptr) {
    return InvalidArgument("AddVariable: variable \"" + name + "\" is a null tensor");
  }
  ProgramValue v{ValueKind::kVariable, std::move(name), value->meta(), value, -1};
  values_.push_back(std::move(v));
  return static_cast<ValueId>(values_.size() - 1);
}

Result<std::vector<ValueId>> Program::AddOp(std::string_view op_name,
                                            const std::vector<ValueId>& inputs,
                                            const op::AttrMap& attrs,
                                            const std::vector<infer::SbpConstraint>& constraints) {
  const std::string where =
      "AddOp: op #" + std::to_string(ops_.size()) + " (" + std::string(op_name) + ")";
  TESS_ASSIGN_OR_RETURN(const op::OpDef* def, op::OpRegistry::Global().Find(op_name));
  std::vector<infer::TensorMeta> metas;
  metas.reserve(inputs.size());
  for (ValueId id : inputs) {
    TESS_RETURN_IF_ERROR(CheckId(id, where));
    metas.push_back(value(id).meta);
  }
  Result<infer::InferResult> inferred = infer::InferSignature(*def, metas, attrs, constraints);
  if (!inferred.ok()) {
    return Status(inferred.status().code(), where + ": " + inferred.status().message());
  }
  ProgramOp op;
  op.def = def;
  op.inputs = inputs;
  op.attrs = attrs;
  op.constraints = constraints;
  op.inference = std::move(inferred).value();
  const int64_t op_index = static_cast<int64_t>(ops_.size());
  for (size_t i = 0; i < op.inference.outputs.size(); ++i) {
    ProgramValue v{ValueKind::kOpOutput,
                   def->name() + "#" + std::to_string(op_index) + "." +
                       (i < def->outputs().size() ? def->outputs()[i].name : std::to_string(i)),
                   op.inference.outputs[i], nullptr, op_index};
    op.outputs.push_back(static_cast<ValueId>(values_.size()));
    values_.push_back(std::move(v));
  }
  std::vector<ValueId> outputs = op.outputs;
  ops_.push_back(std::move(op));
  return outputs;
}

Status Program::MarkOutput(ValueId id) {
  TESS_RETURN_IF_ERROR(CheckId(id, "MarkOutput"));
  for (ValueId o : outputs_) {
    if (o == id)
      return InvalidArgument("MarkOutput: value " + Percent(id) + " is already an output");
  }
  outputs_.push_back(id);
  return Status::Ok();
}

Status Program::AddAssign(ValueId variable, ValueId value_id) {
  TESS_RETURN_IF_ERROR(CheckId(variable, "AddAssign: variable"));
  TESS_RETURN_IF_ERROR(CheckId(value_id, "AddAssign: value"));
  const ProgramValue& target = value(variable);
  const ProgramValue& source = value(value_id);
  if (target.kind != ValueKind::kVariable) {
    return InvalidArgument("AddAssign: variable " + Percent(variable) + " (\"" + target.name +
                           "\") is not a variable; only variables persist across runs");
  }
  if (source.kind != ValueKind::kOpOutput) {
    return InvalidArgument("AddAssign: value " + Percent(value_id) + " (\"" + source.name +
                           "\") is not an op output; assign the result of an op");
  }
  if (!(target.meta == source.meta)) {
    return InvalidArgument("AddAssign: value " + Percent(value_id) + " is " +
                           source.meta.ToString() + " but variable " + Percent(variable) + " (\"" +
                           target.name + "\") is " + target.meta.ToString() +
                           "; they must match (box the value first)");
  }
  for (const ProgramAssign& a : assigns_) {
    if (a.variable == variable) {
      return InvalidArgument("AddAssign: variable " + Percent(variable) + " (\"" + target.name +
                             "\") is already assigned value " + Percent(a.value));
    }
  }
  assigns_.push_back(ProgramAssign{variable, value_id});
  return Status::Ok();
}

std::string Program::ToString() const {
  std::string s;
  size_t next_op = 0;
  for (size_t i = 0; i < values_.size(); ++i) {
    const ProgramValue& v = values_[i];
    if (v.kind == ValueKind::kOpOutput) {
      // An op prints once, at its first output.
      if (static_cast<size_t>(v.op_index) != next_op) continue;
      const ProgramOp& op = ops_[next_op++];
      for (size_t k = 0; k < op.outputs.size(); ++k) s += (k ? ", " : "") + Percent(op.outputs[k]);
      if (op.outputs.empty()) s += "()";
      s += " = " + op.def->name() + "(";
      for (size_t k = 0; k < op.inputs.size(); ++k) s += (k ? ", " : "") + Percent(op.inputs[k]);
      s += ") " + op.attrs.ToString() + " ->";
      for (size_t k = 0; k < op.outputs.size(); ++k) {
        s += (k ? ", " : " ") + value(op.outputs[k]).meta.ToString();
      }
      s += "\n";
      continue;
    }
    s += Percent(static_cast<ValueId>(i)) + " = " +
         (v.kind == ValueKind::kInput ? "input" : "variable") + " \"" + v.name + "\" " +
         v.meta.ToString() + "\n";
  }
  // Ops without outputs never reached above.
  for (; next_op < ops_.size(); ++next_op) s += "() = " + ops_[next_op].def->name() + "(...)\n";
  s += "outputs:";
  for (size_t k = 0; k < outputs_.size(); ++k) s += (k ? ", " : " ") + Percent(outputs_[k]);
  s += "\n";
  if (!assigns_.empty()) {
    s += "assigns:";
    for (size_t k = 0; k < assigns_.size(); ++k) {
      s += (k ? ", " : " ") + Percent(assigns_[k].variable) + " <- " + Percent(assigns_[k].value);
    }
    s += "\n";
  }
  return s;
}

}  // namespace tessera::plan
