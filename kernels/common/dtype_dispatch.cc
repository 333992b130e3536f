#include "kernels/common/dtype_dispatch.h"

#include <string>

#include "kernels/common/kernel_args.h"

namespace tessera {
namespace kernels {

bool InSet(DType dtype, DTypeSet set) {
  const bool floating =
      dtype == DType::kF32 || dtype == DType::kF64 || dtype == DType::kF16 || dtype == DType::kBF16;
  const bool index = dtype == DType::kI32 || dtype == DType::kI64;
  switch (set) {
    case DTypeSet::kFloating: return floating;
    case DTypeSet::kNumeric: return floating || index;
    case DTypeSet::kIndex: return index;
    case DTypeSet::kBool: return dtype == DType::kBool;
    case DTypeSet::kAll: return floating || index || dtype == DType::kBool;
  }
  return false;
}

const char* SetNames(DTypeSet set) {
  switch (set) {
    case DTypeSet::kFloating: return "f32, f64, f16, bf16";
    case DTypeSet::kNumeric: return "f32, f64, f16, bf16, i32, i64";
    case DTypeSet::kIndex: return "i32, i64";
    case DTypeSet::kBool: return "bool";
    case DTypeSet::kAll: return "f32, f64, f16, bf16, i32, i64, bool";
  }
  return "";
}

Status UnsupportedDType(const KernelContext& ctx, int input_slot, DTypeSet set, Device device) {
  return KernelError(ctx, "input \"" + InputName(ctx, input_slot) + "\" has dtype " +
                              DTypeName(ctx.inputs[input_slot].dtype) + "; the " +
                              DeviceTypeName(device) + " kernel supports " + SetNames(set));
}

}  // namespace kernels
}  // namespace tessera
