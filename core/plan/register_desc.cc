#include "core/plan/register_desc.h"

#include <limits>

#include "core/common/checked_math.h"

namespace tessera::plan {
namespace {

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

Status Overflow(const std::string& what, const std::string& expression) {
  return OutOfRange(what + " overflows int64: " + expression);
}

}  // namespace

bool operator==(const RegisterLayout& a, const RegisterLayout& b) {
  return a.data_bytes == b.data_bytes && a.header_bytes == b.header_bytes &&
         a.body_bytes == b.body_bytes && a.total_bytes == b.total_bytes &&
         a.block_bytes == b.block_bytes && a.header_area_bytes == b.header_area_bytes;
}

std::string RegisterName(const std::string& where, const RegisterDesc& desc, int64_t id) {
  return where + " register \"" + desc.name + "\" (#" + std::to_string(id) + ")";
}

Result<int64_t> CheckedAlignUp(int64_t x, int64_t multiple, const std::string& what) {
  if (x > kMaxInt64 - (multiple - 1)) {
    return Overflow(what, "RoundUp(" + std::to_string(x) + ", " + std::to_string(multiple) + ")");
  }
  return (x + multiple - 1) & ~(multiple - 1);
}

Result<int64_t> CheckedMul(int64_t a, int64_t b, const std::string& what) {
  int64_t product = 0;
  if (!tessera::CheckedMul(a, b, &product)) {
    return Overflow(what, std::to_string(a) + " * " + std::to_string(b));
  }
  return product;
}

Result<int64_t> CheckedAdd(int64_t a, int64_t b, const std::string& what) {
  int64_t sum = 0;
  if (!tessera::CheckedAdd(a, b, &sum)) {
    return Overflow(what, std::to_string(a) + " + " + std::to_string(b));
  }
  return sum;
}

Result<RegisterLayout> ComputeRegisterLayout(const RegisterDesc& desc, int64_t id,
                                             const std::string& where) {
  const std::string who = RegisterName(where + ":", desc, id);
  TESS_RETURN_IF_ERROR(CheckMemCase(desc.mem_case, who));
  if (!IsValidDType(static_cast<int>(desc.dtype))) {
    return InvalidArgument(who + ": dtype " + std::to_string(static_cast<int>(desc.dtype)) +
                           " is not a DType");
  }
  if (desc.register_num < 1) {
    return InvalidArgument(who + ": register_num is " + std::to_string(desc.register_num) +
                           "; it must be >= 1");
  }
  TESS_RETURN_IF_ERROR(CheckLifetime(desc.lifetime, who));

  const std::string shape_text = " of shape " + desc.shape.ToString();
  RegisterLayout layout;
  int64_t elements = 1;
  for (int i = 0; i < desc.shape.ndim(); ++i) {
    if (desc.shape.dim(i) < 0) {
      return InvalidArgument(who + ": shape " + desc.shape.ToString() + " has negative dim " +
                             std::to_string(i));
    }
    TESS_ASSIGN_OR_RETURN(
        elements, CheckedMul(elements, desc.shape.dim(i), who + ": element count" + shape_text));
  }
  const int64_t element_bytes = static_cast<int64_t>(DTypeSize(desc.dtype));
  TESS_ASSIGN_OR_RETURN(layout.data_bytes,
                        CheckedMul(elements, element_bytes, who + ": byte size" + shape_text));
  layout.header_bytes =
      (desc.shape.ndim() * 8 + kBlobHeaderAlignment - 1) & ~(kBlobHeaderAlignment - 1);
  TESS_ASSIGN_OR_RETURN(layout.body_bytes, CheckedAlignUp(layout.data_bytes, kBlobBodyAlignment,
                                                          who + ": body size" + shape_text));
  const int64_t copies = desc.register_num;
  const std::string copies_text = " with register_num " + std::to_string(copies);
  TESS_ASSIGN_OR_RETURN(layout.block_bytes,
                        CheckedMul(layout.body_bytes, copies, who + ": bodies" + copies_text));
  layout.header_area_bytes = layout.header_bytes * copies;  // < 64 * 2^31: no overflow
  TESS_ASSIGN_OR_RETURN(layout.total_bytes, CheckedAdd(layout.block_bytes, layout.header_area_bytes,
                                                       who + ": total size" + copies_text));
  return layout;
}

}  // namespace tessera::plan
