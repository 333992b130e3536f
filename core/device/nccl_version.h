// The NCCL library version, as a link-level check that NCCL is usable.
#ifndef TESSERA_CORE_DEVICE_NCCL_VERSION_H_
#define TESSERA_CORE_DEVICE_NCCL_VERSION_H_

#include "core/common/status.h"

namespace tessera {
namespace device {

// Version of the NCCL library linked at run time (not the header), encoded as
// 10000 * major + 100 * minor + patch, e.g. 22809 for 2.28.9. Needs no GPU.
Result<int> NcclVersion();

}  // namespace device
}  // namespace tessera

#endif  // TESSERA_CORE_DEVICE_NCCL_VERSION_H_
