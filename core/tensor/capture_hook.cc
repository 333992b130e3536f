#include "core/tensor/capture_hook.h"

#include <string>

namespace tessera {
namespace tensor {
namespace {

CaptureHook& ThreadHook() {
  thread_local CaptureHook hook = nullptr;
  return hook;
}

}  // namespace

void SetThreadCaptureHook(CaptureHook hook) { ThreadHook() = hook; }

Status RecordCapturedCall(const op::OpDef& def, const Tensor* inputs, size_t num_inputs,
                          const op::AttrMap& attrs,
                          const std::vector<infer::SbpConstraint>& constraints,
                          std::vector<Tensor>* outputs) {
  CaptureHook hook = ThreadHook();
  if (hook != nullptr) return hook(def, inputs, num_inputs, attrs, constraints, outputs);
  for (size_t i = 0; i < num_inputs; ++i) {
    if (inputs[i] != nullptr && inputs[i]->is_placeholder()) {
      return FailedPrecondition(def.name() + ": input #" + std::to_string(i) + " (" +
                                inputs[i]->meta().ToString() +
                                ") is a placeholder, but no capture is active on this thread "
                                "(its capture ended, or it was made on another thread)");
    }
  }
  return Internal(def.name() + ": RecordCapturedCall without a placeholder input");
}

}  // namespace tensor
}  // namespace tessera
