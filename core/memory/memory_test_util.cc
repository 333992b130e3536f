#include "core/memory/memory_test_util.h"

#include <string>
#include <utility>

namespace tessera {
namespace memory {

Result<void*> FakeSystemAllocator::Allocate(size_t bytes, size_t alignment) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++allocate_calls_;
    last_alignment_ = alignment;
    if (live_bytes_ + bytes > limit_bytes_) {
      return Status(StatusCode::kResourceExhausted,
                    "FakeSystemAllocator: " + std::to_string(bytes) + " bytes over the limit of " +
                        std::to_string(limit_bytes_) + " with " + std::to_string(live_bytes_) +
                        " live");
    }
  }
  if (!IsPowerOfTwo(alignment) || alignment > max_alignment()) {
    return BadAlignment("FakeSystemAllocator::Allocate", bytes, alignment, max_alignment());
  }
  const size_t shift = cuda_like_ ? 256 : 0;
  TESS_ASSIGN_OR_RETURN(void* base, system_.Allocate(bytes + shift, cuda_like_ ? 512 : alignment));
  void* ptr = static_cast<char*>(base) + shift;
  std::lock_guard<std::mutex> lock(mu_);
  live_bytes_ += bytes;
  live_[ptr] = {base, bytes};
  return ptr;
}

Status FakeSystemAllocator::Free(void* ptr) {
  std::lock_guard<std::mutex> lock(mu_);
  ++free_calls_;
  auto it = live_.find(ptr);
  if (it == live_.end()) {
    return InvalidArgument("FakeSystemAllocator::Free: unknown " + PointerString(ptr));
  }
  void* base = it->second.first;
  live_bytes_ -= it->second.second;
  live_.erase(it);
  // A failing free still releases the memory, so a test that makes frees fail leaks nothing.
  TESS_RETURN_IF_ERROR(system_.Free(base));
  if (fail_frees_) return Internal("FakeSystemAllocator::Free: injected failure");
  return Status::Ok();
}

void FakeSystemAllocator::set_limit_bytes(uint64_t limit) {
  std::lock_guard<std::mutex> lock(mu_);
  limit_bytes_ = limit;
}

void FakeSystemAllocator::set_fail_frees(bool fail) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_frees_ = fail;
}

int64_t FakeSystemAllocator::allocate_calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return allocate_calls_;
}

int64_t FakeSystemAllocator::free_calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return free_calls_;
}

uint64_t FakeSystemAllocator::live_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_bytes_;
}

size_t FakeSystemAllocator::live_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_.size();
}

size_t FakeSystemAllocator::last_alignment() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_alignment_;
}

}  // namespace memory
}  // namespace tessera
