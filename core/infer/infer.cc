#include "core/infer/infer.h"

#include "core/infer/search.h"

namespace tessera {
namespace infer {

Result<InferResult> InferSignature(const op::OpDef& def, const std::vector<TensorMeta>& inputs,
                                   const op::AttrMap& attrs,
                                   const std::vector<SbpConstraint>& constraints) {
  InferResult result;
  TESS_RETURN_IF_ERROR(Search(def, inputs, attrs, constraints, &result, nullptr));
  return result;
}

}  // namespace infer
}  // namespace tessera
