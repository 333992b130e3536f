// CachingAllocator: keeps freed memory for reuse instead of returning it to the system, so
// a steady-state loop of allocations (eager tensors, boxing buffers) costs a free-list
// lookup rather than a malloc or cudaMalloc.
//
// It draws segments from a backing Allocator (SystemHostAllocator, CudaDeviceAllocator) and
// carves them into blocks; size rounding, pools, bins, splitting and merging are described
// in size_bins.h. Byte counts in stats() are block sizes, i.e. requests after rounding.
//
// Alignment: block starts are 512-aligned within segments whose base is aligned to
// min(512, backing max_alignment()). A larger alignment is served by padding the request
// and returning an aligned pointer inside the block, so any power of two up to
// kMaxAlignment works over any backing allocator.
//
// Out of memory: when the backing allocator is exhausted, cached free segments are released
// and the allocation retried once before RESOURCE_EXHAUSTED is returned.
//
// Thread safety: every method locks one mutex owned by this instance, so two allocators
// (say, host and each device) never contend; there is no global lock. After warm-up
// (segments, block records and the pointer table grown to the working set), Allocate and
// Free do no heap allocation of their own.
//
// Device memory: a freed block is reusable at once. The allocator knows nothing of CUDA
// streams, so a caller freeing device memory must first make sure no queued kernel still
// uses it (or use one stream for everything, as the eager layer does).
#ifndef TESSERA_CORE_MEMORY_CACHING_ALLOCATOR_H_
#define TESSERA_CORE_MEMORY_CACHING_ALLOCATOR_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/memory/allocator.h"
#include "core/memory/pointer_map.h"
#include "core/memory/size_bins.h"

namespace tessera {
namespace memory {

// One segment as Snapshot() reports it: the blocks tile it in address order.
struct SegmentInfo {
  struct BlockInfo {
    size_t offset = 0;  // from the segment base
    size_t bytes = 0;
    bool allocated = false;
  };
  uintptr_t base = 0;
  size_t bytes = 0;
  bool small_pool = false;
  std::vector<BlockInfo> blocks;
};

class CachingAllocator final : public Allocator {
 public:
  // `backing` must be non-null and outlive this allocator.
  explicit CachingAllocator(Allocator* backing);
  // Returns every segment to the backing allocator. Pointers still allocated dangle after
  // this: destroying an allocator that has live allocations is a caller bug.
  ~CachingAllocator() override;

  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  Result<void*> Allocate(size_t bytes, size_t alignment = kDefaultAlignment) override;
  Status Free(void* ptr) override;
  AllocatorStats stats() const override;
  void ResetPeak() override;

  DeviceType device_type() const override { return backing_->device_type(); }
  int device_index() const override { return backing_->device_index(); }
  size_t max_alignment() const override;

  // Returns every segment with no allocated block to the backing allocator. On a backing
  // error the remaining segments are still released and the first error is returned.
  Status EmptyCache();

  // Every segment and its blocks, in no particular order of segments. For tests and
  // debugging: it allocates.
  std::vector<SegmentInfo> Snapshot() const;

  Allocator* backing() const { return backing_; }

 private:
  struct Block;
  struct Pool {
    Block* bins[kNumBins] = {};
    uint64_t nonempty = 0;  // bit i set when bins[i] is non-empty
  };

  std::string Where(const char* method) const;

  Block* FindFreeBlock(Pool& pool, size_t bytes);
  Result<Block*> NewSegment(Pool& pool, size_t segment_bytes, size_t bytes, size_t alignment);
  Block* SplitOff(Block* block, size_t bytes);
  void MergeInto(Block* left, Block* right);

  void BinInsert(Block* block);
  void BinRemove(Block* block);

  Block* NewBlockRecord();
  void RecycleBlockRecord(Block* block);

  // Releases fully free segments; mu_ held. Returns the first backing error.
  Status ReleaseFreeSegments();
  Status ReleaseSegment(Block* head);

  Allocator* const backing_;
  const size_t segment_alignment_;

  mutable std::mutex mu_;
  Pool small_;
  Pool large_;
  PointerMap<Block*> live_;                      // user pointer -> allocated block
  Block* segments_ = nullptr;                    // list of segment head blocks
  Block* spare_records_ = nullptr;               // recycled Block records
  std::vector<std::unique_ptr<Block>> records_;  // owns every Block record
  AllocatorStats stats_;
};

// The process-wide caching allocator for host memory: a CachingAllocator over a
// SystemHostAllocator, created on first use and never destroyed, so Buffers freed during
// static destruction still find it. Thread-safe. (Defined in host_caching_allocator.cc; the
// per-device CUDA instances are in device_caching_allocator.h, built only with CUDA.)
CachingAllocator& HostCachingAllocator();

// The calling thread's own caching allocator for host memory, over the same system
// allocator: the eager dispatch path allocates through it, so it takes only an uncontended
// per-thread mutex, never a lock shared by threads (DESIGN.md: no global lock on hot
// paths). Memory it caches is reused only by its thread; a Buffer may be freed from any
// thread (the instance's mutex makes that safe). Created on first use, never destroyed.
CachingAllocator& ThreadHostCachingAllocator();

}  // namespace memory
}  // namespace tessera

#endif  // TESSERA_CORE_MEMORY_CACHING_ALLOCATOR_H_
