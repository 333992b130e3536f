#include "core/plan/exec_util.h"

#include <cstring>
#include <string>

namespace tessera::plan {

Status CopyBytes(const tensor::CudaDevice* device, void* dst, bool dst_on_device, const void* src,
                 bool src_on_device, size_t bytes) {
  if (!dst_on_device && !src_on_device) {
    if (bytes > 0) std::memcpy(dst, src, bytes);
    return Status::Ok();
  }
  if (device == nullptr) return Internal("CopyBytes: a device copy without a CUDA device");
  if (!src_on_device) return tensor::CopyHostToDevice(*device, dst, src, bytes);
  if (!dst_on_device) return tensor::CopyDeviceToHost(*device, dst, src, bytes);
  return tensor::CopyDeviceToDevice(*device, dst, src, bytes);
}

Status Closed(const char* where) {
  return Status(StatusCode::kCancelled, std::string(where) + ": the instance is closed");
}

}  // namespace tessera::plan
