// Counts the heap allocations (operator new) made by the calling thread, for tests
// that check a path allocates nothing. Linking this library replaces the global
// operator new and delete of the whole binary (the library is alwayslink).
#ifndef TESSERA_TESTS_BOXING_ALLOC_COUNTER_H_
#define TESSERA_TESTS_BOXING_ALLOC_COUNTER_H_

namespace tessera::boxing::oracle {

// operator new calls made by this thread so far.
long ThreadAllocations();

}  // namespace tessera::boxing::oracle

#endif  // TESSERA_TESTS_BOXING_ALLOC_COUNTER_H_
