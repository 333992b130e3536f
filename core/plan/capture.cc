#include "core/plan/capture.h"

#include <atomic>
#include <unordered_map>
#include <utility>

#include "core/infer/tensor_meta.h"
#include "core/tensor/capture_hook.h"

namespace tessera::plan {
namespace {

struct Capture {
  uint64_t id = 0;
  Program program;
  // Real tensors already made variables, so one used twice is one variable.
  std::unordered_map<const tensor::GlobalTensor*, ValueId> variables;
};

std::unique_ptr<Capture>& ThreadCapture() {
  thread_local std::unique_ptr<Capture> capture;
  return capture;
}

// Capture ids start at 1 (0 marks a real tensor) and are unique across threads, so a
// placeholder can never be mistaken for one of a later capture.
uint64_t NextCaptureId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

tensor::Tensor PlaceholderOf(const Capture& c, ValueId id) {
  return tensor::GlobalTensor::Placeholder(c.program.value(id).meta, c.id, id);
}

// The program value for op input `t`: its own for a placeholder of this capture, a
// (possibly new) variable for a real tensor.
Result<ValueId> ValueFor(Capture& c, const std::string& op_name, size_t index,
                         const tensor::Tensor& t) {
  if (t->is_placeholder()) {
    if (t->capture_id() != c.id) {
      return FailedPrecondition(op_name + ": input #" + std::to_string(index) + " (" +
                                t->meta().ToString() +
                                ") is a placeholder of an earlier capture, not of the active one");
    }
    return t->placeholder_value();
  }
  auto it = c.variables.find(t.get());
  if (it != c.variables.end()) return it->second;
  TESS_ASSIGN_OR_RETURN(ValueId id,
                        c.program.AddVariable("v" + std::to_string(c.variables.size()), t));
  c.variables.emplace(t.get(), id);
  return id;
}

Status RecordCall(const op::OpDef& def, const tensor::Tensor* inputs, size_t num_inputs,
                  const op::AttrMap& attrs, const std::vector<infer::SbpConstraint>& constraints,
                  std::vector<tensor::Tensor>* outputs) {
  Capture* c = ThreadCapture().get();
  if (c == nullptr) return Internal(def.name() + ": capture hook called without a capture");
  std::vector<ValueId> ids;
  ids.reserve(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) {
    TESS_ASSIGN_OR_RETURN(ValueId id, ValueFor(*c, def.name(), i, inputs[i]));
    ids.push_back(id);
  }
  TESS_ASSIGN_OR_RETURN(std::vector<ValueId> out_ids,
                        c->program.AddOp(def.name(), ids, attrs, constraints));
  outputs->clear();
  for (ValueId id : out_ids) outputs->push_back(PlaceholderOf(*c, id));
  return Status::Ok();
}

}  // namespace

Status BeginCapture() {
  std::unique_ptr<Capture>& capture = ThreadCapture();
  if (capture != nullptr) {
    return FailedPrecondition("BeginCapture: a capture is already active on this thread (" +
                              std::to_string(capture->program.ops().size()) +
                              " ops recorded); end or abort it first");
  }
  capture = std::make_unique<Capture>();
  capture->id = NextCaptureId();
  tensor::SetThreadCaptureHook(&RecordCall);
  return Status::Ok();
}

bool Capturing() { return ThreadCapture() != nullptr; }

Result<tensor::Tensor> CapturePlaceholder(std::string name, const Shape& shape, DType dtype,
                                          const Placement& placement,
                                          const std::optional<NdSbp>& nd_sbp) {
  Capture* c = ThreadCapture().get();
  if (c == nullptr) {
    return FailedPrecondition("CapturePlaceholder(\"" + name +
                              "\"): no capture is active on this thread (BeginCapture first)");
  }
  TESS_ASSIGN_OR_RETURN(ValueId id,
                        c->program.AddInput(std::move(name), shape, dtype, placement, nd_sbp));
  return PlaceholderOf(*c, id);
}

Result<tensor::Tensor> CaptureVariable(const tensor::Tensor& t) {
  Capture* c = ThreadCapture().get();
  if (c == nullptr) {
    return FailedPrecondition(
        "CaptureVariable: no capture is active on this thread (BeginCapture first)");
  }
  if (t == nullptr) return InvalidArgument("CaptureVariable: t is NULL");
  if (t->is_placeholder()) {
    return InvalidArgument("CaptureVariable: t (" + t->meta().ToString() +
                           ") is already a placeholder");
  }
  TESS_ASSIGN_OR_RETURN(ValueId id, ValueFor(*c, "CaptureVariable", 0, t));
  return PlaceholderOf(*c, id);
}

Status CaptureAssign(const tensor::Tensor& target, const tensor::Tensor& value) {
  Capture* c = ThreadCapture().get();
  if (c == nullptr) {
    return FailedPrecondition(
        "CaptureAssign: no capture is active on this thread (BeginCapture "
        "first)");
  }
  if (target == nullptr) return InvalidArgument("CaptureAssign: target is NULL");
  if (value == nullptr) return InvalidArgument("CaptureAssign: value is NULL");
  if (target->is_placeholder()) {
    return InvalidArgument("CaptureAssign: target (" + target->meta().ToString() +
                           ") is a placeholder; only a real tensor persists across runs");
  }
  if (!value->is_placeholder()) {
    return InvalidArgument("CaptureAssign: value (" + value->meta().ToString() +
                           ") is a real tensor, not a result of the capture");
  }
  TESS_ASSIGN_OR_RETURN(ValueId v, ValueFor(*c, "CaptureAssign", 1, value));
  TESS_ASSIGN_OR_RETURN(ValueId t, ValueFor(*c, "CaptureAssign", 0, target));
  return c->program.AddAssign(t, v);
}

Result<std::unique_ptr<Program>> EndCapture(const std::vector<tensor::Tensor>& outputs) {
  std::unique_ptr<Capture> c = std::move(ThreadCapture());
  tensor::SetThreadCaptureHook(nullptr);
  if (c == nullptr) {
    return FailedPrecondition("EndCapture: no capture is active on this thread");
  }
  if (outputs.empty()) {
    return InvalidArgument("EndCapture: no outputs; a program needs at least one");
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const tensor::Tensor& t = outputs[i];
    const std::string where = "EndCapture: output #" + std::to_string(i);
    if (t == nullptr) return InvalidArgument(where + " is NULL");
    if (!t->is_placeholder()) {
      return InvalidArgument(where + " (" + t->meta().ToString() +
                             ") is a real tensor, not a result of the capture");
    }
    if (t->capture_id() != c->id) {
      return InvalidArgument(where + " (" + t->meta().ToString() +
                             ") is a placeholder of another capture");
    }
    Status marked = c->program.MarkOutput(t->placeholder_value());
    if (!marked.ok()) return InvalidArgument(where + ": " + marked.message());
  }
  return std::make_unique<Program>(std::move(c->program));
}

void AbortCapture() {
  ThreadCapture().reset();
  tensor::SetThreadCaptureHook(nullptr);
}

}  // namespace tessera::plan
