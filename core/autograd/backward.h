// Backward: the gradients of roots with respect to every leaf that requires one.
//
// Each root's gradient is `root_grads[i]`, or, when that is null, ones of the root's
// shape (broadcast on its placement; a non-scalar root without a gradient is
// INVALID_ARGUMENT, as a loss must be a scalar to default to 1). Nodes run when every
// gradient of their outputs has arrived, latest recorded first; contributions to one
// value are summed with the "add" op, and a leaf's gradient is added to what earlier
// backward passes left in its `grad` (accumulation; zero it between steps). Each
// leaf's hooks fire once its gradient for this pass is final.
//
// The gradient ops run eagerly with grad mode off (no higher-order gradients), each
// through signature inference, so gradients come out with whatever SBP inference
// chose (a P gradient stays P until an optimizer or the user asks for another
// layout). Without retain_graph the saved tensors of every visited node are dropped,
// and a second backward through them is FAILED_PRECONDITION.
//
// Errors: an op without a declared gradient on the path (UNIMPLEMENTED naming the
// op and the input), a root that requires no gradient, a gradient of the wrong
// shape or dtype (INVALID_ARGUMENT naming the root). SPMD: every rank of the
// placements calls it alike, as with any op.
#ifndef TESSERA_CORE_AUTOGRAD_BACKWARD_H_
#define TESSERA_CORE_AUTOGRAD_BACKWARD_H_

#include <vector>

#include "core/autograd/variable.h"

namespace tessera {
namespace autograd {

Status Backward(const std::vector<Variable>& roots, const std::vector<tensor::Tensor>& root_grads,
                bool retain_graph = false);

}  // namespace autograd
}  // namespace tessera

#endif  // TESSERA_CORE_AUTOGRAD_BACKWARD_H_
