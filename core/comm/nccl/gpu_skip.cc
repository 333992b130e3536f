#include "core/comm/nccl/gpu_skip.h"

#include "core/device/device.h"

namespace tessera::comm {

std::string NcclGpuSkipReason(int32_t world_size) {
  const Result<int> devices = device::DeviceCount();
  if (!devices.ok()) return devices.status().ToString();
  const int count = *devices;
  if (count == 0) return "no CUDA device visible";
  if (world_size > count) {
    return std::to_string(world_size) + " ranks but " + std::to_string(count) +
           " CUDA device(s) visible; NCCL refuses two ranks of one communicator on one device "
           "(\"Duplicate GPU detected\"), so this case needs " +
           std::to_string(world_size) + " GPUs";
  }
  return "";
}

}  // namespace tessera::comm
