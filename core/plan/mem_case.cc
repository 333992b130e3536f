#include "core/plan/mem_case.h"

namespace tessera::plan {

std::string MemCase::ToString() const {
  if (is_host()) return "cpu";
  return std::string(DeviceTypeName(device_type)) + ":" + std::to_string(device_index);
}

Status CheckMemCase(const MemCase& mem_case, const std::string& where) {
  const int type = static_cast<int>(mem_case.device_type);
  if (mem_case.device_type != DeviceType::kCpu && mem_case.device_type != DeviceType::kCuda) {
    return InvalidArgument(where + ": memory case has device type " + std::to_string(type) +
                           "; expected cpu (0) or cuda (1)");
  }
  if (mem_case.is_host() && mem_case.device_index != 0) {
    return InvalidArgument(where + ": host memory case has device index " +
                           std::to_string(mem_case.device_index) + "; host memory has index 0");
  }
  if (mem_case.device_index < 0) {
    return InvalidArgument(where + ": memory case cuda:" + std::to_string(mem_case.device_index) +
                           " has a negative device index");
  }
  return Status::Ok();
}

}  // namespace tessera::plan
