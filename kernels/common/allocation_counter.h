// Test support: counts heap allocations through global operator new on the calling
// thread. Linking this library replaces the global operator new and delete of the
// whole binary, so only no-allocation tests link it.
#ifndef TESSERA_KERNELS_COMMON_ALLOCATION_COUNTER_H_
#define TESSERA_KERNELS_COMMON_ALLOCATION_COUNTER_H_

namespace tessera {
namespace kernels {

// Allocations by this thread since it started.
long ThreadAllocations();

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_COMMON_ALLOCATION_COUNTER_H_
