#include "core/common/dtype.h"

#include <string>

namespace tessera {

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "f32";
    case DType::kF64: return "f64";
    case DType::kI32: return "i32";
    case DType::kI64: return "i64";
    case DType::kF16: return "f16";
    case DType::kBF16: return "bf16";
    case DType::kBool: return "bool";
  }
  return "invalid";
}

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kF32: return 4;
    case DType::kF64: return 8;
    case DType::kI32: return 4;
    case DType::kI64: return 8;
    case DType::kF16: return 2;
    case DType::kBF16: return 2;
    case DType::kBool: return 1;
  }
  return 0;
}

bool IsSupported(DType dtype) { return IsValidDType(static_cast<int>(dtype)); }

bool IsValidDType(int value) { return value >= 0 && value < kNumDTypes; }

Result<DType> ParseDType(std::string_view text) {
  for (int i = 0; i < kNumDTypes; ++i) {
    DType d = static_cast<DType>(i);
    if (text == DTypeName(d)) return d;
  }
  return InvalidArgument("unknown dtype \"" + std::string(text) +
                         "\"; expected one of f32, f64, i32, i64, f16, bf16, bool");
}

}  // namespace tessera
