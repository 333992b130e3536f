// Registration entry points of the built-in op families, called explicitly by
// OpRegistry::Global() (no static registrars, so nothing for the linker to drop).
#ifndef TESSERA_CORE_OP_OPS_REGISTER_OPS_H_
#define TESSERA_CORE_OP_OPS_REGISTER_OPS_H_

#include "core/common/status.h"
#include "core/op/op_registry.h"

namespace tessera {
namespace op {

Status RegisterMatmulOps(OpRegistry* registry);       // matmul, batch_matmul
Status RegisterElementwiseOps(OpRegistry* registry);  // unary, scalar, binary, add_n, ...
Status RegisterReduceOps(OpRegistry* registry);       // reduce_*, softmax, log_softmax
Status RegisterShapeOps(OpRegistry* registry);        // transpose, reshape, concat, slice
Status RegisterGradOps(OpRegistry* registry);         // the backward-only ops (and the next)
Status RegisterScatterGradOps(OpRegistry* registry);  // gather_grad, slice_grad
Status RegisterOptimOps(OpRegistry* registry);        // sgd_update, adam_update
Status RegisterNnOps(OpRegistry* registry);       // gather, embedding, layer_norm, bias_add, ...
Status RegisterNnOps(OpRegistry* registry);       // gather, embedding, layer_norm, bias_add, ...
Status RegisterViewOps(OpRegistry* registry);     // expand, squeeze, unsqueeze, flatten
Status RegisterCompareOps(OpRegistry* registry);  // equal, less, ..., where
Status RegisterAxisOps(OpRegistry* registry);     // argmax, cumsum
Status RegisterLossOps(OpRegistry* registry);     // nll_loss, cross_entropy

// All of the above.
Status RegisterBuiltinOps(OpRegistry* registry);

}  // namespace op
}  // namespace tessera

#endif  // TESSERA_CORE_OP_OPS_REGISTER_OPS_H_
