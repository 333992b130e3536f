// Reusable scratch for boxing: staging buffers for the pack/unpack steps and the
// per-rank count/displacement vectors the collectives take. Buffers only grow, so
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

#include "core/common/status.h"

namespace tessera::boxing {

class BoxingWorkspace {
 public:
  // S(i)->S(j) with neither block side contiguous needs a send and a receive buffer.
  static constexpr int kNumStaging = 2;
  static constexpr int kNumVectors = 4;

  // At least `bytes` bytes, 64-byte aligned, contents unspecified. Valid until the
  // next Staging() call with the same slot or the workspace's destruction.
  // nullptr only when bytes == 0 and the slot was never used. RESOURCE_EXHAUSTED
  // when the allocation fails.
  Result<void*> Staging(int slot, size_t bytes);
  size_t staging_capacity(int slot) const { return staging_[slot].capacity; }

  // A vector of `size` int64s (contents unspecified), reused across calls.
  std::vector<int64_t>& Vector(int slot, size_t size);

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
};

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_BOXING_WORKSPACE_H_
