#include "core/device/nccl_version.h"

#include <nccl.h>

#include <string>

namespace tessera {
namespace device {

Result<int> NcclVersion() {
  int version = 0;
  const ncclResult_t result = ncclGetVersion(&version);
  if (result != ncclSuccess) {
    return Internal(std::string("ncclGetVersion failed: ") + ncclGetErrorString(result));
  }
  return version;
}

}  // namespace device
}  // namespace tessera
