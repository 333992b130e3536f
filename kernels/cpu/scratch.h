// Per-thread float scratch for the f16/bf16 kernels that must accumulate in float
// across a whole output (reduce_sum/mean along outer axes) or hand float buffers to
// BLAS (matmul). Each slot keeps its largest size, so after a warm-up call of a given
// size a kernel allocates nothing (kernels/cpu/no_alloc_test.cc).
#ifndef TESSERA_KERNELS_CPU_SCRATCH_H_
#define TESSERA_KERNELS_CPU_SCRATCH_H_

#include <cstdint>

namespace tessera {
namespace kernels {
namespace cpu {

inline constexpr int kScratchSlots = 3;

// `n` floats in slot `slot` (0 <= slot < kScratchSlots) of this thread; valid until the
// next call for the same slot on this thread. Contents are unspecified.
float* FloatScratch(int slot, int64_t n);

// out[i] = in[i] for n elements: the conversions between a 2-byte type and float.
template <typename To, typename From>
void ConvertRange(const From* in, To* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<To>(in[i]);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_CPU_SCRATCH_H_
