#include "core/memory/caching_allocator.h"

#include <algorithm>
#include <utility>

namespace tessera {
namespace memory {

// A block is a piece of a segment: allocated, or free and then in its pool's bin. Blocks of
// one segment form an address-ordered list (prev/next); the head block (prev == nullptr)
// always starts at the segment base because merging keeps the lower-address block, so the
// head also carries the segment's size and its links in the list of segments.
struct CachingAllocator::Block {
  char* start = nullptr;
  size_t bytes = 0;
  char* user = nullptr;  // what Allocate returned; start unless padded for alignment
  bool allocated = false;
  bool small_pool = false;
  Block* prev = nullptr;
  Block* next = nullptr;
  Block* bin_prev = nullptr;  // free-list links; bin_next also chains spare records
  Block* bin_next = nullptr;
  Block* segment_prev = nullptr;  // segment list links, head blocks only
  Block* segment_next = nullptr;
  size_t segment_bytes = 0;  // head blocks only
};

CachingAllocator::CachingAllocator(Allocator* backing)
    : backing_(backing), segment_alignment_(std::min(kBlockBytes, backing->max_alignment())) {}

CachingAllocator::~CachingAllocator() {
  for (Block* head = segments_; head != nullptr; head = head->segment_next) {
    // Nobody is left to report a failure to; the backing allocator has validated the
    // pointer when it was allocated, so a failure here means a driver fault at teardown.
    static_cast<void>(backing_->Free(head->start));
  }
}

size_t CachingAllocator::max_alignment() const { return kMaxAlignment; }

std::string CachingAllocator::Where(const char* method) const {
  return std::string("CachingAllocator::") + method + " on " + DeviceName();
}

Result<void*> CachingAllocator::Allocate(size_t bytes, size_t alignment) {
  if (!IsPowerOfTwo(alignment) || alignment > max_alignment()) {
    return BadAlignment(Where("Allocate"), bytes, alignment, max_alignment());
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes > kMaxRequestBytes) {
    return OutOfMemory(Where("Allocate"), bytes, alignment,
                       "the request exceeds the largest supported, 2^60 bytes", stats_);
  }
  // Block starts are multiples of segment_alignment_, so an aligned address lies at most
  // alignment - segment_alignment_ bytes into any block.
  const size_t padding = alignment > segment_alignment_ ? alignment - segment_alignment_ : 0;
  const size_t need = RoundRequest(std::max<size_t>(bytes, 1) + padding);
  const bool small = IsSmallRequest(need);
  Pool& pool = small ? small_ : large_;

  Block* block = FindFreeBlock(pool, need);
  if (block != nullptr) {
    BinRemove(block);
    ++stats_.num_cache_hits;
  } else {
    Result<Block*> fresh = NewSegment(pool, SegmentBytes(need), bytes, alignment);
    if (!fresh.ok()) return fresh.status();
    block = *fresh;
  }
  if (ShouldSplit(small, block->bytes - need)) BinInsert(SplitOff(block, need));

  block->allocated = true;
  block->user =
      reinterpret_cast<char*>(AlignUp(reinterpret_cast<uintptr_t>(block->start), alignment));
  live_.Insert(block->user, block);
  stats_.RecordAllocate(block->bytes);
  return static_cast<void*>(block->user);
}

Status CachingAllocator::Free(void* ptr) {
  if (ptr == nullptr) return Status::Ok();
  std::lock_guard<std::mutex> lock(mu_);
  Block* block = nullptr;
  if (!live_.Erase(ptr, &block)) {
    const uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
    for (const Block* head = segments_; head != nullptr; head = head->segment_next) {
      const uintptr_t base = reinterpret_cast<uintptr_t>(head->start);
      if (address >= base && address - base < head->segment_bytes) {
        return UnknownPointer(Where("Free"), ptr,
                              "lies in the cached segment " + PointerString(head->start) + " (+" +
                                  std::to_string(head->segment_bytes) +
                                  " bytes) but is not a live allocation: a double free or a "
                                  "pointer into the middle of an allocation");
      }
    }
    return UnknownPointer(Where("Free"), ptr, "was not allocated by this allocator");
  }
  stats_.RecordFree(block->bytes);
  block->allocated = false;
  block->user = nullptr;
  if (block->next != nullptr && !block->next->allocated) {
    BinRemove(block->next);
    MergeInto(block, block->next);
  }
  if (block->prev != nullptr && !block->prev->allocated) {
    Block* left = block->prev;
    BinRemove(left);
    MergeInto(left, block);
    block = left;
  }
  BinInsert(block);
  return Status::Ok();
}

CachingAllocator::Block* CachingAllocator::FindFreeBlock(Pool& pool, size_t bytes) {
  const int bin = BinIndex(bytes);
  // The request's own bin also holds blocks smaller than the request: best fit among the
  // rest, stopping early at an exact fit.
  Block* best = nullptr;
  for (Block* b = pool.bins[bin]; b != nullptr; b = b->bin_next) {
    if (b->bytes >= bytes && (best == nullptr || b->bytes < best->bytes)) {
      best = b;
      if (b->bytes == bytes) break;
    }
  }
  if (best != nullptr) return best;
  // Every block in a higher bin fits; the lowest non-empty one wastes least.
  const uint64_t higher = bin + 1 < kNumBins ? pool.nonempty & (~uint64_t{0} << (bin + 1)) : 0;
  if (higher == 0) return nullptr;
  return pool.bins[__builtin_ctzll(higher)];
}

Result<CachingAllocator::Block*> CachingAllocator::NewSegment(Pool& pool, size_t segment_bytes,
                                                              size_t bytes, size_t alignment) {
  Result<void*> memory = backing_->Allocate(segment_bytes, segment_alignment_);
  if (!memory.ok() && memory.status().code() == StatusCode::kResourceExhausted &&
      stats_.bytes_reserved > stats_.bytes_in_use) {
    // Cached but unused segments may be what stands between this request and success.
    // A failure to release one is reported by the retry's error if it matters.
    static_cast<void>(ReleaseFreeSegments());
    memory = backing_->Allocate(segment_bytes, segment_alignment_);
  }
  if (!memory.ok()) {
    const std::string cause = "a " + std::to_string(segment_bytes) +
                              "-byte segment from the backing allocator failed (" +
                              memory.status().message() + ")";
    if (memory.status().code() == StatusCode::kResourceExhausted) {
      return OutOfMemory(Where("Allocate"), bytes, alignment, cause, stats_);
    }
    return Status(memory.status().code(),
                  Where("Allocate") + " (bytes=" + std::to_string(bytes) + "): " + cause);
  }
  Block* head = NewBlockRecord();
  head->start = static_cast<char*>(*memory);
  head->bytes = segment_bytes;
  head->segment_bytes = segment_bytes;
  head->small_pool = &pool == &small_;
  head->segment_next = segments_;
  if (segments_ != nullptr) segments_->segment_prev = head;
  segments_ = head;
  stats_.bytes_reserved += segment_bytes;
  ++stats_.num_system_allocs;
  ++stats_.num_segments;
  return head;
}

CachingAllocator::Block* CachingAllocator::SplitOff(Block* block, size_t bytes) {
  Block* tail = NewBlockRecord();
  tail->start = block->start + bytes;
  tail->bytes = block->bytes - bytes;
  tail->small_pool = block->small_pool;
  tail->prev = block;
  tail->next = block->next;
  if (block->next != nullptr) block->next->prev = tail;
  block->next = tail;
  block->bytes = bytes;
  return tail;
}

void CachingAllocator::MergeInto(Block* left, Block* right) {
  left->bytes += right->bytes;
  left->next = right->next;
  if (right->next != nullptr) right->next->prev = left;
  RecycleBlockRecord(right);
}

void CachingAllocator::BinInsert(Block* block) {
  Pool& pool = block->small_pool ? small_ : large_;
  const int bin = BinIndex(block->bytes);
  // Most recently freed first: its memory is the likeliest to be in cache.
  block->bin_prev = nullptr;
  block->bin_next = pool.bins[bin];
  if (block->bin_next != nullptr) block->bin_next->bin_prev = block;
  pool.bins[bin] = block;
  pool.nonempty |= uint64_t{1} << bin;
}

void CachingAllocator::BinRemove(Block* block) {
  Pool& pool = block->small_pool ? small_ : large_;
  const int bin = BinIndex(block->bytes);
  if (block->bin_prev != nullptr) {
    block->bin_prev->bin_next = block->bin_next;
  } else {
    pool.bins[bin] = block->bin_next;
    if (pool.bins[bin] == nullptr) pool.nonempty &= ~(uint64_t{1} << bin);
  }
  if (block->bin_next != nullptr) block->bin_next->bin_prev = block->bin_prev;
  block->bin_prev = nullptr;
  block->bin_next = nullptr;
}

CachingAllocator::Block* CachingAllocator::NewBlockRecord() {
  if (spare_records_ != nullptr) {
    Block* block = spare_records_;
    spare_records_ = block->bin_next;
    *block = Block();
    return block;
  }
  records_.push_back(std::make_unique<Block>());
  return records_.back().get();
}

void CachingAllocator::RecycleBlockRecord(Block* block) {
  block->bin_next = spare_records_;
  spare_records_ = block;
}

Status CachingAllocator::EmptyCache() {
  std::lock_guard<std::mutex> lock(mu_);
  return ReleaseFreeSegments();
}

Status CachingAllocator::ReleaseFreeSegments() {
  Status first_error;
  Block* head = segments_;
  while (head != nullptr) {
    Block* following = head->segment_next;
    if (!head->allocated && head->next == nullptr) {
      BinRemove(head);
      Status released = ReleaseSegment(head);
      if (first_error.ok() && !released.ok()) first_error = std::move(released);
    }
    head = following;
  }
  return first_error;
}

Status CachingAllocator::ReleaseSegment(Block* head) {
  if (head->segment_prev != nullptr) {
    head->segment_prev->segment_next = head->segment_next;
  } else {
    segments_ = head->segment_next;
  }
  if (head->segment_next != nullptr) head->segment_next->segment_prev = head->segment_prev;
  // The segment leaves the books even if the backing Free fails: its state is unknown, and
  // handing it out again would be worse than losing it.
  stats_.bytes_reserved -= head->segment_bytes;
  ++stats_.num_system_frees;
  --stats_.num_segments;
  Status freed = backing_->Free(head->start);
  RecycleBlockRecord(head);
  return freed;
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void CachingAllocator::ResetPeak() {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.peak_bytes_in_use = stats_.bytes_in_use;
}

std::vector<SegmentInfo> CachingAllocator::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<SegmentInfo> segments;
  for (const Block* head = segments_; head != nullptr; head = head->segment_next) {
    SegmentInfo info;
    info.base = reinterpret_cast<uintptr_t>(head->start);
    info.bytes = head->segment_bytes;
    info.small_pool = head->small_pool;
    for (const Block* b = head; b != nullptr; b = b->next) {
      info.blocks.push_back({static_cast<size_t>(b->start - head->start), b->bytes, b->allocated});
    }
    segments.push_back(std::move(info));
  }
  return segments;
}

}  // namespace memory
}  // namespace tessera
