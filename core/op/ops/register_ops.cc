#include "core/op/ops/register_ops.h"

namespace tessera {
namespace op {

Status RegisterBuiltinOps(OpRegistry* registry) {
  TESS_RETURN_IF_ERROR(RegisterMatmulOps(registry));
  TESS_RETURN_IF_ERROR(RegisterElementwiseOps(registry));
  TESS_RETURN_IF_ERROR(RegisterReduceOps(registry));
  TESS_RETURN_IF_ERROR(RegisterShapeOps(registry));
  TESS_RETURN_IF_ERROR(RegisterNnOps(registry));
  TESS_RETURN_IF_ERROR(RegisterGradOps(registry));
  TESS_RETURN_IF_ERROR(RegisterViewOps(registry));
  TESS_RETURN_IF_ERROR(RegisterCompareOps(registry));
  TESS_RETURN_IF_ERROR(RegisterAxisOps(registry));
  TESS_RETURN_IF_ERROR(RegisterLossOps(registry));
  TESS_RETURN_IF_ERROR(RegisterOptimOps(registry));
  return Status::Ok();
}

}  // namespace op
}  // namespace tessera
