#include "core/boxing/local_ops.h"

#include "core/boxing/reduction_identity.h"
#include "core/boxing/strided_copy.h"

namespace tessera::boxing {
namespace {

class HostOps final : public LocalOps {
 public:
  DeviceType device_type() const override { return DeviceType::kCpu; }
  Status CopyBytes(void* dst, const void* src, size_t bytes) const override {
    boxing::CopyBytes(dst, src, bytes);
    return Status::Ok();
  }
  Status CopyBox(const void* src, const Shape& src_shape, const int64_t* src_begin, void* dst,
                 const Shape& dst_shape, const int64_t* dst_begin, const Shape& box,
                 size_t elem_size) const override {
    boxing::CopyBox(src, src_shape, src_begin, dst, dst_shape, dst_begin, box, elem_size);
    return Status::Ok();
  }
  Status FillReductionIdentity(void* buffer, int64_t count, DType dtype,
                               comm::ReduceOp op) const override {
    boxing::FillReductionIdentity(buffer, count, dtype, op);
    return Status::Ok();
  }
  Status Finish() const override { return Status::Ok(); }
};

}  // namespace

const LocalOps& HostLocalOps() {
  static const HostOps ops;
  return ops;
}

}  // namespace tessera::boxing
