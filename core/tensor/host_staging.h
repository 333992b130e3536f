// Host memory for pieces of cuda tensors: what creation and the interim cuda layout
// changes (global_cast.h) build or read on the host, copied to or from the device once.
#ifndef TESSERA_CORE_TENSOR_HOST_STAGING_H_
#define TESSERA_CORE_TENSOR_HOST_STAGING_H_

#include <memory>

#include "core/common/status.h"
#include "core/memory/buffer.h"
#include "core/placement/placement.h"
#include "core/tensor/global_tensor.h"

namespace tessera {
namespace tensor {

// Where code that builds `t`'s local piece on the host writes it: the piece itself for a
// host tensor, else a host buffer of local_bytes() from the thread's caching allocator
// that Commit copies to the device. `t` must outlive the staging.
class HostStaging {
 public:
  static Result<HostStaging> For(GlobalTensor* t);

  // NULL when the rank holds no piece.
  void* data() const { return data_; }
  // Copies the staged piece to the device (waits); no-op for a host tensor.
  Status Commit();

 private:
  GlobalTensor* t_ = nullptr;
  memory::Buffer buffer_;
  void* data_ = nullptr;
};

// `placement` with device type cpu: the same ranks and hierarchy.
Result<Placement> HostPlacement(const Placement& placement);

// A cpu tensor with `x`'s shape, dtype, nd-sbp, ranks and hierarchy whose piece is a
// copy of x's piece: a local copy on each rank, no communication. `x` itself when it
// is a host tensor.
Result<Tensor> HostCopyOf(const Tensor& x);

}  // namespace tensor
}  // namespace tessera

#endif  // TESSERA_CORE_TENSOR_HOST_STAGING_H_
