// A global tensor: logical shape, dtype, placement and nd-sbp (its TensorMeta), plus,
// on ranks inside the placement, the rank's local piece. Ranks outside the placement
// hold the metadata only, so every rank can run the same program (SPMD) and ask any
// tensor its shape.
//
// Storage: a cpu tensor's piece comes from the calling thread's host caching allocator,
// so a warm eager step reuses freed blocks instead of calling malloc, and takes no lock
// shared by threads. A cuda tensor's piece lives on the rank's CUDA device
// (cuda_device.h), from that device's caching allocator (its mutex is per device, and
// uncontended when one thread issues a rank's ops, as SPMD programs do), and is only
// ever touched through Tessera's stream on the device; its local_data() is a device
// pointer, and host code reads it with CopyLocalToHost. A tensor is immutable once
// built: ops and casts make new tensors, and `Tensor` (a shared handle) may be copied
// freely.
#ifndef TESSERA_CORE_TENSOR_GLOBAL_TENSOR_H_
#define TESSERA_CORE_TENSOR_GLOBAL_TENSOR_H_

#include <cstdint>
#include <memory>
#include <utility>

#include "core/common/status.h"
#include "core/infer/tensor_meta.h"
#include "core/kernel/kernel.h"
#include "core/memory/buffer.h"
#include "core/sbp/physical_layout.h"
#include "core/tensor/cuda_device.h"

namespace tessera {
namespace tensor {

class GlobalTensor;
using Tensor = std::shared_ptr<const GlobalTensor>;

class GlobalTensor {
  // Only Allocate constructs tensors; the key lets it use make_shared (one heap block
  // for the object and its reference count) despite the constructor being "public".
  struct Key {
    explicit Key() = default;
  };

 public:
  GlobalTensor(Key, infer::TensorMeta meta) : meta_(std::move(meta)) {}

  // A tensor with `meta` whose local piece (on ranks of the placement) is allocated
  // but not initialised. `world_rank` decides which piece this rank holds. A cuda
  // placement is UNIMPLEMENTED on every rank without a CUDA build; with one, ranks of
  // the placement fail as LocalCudaDevice does (no GPU, ...).
  static Result<std::shared_ptr<GlobalTensor>> Allocate(const infer::TensorMeta& meta,
                                                        int32_t world_rank);
  // A tensor with `meta` whose local piece is NOT allocated but is `data`, memory that
  // `owner` keeps alive (the tensor holds `owner` until it is destroyed). core/optim's
  // fused mode makes parameters views into its flat buckets, so one update of a bucket
  // updates every parameter in it. On ranks of the placement `data` must hold
  // local_bytes() bytes of this rank's piece (PhysicalLayoutOfRank), aligned for the
  // dtype, in host memory for a cpu placement and on this rank's CUDA device for a cuda
  // one; it may be null only for an empty piece. Ranks outside the placement ignore
  // `data` and hold metadata only. Whoever writes `data` later changes the tensor's
  // value: that is the point, and the reason only the optimizer's parameters are views.
  // INVALID_ARGUMENT for null data with a non-empty piece; device errors as Allocate.
  static Result<std::shared_ptr<GlobalTensor>> View(const infer::TensorMeta& meta,
                                                    int32_t world_rank, void* data,
                                                    std::shared_ptr<void> owner);
  // Whether the local piece is a View of memory owned elsewhere.
  bool is_view() const { return owner_ != nullptr; }

  // A placeholder for value `value_id` of the program that capture `capture_id` (> 0) is
  // recording (core/plan/capture.h): metadata only, no piece on any rank. Ops on it are
  // recorded by the capture, not run (capture_hook.h).
  static std::shared_ptr<GlobalTensor> Placeholder(const infer::TensorMeta& meta,
                                                   uint64_t capture_id, int64_t value_id);

  bool is_placeholder() const { return capture_id_ != 0; }
  uint64_t capture_id() const { return capture_id_; }      // 0 for a real tensor
  int64_t placeholder_value() const { return value_id_; }  // -1 for a real tensor

  const infer::TensorMeta& meta() const { return meta_; }
  const Shape& shape() const { return meta_.shape; }
  DType dtype() const { return meta_.dtype; }
  const Placement& placement() const { return meta_.placement; }
  const NdSbp& nd_sbp() const { return meta_.nd_sbp; }

  // Whether this rank is in the placement (and so holds a local piece).
  bool has_local() const { return has_local_; }
  // The local piece's layout: its shape and the logical index ranges it covers.
  // Meaningful only when has_local().
  const PhysicalLayout& layout() const { return layout_; }
  const Shape& local_shape() const { return layout_.local_shape; }
  int64_t local_bytes() const { return layout_.local_shape.num_elements() * DTypeSize(dtype()); }
  // Where the local piece lives: NULL for host memory (cpu placements, and every
  // placeholder or rank outside the placement), else the rank's CUDA device.
  const CudaDevice* cuda_device() const { return device_; }
  // NULL when the rank holds no piece; a device pointer when cuda_device() is set.
  const void* local_data() const { return data_; }
  // Writable only while the tensor is being built (Allocate hands out a non-const
  // object; a Tensor handle is const).
  void* mutable_local_data() { return data_; }
  // Copies the local piece (local_bytes() bytes) to host memory. From a device this
  // waits for the stream and reports the errors of kernels queued on it. No-op when
  // the rank holds no piece.
  Status CopyLocalToHost(void* host) const;
  // Fills the local piece from host memory; while the tensor is being built.
  Status CopyLocalFromHost(const void* host);
  // Waits until every queued write of the local piece is done, for readers outside
  // Tessera's stream ordering (a DLPack consumer); reports errors as CopyLocalToHost.
  // No-op for host memory.
  Status Synchronize() const;

  // The local piece as a kernel argument. Kernels never write their inputs; LocalTensor
  // has one (non-const) pointer type.
  kernels::LocalTensor local() const {
    return kernels::LocalTensor{data_, layout_.local_shape, meta_.dtype};
  }

 private:
  infer::TensorMeta meta_;
  uint64_t capture_id_ = 0;
  int64_t value_id_ = -1;
  bool has_local_ = false;
  PhysicalLayout layout_;
  const CudaDevice* device_ = nullptr;
  memory::Buffer storage_;       // Allocate's piece
  std::shared_ptr<void> owner_;  // View's: keeps `data_` alive
  void* data_ = nullptr;         // the piece: storage_.data() or the view's
};

}  // namespace tensor
}  // namespace tessera

#endif  // TESSERA_CORE_TENSOR_GLOBAL_TENSOR_H_
