// Hash combining shared by the value types (placements, nd-sbps, shapes, cache keys).
#ifndef TESSERA_CORE_COMMON_HASH_H_
#define TESSERA_CORE_COMMON_HASH_H_

#include <cstddef>

namespace tessera {

// boost::hash_combine's mixing, widened to 64 bits.
inline size_t HashCombine(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

}  // namespace tessera

#endif  // TESSERA_CORE_COMMON_HASH_H_
