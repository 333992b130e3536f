// The calling thread's heap-allocation count, for the allocation statistics that hot paths
// report (plan runs, served batches). Counting needs //core/memory:heap_counter, which
// replaces operator new and is linked into test binaries only; the library refers to its
// counter weakly, so the symbol is null elsewhere and the count reads -1 ("not counted").
#ifndef TESSERA_CORE_MEMORY_HEAP_COUNT_H_
#define TESSERA_CORE_MEMORY_HEAP_COUNT_H_

namespace tessera::memory {

long ThreadHeapAllocations() __attribute__((weak));

// operator new calls made by the calling thread so far, or -1 when not counted.
inline long ThreadHeapAllocationsIfCounted() {
  return &ThreadHeapAllocations != nullptr ? ThreadHeapAllocations() : -1;
}

}  // namespace tessera::memory

#endif  // TESSERA_CORE_MEMORY_HEAP_COUNT_H_
