// Reusable scratch for boxing: staging buffers for the pack/unpack steps and the
// per-rank count/displacement and block vectors the collectives take. Buffers only grow, so
// a steady stream of boxings of the same sizes allocates nothing after the first
// (and skips the page faults of fresh large allocations). Not thread-safe: use one
// workspace per thread.
#ifndef TESSERA_CORE_BOXING_BOXING_WORKSPACE_H_
#define TESSERA_CORE_BOXING_BOXING_WORKSPACE_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "core/comm/communicator.h"
#include "core/common/status.h"

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
  struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
  };
  struct Block {
    std::unique_ptr<void, FreeDeleter> data;
    size_t capacity = 0;
  };
  Block staging_[kNumStaging];
  std::vector<int64_t> vectors_[kNumVectors];
  std::vector<comm::BlockView> blocks_[kNumBlockLists];
};

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_BOXING_WORKSPACE_H_
