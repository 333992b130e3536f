#include "core/boxing/reduction_identity.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/common/half.h"

namespace tessera::boxing {
namespace {

template <typename T>
T Identity(comm::ReduceOp op) {
  using Limits = std::numeric_limits<T>;
  switch (op) {
    // -0.0, not +0.0: x + (-0.0) is x for every x, -0.0 included, where -0.0 + (+0.0)
    // is +0.0. So a value a rank owns alone (B -> P, S -> P) sums back bit-exactly.
    // (T(...) around the negations: on f16/bf16, unary minus computes in float.)
    case comm::ReduceOp::kSum: return Limits::is_iec559 ? T(-T(0)) : T(0);
    case comm::ReduceOp::kMax:
      return Limits::has_infinity ? T(-Limits::infinity()) : Limits::lowest();
    case comm::ReduceOp::kMin: return Limits::has_infinity ? Limits::infinity() : Limits::max();
  }
  return T(0);
}

template <typename T>
void Fill(void* buffer, int64_t count, comm::ReduceOp op) {
  if (op == comm::ReduceOp::kSum && std::is_integral_v<T>) {
    // All-zero bytes are an integer 0; memset is the fastest fill.
    std::memset(buffer, 0, static_cast<size_t>(count) * sizeof(T));
    return;
  }
  std::fill_n(static_cast<T*>(buffer), count, Identity<T>(op));
}

}  // namespace

void FillReductionIdentity(void* buffer, int64_t count, DType dtype, comm::ReduceOp op) {
  if (count == 0) return;
  switch (dtype) {
    case DType::kF32: return Fill<float>(buffer, count, op);
    case DType::kF64: return Fill<double>(buffer, count, op);
    case DType::kI32: return Fill<int32_t>(buffer, count, op);
    case DType::kI64: return Fill<int64_t>(buffer, count, op);
    case DType::kF16: return Fill<Float16>(buffer, count, op);
    case DType::kBF16: return Fill<BFloat16>(buffer, count, op);
    case DType::kBool: break;  // never partial: nothing reduces it
  }
}

}  // namespace tessera::boxing
