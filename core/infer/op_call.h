// One op call as a caller describes it before inference: the op, its attributes, its
// inputs' metas and optional SBP constraints.
//
// Each setter checks what it can at once (attribute names and types against the op's
// schema; each input's shape, dtype and nd-sbp; one placement for all inputs), so a
// mistake is reported where it is made. What needs the whole call (the input count,
// required attributes, the shape function, constraints against shapes) is checked by
// inference. The C API (tess_op_call) and the `tessera explain` CLI both build calls
// with it, so they report the same messages.
#ifndef TESSERA_CORE_INFER_OP_CALL_H_
#define TESSERA_CORE_INFER_OP_CALL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/status.h"
#include "core/infer/explain.h"
#include "core/infer/infer.h"
#include "core/infer/infer_cache.h"
#include "core/infer/tensor_meta.h"
#include "core/op/attr.h"
#include "core/op/op_def.h"
#include "core/op/op_registry.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera {
namespace infer {

class OpCall {
 public:
  // `def` must outlive the call (registry ops live forever).
  explicit OpCall(const op::OpDef& def) : def_(&def) {}
  // The op named `op_name` in `registry`; NOT_FOUND naming close names otherwise.
  static Result<OpCall> Make(std::string_view op_name,
                             const op::OpRegistry& registry = op::OpRegistry::Global());

  const op::OpDef& def() const { return *def_; }
  const op::AttrMap& attrs() const { return attrs_; }
  const std::vector<TensorMeta>& inputs() const { return inputs_; }
  const std::vector<SbpConstraint>& constraints() const { return constraints_; }

  // Sets or replaces attribute `name`; INVALID_ARGUMENT for a name the op does not
  // declare or a value of the wrong type.
  Status SetAttr(std::string_view name, op::AttrValue value);
  // Appends the next input (slot inputs().size()). `dtype` is a DType value.
  // INVALID_ARGUMENT naming the input for a bad shape or dtype, an nd-sbp that does
  // not fit the placement or shape, a placement other than the first input's, or an
  // input past the op's last.
  Status AddInput(const std::vector<int64_t>& shape, int dtype, const Placement& placement,
                  const NdSbp& nd_sbp);
  // Requires input (or output) `slot` to have `nd_sbp`; replaces an earlier
  // constraint on the same slot. INVALID_ARGUMENT for a slot past the op's last.
  Status Constrain(bool is_output, int slot, const NdSbp& nd_sbp);

  // Inference through `cache` (InferCache::GetOrInfer).
  Result<std::shared_ptr<const InferResult>> Infer(InferCache* cache) const;
  // The explain record (infer::Explain).
  Result<Explanation> Explain() const;

  // How messages name input `slot`: "input \"a\"", or "input #3" where a repeated
  // argument makes the name depend on the final input count.
  std::string InputLabel(int slot) const;
  // The most inputs the op takes; -1 when a repeated input is unbounded.
  int MaxInputs() const;

 private:
  const op::OpDef* def_;
  op::AttrMap attrs_;
  std::vector<TensorMeta> inputs_;
  std::vector<SbpConstraint> constraints_;
};

}  // namespace infer
}  // namespace tessera

#endif  // TESSERA_CORE_INFER_OP_CALL_H_
