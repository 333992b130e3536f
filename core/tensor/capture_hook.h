// How plan capture (core/plan/capture.h) receives the op calls made on placeholder
// tensors. Eager code cannot depend on the plan layer, so capture installs a hook on its
// thread; Apply and ToGlobal hand every call with a placeholder input to it instead of
// running a kernel, and the hook returns placeholder outputs.
#ifndef TESSERA_CORE_TENSOR_CAPTURE_HOOK_H_
#define TESSERA_CORE_TENSOR_CAPTURE_HOOK_H_

#include <cstddef>
#include <vector>

#include "core/common/status.h"
#include "core/infer/tensor_meta.h"
#include "core/op/attr.h"
#include "core/op/op_def.h"
#include "core/tensor/global_tensor.h"

namespace tessera {
namespace tensor {

using CaptureHook = Status (*)(const op::OpDef& def, const Tensor* inputs, size_t num_inputs,
                               const op::AttrMap& attrs,
                               const std::vector<infer::SbpConstraint>& constraints,
                               std::vector<Tensor>* outputs);

// Installs (or, with NULL, removes) the calling thread's hook.
void SetThreadCaptureHook(CaptureHook hook);

// Hands the call to the calling thread's hook. FAILED_PRECONDITION naming the op and the
// placeholder when no capture is active on this thread (its capture ended, or it was
// made on another thread).
Status RecordCapturedCall(const op::OpDef& def, const Tensor* inputs, size_t num_inputs,
                          const op::AttrMap& attrs,
                          const std::vector<infer::SbpConstraint>& constraints,
                          std::vector<Tensor>* outputs);

}  // namespace tensor
}  // namespace tessera

#endif  // TESSERA_CORE_TENSOR_CAPTURE_HOOK_H_
