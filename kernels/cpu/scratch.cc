#include "kernels/cpu/scratch.h"

#include <cstddef>
#include <vector>

namespace tessera {
namespace kernels {
namespace cpu {

float* FloatScratch(int slot, int64_t n) {
  thread_local std::vector<float> buffers[kScratchSlots];
  std::vector<float>& b = buffers[slot];
  if (static_cast<int64_t>(b.size()) < n) b.resize(static_cast<size_t>(n));
  return b.data();
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
