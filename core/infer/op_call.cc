#include "core/infer/op_call.h"

#include <utility>

#include "core/common/dtype.h"
#include "core/common/shape.h"

namespace tessera {
namespace infer {

Result<OpCall> OpCall::Make(std::string_view op_name, const op::OpRegistry& registry) {
  TESS_ASSIGN_OR_RETURN(const op::OpDef* def, registry.Find(op_name));
  return OpCall(*def);
}

int OpCall::MaxInputs() const {
  int n = 0;
  for (const op::ArgDef& a : def_->inputs()) {
    if (a.max_count < 0) return -1;
    n += a.max_count;
  }
  return n;
}

std::string OpCall::InputLabel(int slot) const {
  const std::vector<op::ArgDef>& args = def_->inputs();
  int first = 0;  // first slot of args[i]
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].repeated()) {
      // Every later slot belongs to the repeated argument only when it is the last.
      if (i + 1 == args.size()) return "input \"" + args[i].name + "\" #" + std::to_string(slot);
      break;
    }
    if (slot < first + args[i].min_count) return "input \"" + args[i].name + "\"";
    first += args[i].min_count;
  }
  return "input #" + std::to_string(slot);
}

Status OpCall::SetAttr(std::string_view name, op::AttrValue value) {
  TESS_RETURN_IF_ERROR(def_->ValidateAttr(name, value));
  attrs_.Set(name, std::move(value));
  return Status::Ok();
}

Status OpCall::AddInput(const std::vector<int64_t>& shape, int dtype, const Placement& placement,
                        const NdSbp& nd_sbp) {
  const int slot = static_cast<int>(inputs_.size());
  const int max = MaxInputs();
  if (max >= 0 && slot >= max) {
    return InvalidArgument(def_->name() + ": takes at most " + std::to_string(max) + " input" +
                           (max == 1 ? "" : "s") + " (" + def_->Signature() +
                           "); cannot add input " + std::to_string(slot + 1));
  }
  const std::string label = def_->name() + ": " + InputLabel(slot);
  Result<Shape> s = Shape::Make(shape);
  if (!s.ok()) return InvalidArgument(label + ": " + s.status().message());
  if (!IsValidDType(dtype)) {
    return InvalidArgument(
        label + ": dtype value " + std::to_string(dtype) +
        " is not a known dtype (f32 0, f64 1, i32 2, i64 3, f16 4, bf16 5, bool 6)");
  }
  if (!inputs_.empty() && inputs_[0].placement != placement) {
    return InvalidArgument(label + " is on placement " + placement.ToString() + " but " +
                           InputLabel(0) + " is on " + inputs_[0].placement.ToString() +
                           "; inputs must share one placement (move one there with to_global)");
  }
  Result<TensorMeta> meta = TensorMeta::Make(*s, static_cast<DType>(dtype), placement, nd_sbp);
  if (!meta.ok()) return InvalidArgument(label + ": " + meta.status().message());
  inputs_.push_back(std::move(meta).value());
  return Status::Ok();
}

Status OpCall::Constrain(bool is_output, int slot, const NdSbp& nd_sbp) {
  const int limit = is_output ? def_->num_outputs() : MaxInputs();
  if (slot < 0 || (limit >= 0 && slot >= limit)) {
    const char* side = is_output ? "output" : "input";
    return InvalidArgument(def_->name() + ": constraint names " + side + " slot " +
                           std::to_string(slot) + " but the op has " + std::to_string(limit) + " " +
                           side + (limit == 1 ? "" : "s") + " (" + def_->Signature() + ")");
  }
  for (SbpConstraint& c : constraints_) {
    if (c.is_output == is_output && c.slot == slot) {
      c.nd_sbp = nd_sbp;
      return Status::Ok();
    }
  }
  constraints_.push_back({is_output, slot, nd_sbp});
  return Status::Ok();
}

Result<std::shared_ptr<const InferResult>> OpCall::Infer(InferCache* cache) const {
  return cache->GetOrInfer(*def_, inputs_, attrs_, constraints_);
}

Result<Explanation> OpCall::Explain() const {
  return infer::Explain(*def_, inputs_, attrs_, constraints_);
}

}  // namespace infer
}  // namespace tessera
