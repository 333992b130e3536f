// SystemHostAllocator: host memory straight from posix_memalign/free.
//
// Every allocation is aligned to at least kDefaultAlignment (64 bytes) whatever the request
// asks for, so buffers are cache-line aligned for vector kernels. Alignments up to
// kMaxAlignment are honoured. Use HostCachingAllocator() (caching_allocator.h) in
// hot paths; this class is its system layer.
#ifndef TESSERA_CORE_MEMORY_HOST_ALLOCATOR_H_
#define TESSERA_CORE_MEMORY_HOST_ALLOCATOR_H_

#include "core/memory/system_allocator.h"

namespace tessera {
namespace memory {

class SystemHostAllocator final : public SystemAllocator {
 public:
  SystemHostAllocator() : SystemAllocator("SystemHostAllocator") {}

  DeviceType device_type() const override { return DeviceType::kCpu; }
  int device_index() const override { return 0; }
  size_t max_alignment() const override { return kMaxAlignment; }

 private:
  Result<void*> SystemAllocate(size_t bytes, size_t alignment) override;
  Status SystemFree(void* ptr) override;
};

}  // namespace memory
}  // namespace tessera

#endif  // TESSERA_CORE_MEMORY_HOST_ALLOCATOR_H_
