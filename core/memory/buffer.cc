#include "core/memory/buffer.h"

#include <utility>

namespace tessera {
namespace memory {

Result<Buffer> Buffer::Allocate(Allocator& allocator, size_t bytes, size_t alignment) {
  TESS_ASSIGN_OR_RETURN(void* data, allocator.Allocate(bytes, alignment));
  return Buffer(&allocator, data, bytes);
}

Buffer::~Buffer() {
  // The Buffer is the pointer's only owner, so Free cannot see a foreign pointer or a
  // double free; a failure would be a device fault, which the next device call reports.
  static_cast<void>(Reset());
}

Buffer::Buffer(Buffer&& other) noexcept
    : allocator_(std::exchange(other.allocator_, nullptr)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    static_cast<void>(Reset());
    allocator_ = std::exchange(other.allocator_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

Status Buffer::Reset() {
  if (data_ == nullptr) return Status::Ok();
  Status freed = allocator_->Free(data_);
  allocator_ = nullptr;
  data_ = nullptr;
  size_ = 0;
  return freed;
}

}  // namespace memory
}  // namespace tessera
