// Heap-allocation counting for tests that prove a hot path does not touch the heap.
//
// Linking :heap_counter into a binary replaces the global operator new and delete (every
// form, aligned ones included) with versions over malloc/free that count, per thread, the
// allocations the calling thread makes. Link it into test binaries only, one per binary.
#ifndef TESSERA_CORE_MEMORY_HEAP_COUNTER_H_
#define TESSERA_CORE_MEMORY_HEAP_COUNTER_H_

namespace tessera {
namespace memory {

// operator new calls made by the calling thread so far. Take a difference around the code
// under test.
long ThreadHeapAllocations();

}  // namespace memory
}  // namespace tessera

#endif  // TESSERA_CORE_MEMORY_HEAP_COUNTER_H_
