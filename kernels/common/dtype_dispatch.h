// Dtype dispatch, once per kernel call: a generic lambda receives Type<T> and runs the
// typed loops (or launches the typed CUDA kernel), so no per-element branch or indirect
// call is left in them. Shared by every device's kernels.
#ifndef TESSERA_KERNELS_COMMON_DTYPE_DISPATCH_H_
#define TESSERA_KERNELS_COMMON_DTYPE_DISPATCH_H_

#include <cstdint>
#include <string>

#include "core/common/dtype.h"
#include "core/common/status.h"
#include "core/kernel/kernel.h"

namespace tessera {
namespace kernels {

// The element type as a value, for generic lambdas: [&](auto t) { using T = typename
// decltype(t)::type; ... }.
template <typename T>
struct Type {
  using type = T;
};

// f16 and bf16 visit as Float16/BFloat16 (core/common/half.h): kernels compute them
// in float and round on store.
enum class DTypeSet {
  kFloating,  // f32, f64, f16, bf16
  kNumeric,   // f32, f64, f16, bf16, i32, i64
  kIndex,     // i32, i64
  kBool,      // bool
  kAll,       // f32, f64, f16, bf16, i32, i64, bool
};

bool InSet(DType dtype, DTypeSet set);
// "f32, f64" and so on.
const char* SetNames(DTypeSet set);

// "<op>: input \"x\" has dtype i32; the cpu kernel supports f32, f64" (the device's
// name in place of cpu).
Status UnsupportedDType(const KernelContext& ctx, int input_slot, DTypeSet set, Device device);

// Calls fn(Type<T>{}) for `dtype`, which must be in kSet (check with InSet first).
template <DTypeSet kSet, typename Fn>
Status Visit(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kF32:
      if constexpr (kSet != DTypeSet::kIndex && kSet != DTypeSet::kBool) return fn(Type<float>{});
      break;
    case DType::kF64:
      if constexpr (kSet != DTypeSet::kIndex && kSet != DTypeSet::kBool) return fn(Type<double>{});
      break;
    case DType::kF16:
      if constexpr (kSet != DTypeSet::kIndex && kSet != DTypeSet::kBool) return fn(Type<Float16>{});
      break;
    case DType::kBF16:
      if constexpr (kSet != DTypeSet::kIndex && kSet != DTypeSet::kBool) {
        return fn(Type<BFloat16>{});
      }
      break;
    case DType::kI32:
      if constexpr (kSet != DTypeSet::kFloating && kSet != DTypeSet::kBool) {
        return fn(Type<int32_t>{});
      }
      break;
    case DType::kI64:
      if constexpr (kSet != DTypeSet::kFloating && kSet != DTypeSet::kBool) {
        return fn(Type<int64_t>{});
      }
      break;
    case DType::kBool:
      if constexpr (kSet == DTypeSet::kBool || kSet == DTypeSet::kAll) return fn(Type<bool>{});
      break;
    default: break;
  }
  return Internal(std::string("Visit: dtype ") + DTypeName(dtype) + " is not in " + SetNames(kSet));
}

// Calls fn(Type<T>{}) for the dtype of input `input_slot`, or names the op, the input,
// the dtype and what kDevice's kernel supports.
template <Device kDevice, DTypeSet kSet, typename Fn>
Status DispatchOn(const KernelContext& ctx, int input_slot, Fn&& fn) {
  const DType dtype = ctx.inputs[input_slot].dtype;
  if (!InSet(dtype, kSet)) return UnsupportedDType(ctx, input_slot, kSet, kDevice);
  return Visit<kSet>(dtype, fn);
}

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_COMMON_DTYPE_DISPATCH_H_
