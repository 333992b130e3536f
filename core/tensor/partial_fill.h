// Partial values for tensors built locally (the creation functions): every rank holds
// a copy of its piece of the value, except that on each P (sum) hierarchy axis only
// coordinate 0 keeps it and the other coordinates hold 0 (-0.0 for floats: the IEEE
// additive identity, so an owned -0.0 sums back to -0.0). P(max) and P(min) axes keep
// the copy on every coordinate, because max and min are idempotent: max(v, v) = v.
//
// Copies rather than the reduction's identity (-inf / lowest for max) keep every value
// real, so the op signatures that hold for real values hold for these tensors too: with
// identities, 0 * -inf is NaN and an integer lowest() wraps under add or neg. Nesting
// of mixed kinds stays right: (P, P(max)) reduces to sum over axis 0 of max over axis 1
// of {v or 0}, which is v.
#ifndef TESSERA_CORE_TENSOR_PARTIAL_FILL_H_
#define TESSERA_CORE_TENSOR_PARTIAL_FILL_H_

#include "core/common/status.h"
#include "core/tensor/global_tensor.h"

namespace tessera {
namespace tensor {

// Zeroes `local`, where `t`'s local piece is being built in host memory (host_staging.h),
// when this rank's coordinate on some P (sum) axis is not 0. No-op for tensors without
// sum-partial axes or without a local piece.
Status ApplyPartialOwnership(const GlobalTensor& t, void* local);

}  // namespace tensor
}  // namespace tessera

#endif  // TESSERA_CORE_TENSOR_PARTIAL_FILL_H_
