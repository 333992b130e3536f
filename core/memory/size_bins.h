// How the caching allocator sizes requests, segments and free-list bins.
//
// Request rounding: every request is rounded up to a multiple of 512 bytes (kBlockBytes),
// and a zero-byte request counts as one byte. 512 B is small next to any real tensor, keeps
// every block start 512-aligned within its segment (well beyond what vector loads need),
// and bounds the number of distinct sizes a free list sees.
//
// Two pools, so small tensors never fragment the memory large ones need:
// - small: rounded requests up to 1 MiB (kSmallRequestMax) are carved out of 2 MiB segments
//   (kSmallSegmentBytes); one system allocation serves many small tensors.
// - large: bigger requests get a segment of their size rounded up to a 2 MiB multiple
//   (kLargeSegmentGranularity), the huge-page size and PyTorch's large-segment rounding.
//   PyTorch also grows 1-10 MiB requests to 20 MiB segments to save cudaMalloc calls; we do
//   not, so host memory is never over-reserved tenfold for one mid-size tensor.
//
// Bins: free blocks of a pool sit in power-of-two bins, bin i holding sizes in
// [512 << i, 512 << (i + 1)). A lookup scans bin i for the best fit and otherwise takes the
// first block of the lowest non-empty higher bin, found from a bit mask in O(1): a
// segregated fit, as in OneFlow's BinAllocator.
//
// Splitting: a cached block much larger than the request is split and the tail goes back
// to the bins. In the small pool any tail of at least 512 B is split off (the whole point
// of the pool is to pack many tensors into a segment). In the large pool only a tail over
// 1 MiB is: a smaller tail could only serve small requests, which never come to the large
// pool, so splitting it off would just fragment the segment. Freed blocks merge with free
// neighbours in the same segment, so a segment whose pieces are all freed is whole again.
#ifndef TESSERA_CORE_MEMORY_SIZE_BINS_H_
#define TESSERA_CORE_MEMORY_SIZE_BINS_H_

#include <cstddef>

#include "core/memory/allocator.h"

namespace tessera {
namespace memory {

inline constexpr size_t kBlockBytes = 512;
inline constexpr size_t kSmallRequestMax = size_t{1} << 20;
inline constexpr size_t kSmallSegmentBytes = size_t{2} << 20;
inline constexpr size_t kLargeSegmentGranularity = size_t{2} << 20;
// Bin i covers [512 << i, 512 << (i + 1)); 64 bins cover every size_t and fit a uint64 mask.
inline constexpr int kNumBins = 64;
// Requests above 2^60 bytes are refused before any arithmetic that could overflow.
inline constexpr size_t kMaxRequestBytes = size_t{1} << 60;

// max(bytes, 1) rounded up to a multiple of kBlockBytes. Precondition: bytes <=
// kMaxRequestBytes.
inline constexpr size_t RoundRequest(size_t bytes) {
  return AlignUp(bytes == 0 ? 1 : bytes, kBlockBytes);
}

inline constexpr bool IsSmallRequest(size_t rounded) { return rounded <= kSmallRequestMax; }

// The system allocation made when no cached block fits a rounded request.
inline constexpr size_t SegmentBytes(size_t rounded) {
  return IsSmallRequest(rounded) ? kSmallSegmentBytes : AlignUp(rounded, kLargeSegmentGranularity);
}

// Whether a block serving a request in the small (or large) pool sheds a tail of
// `remainder` bytes as a new free block.
inline constexpr bool ShouldSplit(bool small_pool, size_t remainder) {
  return small_pool ? remainder >= kBlockBytes : remainder > kSmallRequestMax;
}

// The bin of a block of `bytes` (>= kBlockBytes): floor(log2(bytes / 512)).
inline int BinIndex(size_t bytes) {
  return 63 - __builtin_clzll(static_cast<unsigned long long>(bytes / kBlockBytes));
}

}  // namespace memory
}  // namespace tessera

#endif  // TESSERA_CORE_MEMORY_SIZE_BINS_H_
