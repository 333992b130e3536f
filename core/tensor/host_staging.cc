#include "core/tensor/host_staging.h"

#include <utility>

#include "core/comm/mpi_world.h"
#include "core/memory/caching_allocator.h"

namespace tessera {
namespace tensor {

Result<HostStaging> HostStaging::For(GlobalTensor* t) {
  HostStaging staging;
  staging.t_ = t;
  if (!t->has_local()) return staging;
  if (t->cuda_device() == nullptr) {
    staging.data_ = t->mutable_local_data();
    return staging;
  }
  TESS_ASSIGN_OR_RETURN(staging.buffer_,
                        memory::Buffer::Allocate(memory::ThreadHostCachingAllocator(),
                                                 static_cast<size_t>(t->local_bytes())));
  staging.data_ = staging.buffer_.data();
  return staging;
}

Status HostStaging::Commit() {
  if (t_ == nullptr || !buffer_) return Status::Ok();
  return t_->CopyLocalFromHost(buffer_.data());
}

Result<Placement> HostPlacement(const Placement& placement) {
  if (placement.device_type() == DeviceType::kCpu) return placement;
  return Placement::Make(DeviceType::kCpu, placement.ranks(), placement.hierarchy());
}

Result<Tensor> HostCopyOf(const Tensor& x) {
  if (x->placement().device_type() == DeviceType::kCpu) return x;
  TESS_ASSIGN_OR_RETURN(Placement host, HostPlacement(x->placement()));
  TESS_ASSIGN_OR_RETURN(infer::TensorMeta meta,
                        infer::TensorMeta::Make(x->shape(), x->dtype(), host, x->nd_sbp()));
  TESS_ASSIGN_OR_RETURN(int32_t rank, comm::WorldRank());
  TESS_ASSIGN_OR_RETURN(std::shared_ptr<GlobalTensor> copy, GlobalTensor::Allocate(meta, rank));
  if (copy->has_local()) TESS_RETURN_IF_ERROR(x->CopyLocalToHost(copy->mutable_local_data()));
  return Tensor(copy);
}

}  // namespace tensor
}  // namespace tessera
