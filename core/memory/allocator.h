// Allocator: the interface every memory source implements (system host memory, CUDA device
// memory, and the caching allocator layered over either).
//
// Contract shared by all implementations:
// - Allocate(bytes, alignment): `alignment` must be a non-zero power of two, else
//   INVALID_ARGUMENT. The result is aligned to at least `alignment`.
// - A zero-byte request returns a valid, unique, non-null pointer (backed by the smallest
//   allocation the implementation makes) that must be freed like any other. Callers never
//   need a null check or a special case for empty tensors.
// - Running out of memory is RESOURCE_EXHAUSTED, naming the bytes requested and the
//   allocator's stats.
// - Free(nullptr) is a no-op returning OK, like free(). Freeing a pointer this allocator did
//   not return, or freeing it twice, is INVALID_ARGUMENT naming the pointer; it never
//   crashes and never corrupts the allocator.
// - Every implementation is thread-safe.
#ifndef TESSERA_CORE_MEMORY_ALLOCATOR_H_
#define TESSERA_CORE_MEMORY_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/common/status.h"
#include "core/placement/placement.h"

namespace tessera {
namespace memory {

// Cache-line alignment: enough for any scalar and for AVX-512 loads.
inline constexpr size_t kDefaultAlignment = 64;
// 1 GiB: beyond any page or huge-page size; a larger alignment is surely a bug. The most any
// allocator here accepts (CUDA's system allocator accepts less, see max_alignment()).
inline constexpr size_t kMaxAlignment = size_t{1} << 30;

// Counters every allocator keeps. Byte counts are what the allocator handed out, which for
// the caching allocator includes its rounding (see caching_allocator.h).
struct AllocatorStats {
  uint64_t bytes_in_use = 0;       // handed out and not yet freed
  uint64_t peak_bytes_in_use = 0;  // max of bytes_in_use since creation or ResetPeak()
  uint64_t bytes_reserved = 0;     // held from the system: in use plus cached free memory
  uint64_t num_allocs = 0;         // successful Allocate calls
  uint64_t num_frees = 0;          // successful Free calls of non-null pointers
  uint64_t num_cache_hits = 0;     // Allocate calls served without a system allocation
  uint64_t num_system_allocs = 0;  // allocations taken from the system (malloc, cudaMalloc)
  uint64_t num_system_frees = 0;   // allocations returned to the system
  uint64_t num_segments = 0;       // system allocations currently held

  // "in_use=... peak=... reserved=... allocs=... frees=... cache_hits=... system_allocs=...
  // system_frees=... segments=...", for error messages and logs.
  std::string ToString() const;

  // Bookkeeping shared by the implementations.
  void RecordAllocate(uint64_t bytes) {
    bytes_in_use += bytes;
    if (bytes_in_use > peak_bytes_in_use) peak_bytes_in_use = bytes_in_use;
    ++num_allocs;
  }
  void RecordFree(uint64_t bytes) {
    bytes_in_use -= bytes;
    ++num_frees;
  }
};

class Allocator {
 public:
  virtual ~Allocator() = default;

  virtual Result<void*> Allocate(size_t bytes, size_t alignment = kDefaultAlignment) = 0;
  virtual Status Free(void* ptr) = 0;

  virtual AllocatorStats stats() const = 0;
  // Restarts peak tracking: peak_bytes_in_use becomes the current bytes_in_use.
  virtual void ResetPeak() = 0;

  // Where the memory lives: kCpu (index 0) or kCuda with a local device index.
  virtual DeviceType device_type() const = 0;
  virtual int device_index() const = 0;

  // Largest alignment Allocate honours; larger requests are INVALID_ARGUMENT. The caching
  // allocator uses it to know how its segments are aligned.
  virtual size_t max_alignment() const = 0;

  // "cpu" or "cuda:<index>", for messages.
  std::string DeviceName() const;
};

inline constexpr bool IsPowerOfTwo(size_t x) { return x != 0 && (x & (x - 1)) == 0; }

// Rounds `x` up to a multiple of `multiple` (a power of two). The caller guarantees no
// overflow.
inline constexpr size_t AlignUp(size_t x, size_t multiple) {
  return (x + multiple - 1) & ~(multiple - 1);
}

// "0x7f12a4c00000": how messages name a pointer.
std::string PointerString(const void* ptr);

// The INVALID_ARGUMENT every allocator returns for a bad alignment, and the one for a
// pointer it does not own, so the wording is the same everywhere.
// `where` is the calling method, e.g. "CachingAllocator::Allocate on cpu".
Status BadAlignment(const std::string& where, size_t bytes, size_t alignment, size_t max_alignment);
Status UnknownPointer(const std::string& where, const void* ptr, const std::string& detail);

// RESOURCE_EXHAUSTED naming the request and the allocator's stats.
Status OutOfMemory(const std::string& where, size_t bytes, size_t alignment,
                   const std::string& cause, const AllocatorStats& stats);

}  // namespace memory
}  // namespace tessera

#endif  // TESSERA_CORE_MEMORY_ALLOCATOR_H_
