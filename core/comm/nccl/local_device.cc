#include "core/comm/nccl/local_device.h"

#include <climits>
#include <optional>
#include <string>

#include "core/comm/env_config.h"
#include "core/comm/mpi_world.h"
#include "core/device/device.h"
#include "core/device/device_selection.h"

namespace tessera::comm {
namespace {

constexpr const char* kLocalRankVariable = "OMPI_COMM_WORLD_LOCAL_RANK";

Result<int> VisibleDevices() {
  TESS_ASSIGN_OR_RETURN(int count, device::DeviceCount());
  if (count == 0) return Unavailable("no CUDA device visible");
  return count;
}

}  // namespace

Result<int32_t> LocalRank() {
  TESS_ASSIGN_OR_RETURN(std::optional<int64_t> local, EnvInt64(kLocalRankVariable, 0));
  if (local.has_value()) {
    if (*local > INT32_MAX) {
      return OutOfRange(std::string("LocalRank: ") + kLocalRankVariable + " is " +
                        std::to_string(*local) + ", beyond any rank");
    }
    return static_cast<int32_t>(*local);
  }
  TESS_ASSIGN_OR_RETURN(int32_t size, WorldSize());
  if (size == 1) return 0;
  return FailedPrecondition(std::string("LocalRank: ") + kLocalRankVariable +
                            " is unset in a world of " + std::to_string(size) +
                            " ranks; start the program with Open MPI's mpirun");
}

Result<int> DefaultDevice() {
  if (std::optional<int> chosen = device::SelectedDevice()) {
    TESS_RETURN_IF_ERROR(CheckDevice(*chosen));
    return *chosen;
  }
  TESS_ASSIGN_OR_RETURN(int count, VisibleDevices());
  TESS_ASSIGN_OR_RETURN(int32_t local_rank, LocalRank());
  return local_rank % count;
}

Status CheckDevice(int device) {
  if (device < 0) {
    return InvalidArgument("CUDA device " + std::to_string(device) + " is negative");
  }
  TESS_ASSIGN_OR_RETURN(int count, VisibleDevices());
  if (device >= count) {
    return OutOfRange("CUDA device " + std::to_string(device) + " is not one of the " +
                      std::to_string(count) + " visible devices (0.." + std::to_string(count - 1) +
                      ")");
  }
  return Status::Ok();
}

}  // namespace tessera::comm
