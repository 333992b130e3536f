#include "core/tensor/global_tensor.h"

#include <cstring>

#include "core/memory/caching_allocator.h"

namespace tessera {
namespace tensor {

Result<std::shared_ptr<GlobalTensor>> GlobalTensor::Allocate(const infer::TensorMeta& meta,
                                                             int32_t world_rank) {
  // Before membership: ranks outside the placement must fail too, or they would go on
  // into collectives the others never join.
  TESS_RETURN_IF_ERROR(CheckDeviceBuild(meta.placement));
  std::shared_ptr<GlobalTensor> t = std::make_shared<GlobalTensor>(Key(), meta);
  const int64_t index = meta.placement.index_of(world_rank);
  t->has_local_ = index >= 0;
  if (!t->has_local_) return t;
  TESS_RETURN_IF_ERROR(
      PhysicalLayoutAt(meta.shape, meta.placement, meta.nd_sbp, index, &t->layout_));
  memory::Allocator* allocator = &memory::ThreadHostCachingAllocator();
  if (meta.placement.device_type() == DeviceType::kCuda) {
    TESS_ASSIGN_OR_RETURN(t->device_, LocalCudaDevice());
    allocator = t->device_->allocator;
  }
  TESS_ASSIGN_OR_RETURN(
      t->storage_, memory::Buffer::Allocate(*allocator, static_cast<size_t>(t->local_bytes())));
  t->data_ = t->storage_.data();
  return t;
}

Result<std::shared_ptr<GlobalTensor>> GlobalTensor::View(const infer::TensorMeta& meta,
                                                         int32_t world_rank, void* data,
                                                         std::shared_ptr<void> owner) {
  TESS_RETURN_IF_ERROR(CheckDeviceBuild(meta.placement));
  std::shared_ptr<GlobalTensor> t = std::make_shared<GlobalTensor>(Key(), meta);
  t->owner_ = owner != nullptr ? std::move(owner) : std::make_shared<int>(0);
  const int64_t index = meta.placement.index_of(world_rank);
  t->has_local_ = index >= 0;
  if (!t->has_local_) return t;
  TESS_RETURN_IF_ERROR(
      PhysicalLayoutAt(meta.shape, meta.placement, meta.nd_sbp, index, &t->layout_));
  if (data == nullptr && t->local_bytes() > 0) {
    return InvalidArgument("GlobalTensor::View: data is null but rank " +
                           std::to_string(world_rank) + "'s piece of " + meta.ToString() +
                           " holds " + std::to_string(t->local_bytes()) + " bytes");
  }
  if (meta.placement.device_type() == DeviceType::kCuda) {
    TESS_ASSIGN_OR_RETURN(t->device_, LocalCudaDevice());
  }
  t->data_ = data;
  return t;
}

std::shared_ptr<GlobalTensor> GlobalTensor::Placeholder(const infer::TensorMeta& meta,
                                                        uint64_t capture_id, int64_t value_id) {
  std::shared_ptr<GlobalTensor> t = std::make_shared<GlobalTensor>(Key(), meta);
  t->capture_id_ = capture_id;
  t->value_id_ = value_id;
  return t;
}

Status GlobalTensor::CopyLocalToHost(void* host) const {
  const size_t bytes = has_local_ ? static_cast<size_t>(local_bytes()) : 0;
  if (device_ != nullptr) return CopyDeviceToHost(*device_, host, data_, bytes);
  if (bytes > 0) std::memcpy(host, data_, bytes);
  return Status::Ok();
}

Status GlobalTensor::CopyLocalFromHost(const void* host) {
  const size_t bytes = has_local_ ? static_cast<size_t>(local_bytes()) : 0;
  if (device_ != nullptr) return CopyHostToDevice(*device_, data_, host, bytes);
  if (bytes > 0) std::memcpy(data_, host, bytes);
  return Status::Ok();
}

Status GlobalTensor::Synchronize() const {
  return device_ != nullptr ? SynchronizeDevice(*device_) : Status::Ok();
}

}  // namespace tensor
}  // namespace tessera
