// SystemAllocator: the part shared by allocators that call the operating system or driver
// directly (SystemHostAllocator, CudaDeviceAllocator). It validates arguments, remembers every
// live pointer so that a foreign pointer or a double free is an error rather than heap
// corruption, and keeps the stats. Subclasses supply only the raw allocate and free calls.
//
// Every call here is a real system allocation, so there is no caching and no fast path; wrap
// one in a CachingAllocator for that. Thread-safe: one mutex per instance guards the live
// table and the stats; the system call itself runs outside the lock.
#ifndef TESSERA_CORE_MEMORY_SYSTEM_ALLOCATOR_H_
#define TESSERA_CORE_MEMORY_SYSTEM_ALLOCATOR_H_

#include <mutex>
#include <string>

#include "core/memory/allocator.h"
#include "core/memory/pointer_map.h"

namespace tessera {
namespace memory {

class SystemAllocator : public Allocator {
 public:
  Result<void*> Allocate(size_t bytes, size_t alignment = kDefaultAlignment) final;
  Status Free(void* ptr) final;
  AllocatorStats stats() const final;
  void ResetPeak() final;

 protected:
  // `class_name` prefixes messages: "<class_name>::Allocate on <device>: ...".
  explicit SystemAllocator(std::string class_name) : class_name_(std::move(class_name)) {}

  // bytes >= 1 and alignment is a power of two <= max_alignment(). On failure, a Status whose
  // message says why (it is folded into the caller-facing error); RESOURCE_EXHAUSTED when
  // the system is out of memory.
  virtual Result<void*> SystemAllocate(size_t bytes, size_t alignment) = 0;
  // `ptr` came from SystemAllocate and is freed exactly once.
  virtual Status SystemFree(void* ptr) = 0;

 private:
  std::string Where(const char* method) const;

  const std::string class_name_;
  mutable std::mutex mu_;
  PointerMap<size_t> live_;  // pointer -> bytes requested (after the zero-byte rule)
  AllocatorStats stats_;
};

}  // namespace memory
}  // namespace tessera

#endif  // TESSERA_CORE_MEMORY_SYSTEM_ALLOCATOR_H_
