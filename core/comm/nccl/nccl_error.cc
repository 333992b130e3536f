#include "core/comm/nccl/nccl_error.h"

#include <string>
#include <utility>

namespace tessera::comm {

Status NcclError(const char* call, ncclResult_t result, ncclComm_t comm) {
  std::string message = std::string(call) + " failed: " + ncclGetErrorString(result);
  // NCCL keeps the detailed reason (which rank, which device, which limit) apart from the
  // code's generic text; it is empty when NCCL recorded nothing.
  const char* last = ncclGetLastError(comm);
  if (last != nullptr && last[0] != '\0') message += std::string(": ") + last;
  if (result == ncclInvalidArgument || result == ncclInvalidUsage) {
    return InvalidArgument(std::move(message));
  }
  return Internal(std::move(message));
}

}  // namespace tessera::comm
