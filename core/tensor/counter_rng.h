// A counter-based random generator: the value for element i is a pure function of
// (seed, i). Each rank computes the values of its own logical indices, so a random
// tensor is the same logical tensor on any placement, nd-sbp or world size, with no
// communication and no generator state to keep in step.
//
// The mixer is SplitMix64's finaliser (Steele, Lea, Flood 2014), applied to the seed
// and then to seed-hash + index * golden ratio: every output bit depends on every input
// bit, which is all a test or initialiser needs (this is not a cryptographic RNG).
#ifndef TESSERA_CORE_TENSOR_COUNTER_RNG_H_
#define TESSERA_CORE_TENSOR_COUNTER_RNG_H_

#include <cmath>
#include <cstdint>

namespace tessera {
namespace tensor {

inline uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

inline uint64_t CounterBits(uint64_t seed, uint64_t index) {
  return Mix64(Mix64(seed) + index * 0x9e3779b97f4a7c15ULL);
}

// Uniform in [0, 1) with 53 random bits.
inline double CounterUniform(uint64_t seed, uint64_t index) {
  return static_cast<double>(CounterBits(seed, index) >> 11) * 0x1.0p-53;
}

// Uniform in [0, 1) with 24 random bits, so the value converts to float exactly (a
// 53-bit value just below 1 would round up to 1.0f).
inline double CounterUniformF32(uint64_t seed, uint64_t index) {
  return static_cast<double>(CounterBits(seed, index) >> 40) * 0x1.0p-24;
}

// Standard normal by Box-Muller over the uniforms of counters 2i and 2i+1.
inline double CounterNormal(uint64_t seed, uint64_t index) {
  const double u1 = 1.0 - CounterUniform(seed, 2 * index);  // (0, 1]: log is finite
  const double u2 = CounterUniform(seed, 2 * index + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace tensor
}  // namespace tessera

#endif  // TESSERA_CORE_TENSOR_COUNTER_RNG_H_
