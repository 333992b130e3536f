// Element types. f16 and bf16 are 2-byte storage types (core/common/half.h): kernels
// compute them in f32 and round on store (docs/dtypes.md). bool (one byte, 0 or 1) is
// what comparisons produce; it has no sum, max or min reduction, so a bool tensor is
// never partial.
#ifndef TESSERA_CORE_COMMON_DTYPE_H_
#define TESSERA_CORE_COMMON_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/common/half.h"
#include "core/common/status.h"

namespace tessera {

// Values are part of the C ABI (tess_dtype): append only.
enum class DType : int {
  kF32 = 0,
  kF64 = 1,
  kI32 = 2,
  kI64 = 3,
  kF16 = 4,
  kBF16 = 5,
  kBool = 6,
};

inline constexpr int kNumDTypes = 7;

// "f32", "f64", "i32", "i64", "f16", "bf16", "bool".
const char* DTypeName(DType dtype);
size_t DTypeSize(DType dtype);
// True for every valid dtype (f16 and bf16 were once reserved names; callers keep the
// check so that a dtype added later can start out unsupported).
bool IsSupported(DType dtype);
bool IsValidDType(int value);
Result<DType> ParseDType(std::string_view text);

// The DType of a C++ element type: DTypeOf<float>::value == DType::kF32.
template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::kF32;
};
template <>
struct DTypeOf<double> {
  static constexpr DType value = DType::kF64;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr DType value = DType::kI32;
};
template <>
struct DTypeOf<int64_t> {
  static constexpr DType value = DType::kI64;
};
template <>
struct DTypeOf<Float16> {
  static constexpr DType value = DType::kF16;
};
template <>
struct DTypeOf<BFloat16> {
  static constexpr DType value = DType::kBF16;
};
template <>
struct DTypeOf<bool> {
  static constexpr DType value = DType::kBool;
};

}  // namespace tessera

#endif  // TESSERA_CORE_COMMON_DTYPE_H_
