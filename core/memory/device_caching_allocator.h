// The process-wide caching allocators for CUDA device memory, one per visible device.
// Built only under --config=cuda.
#ifndef TESSERA_CORE_MEMORY_DEVICE_CACHING_ALLOCATOR_H_
#define TESSERA_CORE_MEMORY_DEVICE_CACHING_ALLOCATOR_H_

#include "core/memory/caching_allocator.h"

namespace tessera {
namespace memory {

// The CachingAllocator over a CudaDeviceAllocator for local device `device`, created on
// first use and never destroyed. Errors as CudaDeviceAllocator::Create. Thread-safe; the
// devices' allocators are independent (one mutex each).
Result<CachingAllocator*> DeviceCachingAllocator(int device);

}  // namespace memory
}  // namespace tessera

#endif  // TESSERA_CORE_MEMORY_DEVICE_CACHING_ALLOCATOR_H_
