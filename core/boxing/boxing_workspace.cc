#include "core/boxing/boxing_workspace.h"

#include <string>

namespace tessera::boxing {

BoxingWorkspace::~BoxingWorkspace() {
  for (Block& block : staging_) Release(block);
}

DeviceType BoxingWorkspace::device_type() const {
  return allocator_ != nullptr ? allocator_->device_type() : DeviceType::kCpu;
}

int BoxingWorkspace::device_index() const {
  return allocator_ != nullptr ? allocator_->device_index() : 0;
}

void BoxingWorkspace::Release(Block& block) {
  if (block.data == nullptr) return;
  if (allocator_ == nullptr) {
    std::free(block.data);
  } else {
    // Only this workspace's own pointers come here, so Free cannot fail.
    static_cast<void>(allocator_->Free(block.data));
  }
  block.data = nullptr;
  block.capacity = 0;
}

Result<void*> BoxingWorkspace::Staging(int slot, size_t bytes) {
  Block& block = staging_[slot];
  if (bytes > block.capacity) {
    constexpr size_t kAlign = 64;
    size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;  // aligned_alloc's rule
    // Free first: holding the old and the new block at once would double the peak.
    Release(block);
    void* p = nullptr;
    if (allocator_ == nullptr) {
      p = std::aligned_alloc(kAlign, rounded);
      if (p == nullptr) {
        return Status(
            StatusCode::kResourceExhausted,
            "boxing: cannot allocate a staging buffer of " + std::to_string(rounded) + " bytes");
      }
    } else {
      Result<void*> allocated = allocator_->Allocate(rounded, kAlign);
      if (!allocated.ok()) {
        return Status(allocated.status().code(), "boxing: cannot allocate a staging buffer of " +
                                                     std::to_string(rounded) + " bytes in " +
                                                     allocator_->DeviceName() +
                                                     " memory: " + allocated.status().message());
      }
      p = *allocated;
    }
    block.data = p;
    block.capacity = rounded;
  }
  return block.data;
}

bool BoxingWorkspace::Overlaps(const void* p, size_t bytes) const {
  if (p == nullptr || bytes == 0) return false;
  const auto begin = reinterpret_cast<uintptr_t>(p);
  for (const Block& block : staging_) {
    if (block.capacity == 0) continue;
    const auto b = reinterpret_cast<uintptr_t>(block.data);
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
