// Small checks shared by the op families' shape functions; every error names the op,
// the argument and the values.
#ifndef TESSERA_CORE_OP_OPS_UTIL_H_
#define TESSERA_CORE_OP_OPS_UTIL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/status.h"
#include "core/op/op_context.h"

namespace tessera {
namespace op {

class SignatureList;

bool IsFloating(DType dtype);
bool IsInteger(DType dtype);

// "[0,2]".
std::string IntsToString(const std::vector<int64_t>& values);

// Maps `axis` in [-ndim, ndim) to [0, ndim); the error names the attribute and the
// input whose rank bounds it.
Result<int> NormalizeAxis(const OpContext& ctx, std::string_view attr, int64_t axis, int ndim,
                          std::string_view input);

// Errors unless input `arg` has a floating dtype (f32, f64, f16, bf16).
Status ExpectFloating(const OpContext& ctx, std::string_view arg);
// Errors unless input `arg` has dtype i32 or i64.
Status ExpectIndex(const OpContext& ctx, std::string_view arg);
// Errors unless inputs `arg` and `other` have the same dtype.
Status ExpectSameDType(const OpContext& ctx, std::string_view arg, std::string_view other);
// Errors unless input `arg` has exactly `ndim` dims (or at least, when `at_least`).
Status ExpectRank(const OpContext& ctx, std::string_view arg, int ndim, bool at_least = false);

// Builds a Shape from dims, turning too many dims into an error naming the op.
Result<Shape> MakeShape(const OpContext& ctx, const std::vector<int64_t>& dims,
                        std::string_view what);

// ---- numpy broadcasting (right-aligned; a size-1 or missing axis stretches) ----

// The broadcast of the shapes of inputs `args`; the error names two arguments that
// conflict and the axis.
Result<Shape> BroadcastShape(const OpContext& ctx, const std::vector<const char*>& args);

// For each output axis i of size > 1 (output "out"): an operand that has the full axis
// splits with it; one that lacks it or has size 1 there is broadcast along it anyway,
// so every rank needs all of it (B).
void BroadcastSplits(const OpContext& ctx, SignatureList* list,
                     const std::vector<const char*>& args);

// ---- signatures shared by the ops that move elements without changing them ----

// out = pick(x) element by element, so reduce_r pick(x_r) = pick(reduce_r x_r) for
// sum, max and min alike: P -> P, P(max) -> P(max), P(min) -> P(min) over every input
// and output.
void PartialsPassThrough(SignatureList* list);

// The splits of a row-major reshape of input "x" into output "out" (reshape, squeeze,
// unsqueeze, flatten). Size-1 dims aside, the row-major element order is shared, so
// input and output dims group into runs with equal products. Splitting the leading dim
// of an input run gives each rank a contiguous block of the run; it is the same block
// as splitting the leading dim of the output run when both leading dims are equal
// (identical balanced splits), or when both divide evenly by the placement's total
// rank count (so nested N-d splits stay even at every level and cut at the same
// offsets).
void ReshapeSplits(const OpContext& ctx, SignatureList* list);

}  // namespace op
}  // namespace tessera

#endif  // TESSERA_CORE_OP_OPS_UTIL_H_
