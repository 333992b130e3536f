// The eager interpreter: applies one op to global tensors.
//
//   1. inference through the calling thread's cache (a hit allocates nothing);
//   2. inputs whose nd-sbp differs from the chosen signature's are boxed (ToGlobal);
//   3. outputs are allocated with this rank's local shapes (caching allocator);
//   4. the op's local kernel runs on this rank's pieces: a signature is valid exactly
//      when the kernel on the pieces yields the output's pieces, so no op needs
//      per-shard attributes (slice, for one, only keeps a split axis it leaves whole);
//      on a cuda placement the op's CUDA kernel is queued on Tessera's stream of the
//      rank's device and not waited for: the host waits only where data leaves the
//      device (to_host, copy_local, a DLPack export), where kernel errors surface;
//   5. the outputs are wrapped as global tensors.
// Ranks outside the placement do steps 1-2 (boxing is collective over the union of
// placements) and return metadata-only outputs.
//
// A call with a placeholder input (core/plan/capture.h) is recorded by the thread's
// capture instead (capture_hook.h) and returns placeholders.
//
// Ops on tensors with different placements are an error naming both; to_global is the
// explicit move. The hot path (cache hit, no boxing) takes no lock and allocates only
// the output tensors: thread-local scratch holds the metas and kernel arguments.
#ifndef TESSERA_CORE_EAGER_INTERPRETER_H_
#define TESSERA_CORE_EAGER_INTERPRETER_H_

#include <memory>
#include <string_view>
#include <vector>

#include "core/common/status.h"
#include "core/infer/infer.h"
#include "core/infer/tensor_meta.h"
#include "core/op/attr.h"
#include "core/op/op_def.h"
#include "core/tensor/global_tensor.h"

namespace tessera {
namespace eager {

// Runs `def` on `inputs` (flat: a repeated argument's tensors in order) and appends the
// op's outputs to `outputs` (cleared first). `constraints` pin input/output nd-sbps.
Status Apply(const op::OpDef& def, const tensor::Tensor* inputs, size_t num_inputs,
             const op::AttrMap& attrs, std::vector<tensor::Tensor>* outputs,
             const std::vector<infer::SbpConstraint>& constraints = {});

// Convenience: by op name (NOT_FOUND naming close names for an unknown op).
Result<std::vector<tensor::Tensor>> Apply(
    std::string_view op_name, const std::vector<tensor::Tensor>& inputs,
    const op::AttrMap& attrs = {}, const std::vector<infer::SbpConstraint>& constraints = {});

// The inference record of the calling thread's most recent Apply (for explain): NULL
// before the first call.
std::shared_ptr<const infer::InferResult> LastInferResult();

}  // namespace eager
}  // namespace tessera

#endif  // TESSERA_CORE_EAGER_INTERPRETER_H_
