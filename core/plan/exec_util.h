// What the files of PlanInstance share: copies between host and device memory, and the
// error of a call on a closed instance.
#ifndef TESSERA_CORE_PLAN_EXEC_UTIL_H_
#define TESSERA_CORE_PLAN_EXEC_UTIL_H_

#include <cstddef>

#include "core/common/status.h"
#include "core/tensor/cuda_device.h"

namespace tessera::plan {

// Copies `bytes` from `src` to `dst`, each in host memory or in memory of `device`'s
// (which must be non-null when either side is on the device). Device copies wait.
Status CopyBytes(const tensor::CudaDevice* device, void* dst, bool dst_on_device, const void* src,
                 bool src_on_device, size_t bytes);

// CANCELLED "<where>: the instance is closed".
Status Closed(const char* where);

}  // namespace tessera::plan

#endif  // TESSERA_CORE_PLAN_EXEC_UTIL_H_
