// Reusable scratch for boxing: staging buffers for the pack/unpack steps and the
// per-rank count/displacement and block vectors the collectives take. Buffers only grow, so
// a steady stream of boxings of the same sizes allocates nothing after the first
// (and skips the page faults of fresh large allocations). Not thread-safe: use one
// workspace per thread.
//
// Staging lives in host memory by default, or comes from an allocator (a CUDA
// device's caching allocator, for boxing device memory: BoxOnDevice). A staging buffer
// is freed only when its slot grows or the workspace goes; the boxing that used it has
// finished by then (device work is waited for at the end of each step).
#ifndef TESSERA_CORE_BOXING_BOXING_WORKSPACE_H_
#define TESSERA_CORE_BOXING_BOXING_WORKSPACE_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "core/comm/communicator.h"
#include "core/common/status.h"
#include "core/memory/allocator.h"
#include "core/placement/placement.h"

namespace tessera::boxing {

class BoxingWorkspace {
 public:
  // Slots 0 and 1: one step's send and receive staging (packing for a collective
  // that takes no strided blocks: P -> S(j) with j > 0). Slots 2 and 3: the
  // intermediate local tensors between the steps of a multi-step Box.
  static constexpr int kNumStaging = 4;
  static constexpr int kSendSlot = 0;
  static constexpr int kRecvSlot = 1;
  static constexpr int kFirstIntermediateSlot = 2;
  static constexpr int kNumVectors = 4;
  static constexpr int kNumBlockLists = 2;

  // Staging in host memory.
  BoxingWorkspace() = default;
  // Staging from `allocator` (borrowed, must outlive the workspace); nullptr means
  // host memory.
  explicit BoxingWorkspace(memory::Allocator* allocator) : allocator_(allocator) {}
  ~BoxingWorkspace();
  BoxingWorkspace(const BoxingWorkspace&) = delete;
  BoxingWorkspace& operator=(const BoxingWorkspace&) = delete;

  // Where the staging lives: kCpu (index 0) for host memory, else the allocator's.
  DeviceType device_type() const;
  int device_index() const;

  // At least `bytes` bytes, 64-byte aligned, contents unspecified. Valid until the
  // next Staging() call with the same slot or the workspace's destruction.
  // nullptr only when bytes == 0 and the slot was never used. RESOURCE_EXHAUSTED
  // when the allocation fails.
  Result<void*> Staging(int slot, size_t bytes);
  size_t staging_capacity(int slot) const { return staging_[slot].capacity; }
  // True when [p, p + bytes) overlaps a staging buffer: a caller's tensor there would
  // be overwritten by the boxing that uses this workspace.
  bool Overlaps(const void* p, size_t bytes) const;

  // A vector of `size` int64s (contents unspecified), reused across calls.
  std::vector<int64_t>& Vector(int slot, size_t size);
  // A vector of `size` block views (contents unspecified), reused across calls.
  std::vector<comm::BlockView>& Blocks(int slot, size_t size);

 private:
  struct Block {
    void* data = nullptr;
    size_t capacity = 0;
  };
  void Release(Block& block);

  memory::Allocator* allocator_ = nullptr;
  Block staging_[kNumStaging];
  std::vector<int64_t> vectors_[kNumVectors];
  std::vector<comm::BlockView> blocks_[kNumBlockLists];
};

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_BOXING_WORKSPACE_H_
