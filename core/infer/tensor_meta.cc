#include "core/infer/tensor_meta.h"

#include "core/common/hash.h"

namespace tessera {
namespace infer {

Result<TensorMeta> TensorMeta::Make(Shape shape, DType dtype, Placement placement, NdSbp nd_sbp) {
  if (!IsValidDType(static_cast<int>(dtype))) {
    return InvalidArgument("dtype value " + std::to_string(static_cast<int>(dtype)) +
                           " is not a known dtype");
  }
  TESS_RETURN_IF_ERROR(shape.CheckByteSize(DTypeSize(dtype), DTypeName(dtype)));
  TESS_ASSIGN_OR_RETURN(nd_sbp, ResolveNdSbp(nd_sbp, shape));
  TESS_RETURN_IF_ERROR(ValidateNdSbp(nd_sbp, placement, shape));
  TESS_RETURN_IF_ERROR(CheckBoolNotPartial(dtype, nd_sbp, "tensor"));
  return TensorMeta{shape, dtype, std::move(placement), nd_sbp};
}

std::string TensorMeta::ToString() const {
  return shape.ToString() + " " + DTypeName(dtype) + " " + placement.ToString() + " " +
         nd_sbp.ToString();
}

size_t TensorMeta::Hash() const {
  size_t h = shape.Hash();
  h = HashCombine(h, static_cast<size_t>(dtype));
  h = HashCombine(h, placement.Hash());
  return HashCombine(h, nd_sbp.Hash());
}

}  // namespace infer
}  // namespace tessera
