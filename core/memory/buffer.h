// Buffer: the unique owner of one allocation, for the eager layer's tensor storage.
//
// Move-only; the destructor (or Reset) gives the memory back to the allocator it came from,
// which must outlive the Buffer (the process-wide caching allocators live forever). A
// default-constructed or moved-from Buffer owns nothing: data() is null and size() is 0.
#ifndef TESSERA_CORE_MEMORY_BUFFER_H_
#define TESSERA_CORE_MEMORY_BUFFER_H_

#include <cstddef>

#include "core/memory/allocator.h"

namespace tessera {
namespace memory {

class Buffer {
 public:
  Buffer() = default;
  ~Buffer();

  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  // `bytes` may be 0: the Buffer then owns a unique non-null pointer with size() == 0.
  static Result<Buffer> Allocate(Allocator& allocator, size_t bytes,
                                 size_t alignment = kDefaultAlignment);

  void* data() { return data_; }
  const void* data() const { return data_; }
  // The bytes requested, not the allocator's rounded block size.
  size_t size() const { return size_; }
  Allocator* allocator() const { return allocator_; }
  explicit operator bool() const { return data_ != nullptr; }

  // Frees now and owns nothing afterwards, returning the allocator's Free status (the
  // destructor has nowhere to report it).
  Status Reset();

 private:
  Buffer(Allocator* allocator, void* data, size_t size)
      : allocator_(allocator), data_(data), size_(size) {}

  Allocator* allocator_ = nullptr;
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace memory
}  // namespace tessera

#endif  // TESSERA_CORE_MEMORY_BUFFER_H_
