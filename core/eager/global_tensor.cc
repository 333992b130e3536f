#include "core/eager/global_tensor.h"

#include "core/memory/caching_allocator.h"

namespace tessera {
namespace eager {

Result<std::shared_ptr<GlobalTensor>> GlobalTensor::Allocate(const infer::TensorMeta& meta,
                                                             int32_t world_rank) {
  if (meta.placement.device_type() != DeviceType::kCpu) {
    return Unimplemented("eager tensors on " + meta.placement.ToString() +
                         ": only cpu placements hold eager tensors so far (cuda kernels and "
                         "device storage are not wired into the eager layer yet)");
  }
  std::shared_ptr<GlobalTensor> t = std::make_shared<GlobalTensor>(Key(), meta);
  t->has_local_ = meta.placement.contains(world_rank);
  if (!t->has_local_) return t;
  TESS_ASSIGN_OR_RETURN(t->layout_,
                        PhysicalLayoutOfRank(meta.shape, meta.placement, meta.nd_sbp, world_rank));
  TESS_ASSIGN_OR_RETURN(t->storage_,
                        memory::Buffer::Allocate(memory::ThreadHostCachingAllocator(),
                                                 static_cast<size_t>(t->local_bytes())));
  return t;
}

std::shared_ptr<GlobalTensor> GlobalTensor::Placeholder(const infer::TensorMeta& meta,
                                                        uint64_t capture_id, int64_t value_id) {
  std::shared_ptr<GlobalTensor> t = std::make_shared<GlobalTensor>(Key(), meta);
  t->capture_id_ = capture_id;
  t->value_id_ = value_id;
  return t;
}

}  // namespace eager
}  // namespace tessera
