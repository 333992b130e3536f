#include "core/boxing/boxing_workspace.h"

#include <string>

namespace tessera::boxing {

Result<void*> BoxingWorkspace::Staging(int slot, size_t bytes) {
  Block& block = staging_[slot];
  if (bytes > block.capacity) {
    constexpr size_t kAlign = 64;
    size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;  // aligned_alloc's rule
    // Free first: holding the old and the new block at once would double the peak.
    block.data.reset();
    block.capacity = 0;
    void* p = std::aligned_alloc(kAlign, rounded);
    if (p == nullptr) {
      return Status(StatusCode::kResourceExhausted, "boxing: cannot allocate a staging buffer of " +
                                                        std::to_string(rounded) + " bytes");
    }
    block.data.reset(p);
    block.capacity = rounded;
  }
  return static_cast<void*>(block.data.get());
}

bool BoxingWorkspace::Overlaps(const void* p, size_t bytes) const {
  if (p == nullptr || bytes == 0) return false;
  const auto begin = reinterpret_cast<uintptr_t>(p);
  for (const Block& block : staging_) {
    if (block.capacity == 0) continue;
    const auto b = reinterpret_cast<uintptr_t>(block.data.get());
    if (begin < b + block.capacity && b < begin + bytes) return true;
  }
  return false;
}

std::vector<int64_t>& BoxingWorkspace::Vector(int slot, size_t size) {
  vectors_[slot].resize(size);
  return vectors_[slot];
}

std::vector<comm::BlockView>& BoxingWorkspace::Blocks(int slot, size_t size) {
  blocks_[slot].resize(size);
  return blocks_[slot];
}

}  // namespace tessera::boxing
