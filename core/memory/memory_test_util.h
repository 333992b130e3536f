// Test doubles for the memory tests.
#ifndef TESSERA_CORE_MEMORY_MEMORY_TEST_UTIL_H_
#define TESSERA_CORE_MEMORY_MEMORY_TEST_UTIL_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include "core/memory/allocator.h"
#include "core/memory/host_allocator.h"

namespace tessera {
namespace memory {

// A host backing allocator that counts its own calls (an oracle independent of the caching
// allocator's stats), can be capped to simulate running out of memory, and can be told to
// fail frees. Thread-safe.
class FakeSystemAllocator : public Allocator {
 public:
  explicit FakeSystemAllocator(uint64_t limit_bytes = UINT64_MAX) : limit_bytes_(limit_bytes) {}

  Result<void*> Allocate(size_t bytes, size_t alignment = kDefaultAlignment) override;
  Status Free(void* ptr) override;
  AllocatorStats stats() const override { return system_.stats(); }
  void ResetPeak() override { system_.ResetPeak(); }
  DeviceType device_type() const override { return DeviceType::kCpu; }
  int device_index() const override { return 0; }
  size_t max_alignment() const override { return cuda_like_ ? 256 : kMaxAlignment; }

  // Acts like cudaMalloc: promises only 256-byte alignment, and (to exercise callers that
  // rely on no more) returns addresses that are 256 modulo 512.
  void set_cuda_like(bool cuda_like) { cuda_like_ = cuda_like; }
  void set_limit_bytes(uint64_t limit);
  void set_fail_frees(bool fail);

  int64_t allocate_calls() const;
  int64_t free_calls() const;
  uint64_t live_bytes() const;
  size_t live_count() const;
  // Alignment of the most recent Allocate call.
  size_t last_alignment() const;

 private:
  SystemHostAllocator system_;
  bool cuda_like_ = false;
  mutable std::mutex mu_;
  uint64_t limit_bytes_;
  bool fail_frees_ = false;
  int64_t allocate_calls_ = 0;
  int64_t free_calls_ = 0;
  uint64_t live_bytes_ = 0;
  size_t last_alignment_ = 0;
  std::map<void*, std::pair<void*, size_t>> live_;  // returned -> (system pointer, bytes)
};

}  // namespace memory
}  // namespace tessera

#endif  // TESSERA_CORE_MEMORY_MEMORY_TEST_UTIL_H_
