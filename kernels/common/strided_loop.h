// Walks an N-d index space for N operands at once, each with its own element strides
// (0 broadcasts an axis). Size-1 axes are dropped and adjacent axes that every operand
// lays out contiguously are merged, so the callback sees the longest possible inner
// runs: one call per run with the operands' offsets and inner strides. The callback
// branches on those strides once per run and keeps its element loop plain, which is
// what lets the compiler vectorise it. Everything lives on the stack.
//
// The merged geometry (ndim, dim, stride) is public too: the CUDA kernels pass it by
// value to a device-side index mapping, so both devices share one axis-merging rule.
#ifndef TESSERA_KERNELS_COMMON_STRIDED_LOOP_H_
#define TESSERA_KERNELS_COMMON_STRIDED_LOOP_H_

#include <cstdint>

#include "core/common/shape.h"

namespace tessera {
namespace kernels {

template <int N>
class StridedLoop {
 public:
  static constexpr int kMaxDims = Shape::kMaxDims;

  // The index space is `space`; strides[k][a] is operand k's stride along axis a.
  StridedLoop(const Shape& space, const int64_t (&strides)[N][kMaxDims]) {
    for (int a = 0; a < space.ndim(); ++a) {
      const int64_t d = space.dim(a);
      if (d == 0) empty_ = true;
      if (d == 1) continue;  // its stride never matters
      if (ndim_ > 0 && Mergeable(strides, a, d)) {
        dims_[ndim_ - 1] *= d;
        for (int k = 0; k < N; ++k) strides_[k][ndim_ - 1] = strides[k][a];
        continue;
      }
      dims_[ndim_] = d;
      for (int k = 0; k < N; ++k) strides_[k][ndim_] = strides[k][a];
      ++ndim_;
    }
  }

  // Axes left after merging (0 for a single element), their extents and operand k's
  // element stride along each. Meaningless when empty().
  int ndim() const { return ndim_; }
  int64_t dim(int a) const { return dims_[a]; }
  int64_t stride(int k, int a) const { return strides_[k][a]; }
  // Some axis of the space has extent 0.
  bool empty() const { return empty_; }

  // f(const int64_t* offsets, int64_t n, const int64_t* inner_strides), offsets and
  // strides indexed by operand, in element units, once per inner run in row-major order.
  template <typename F>
  void Run(F&& f) const {
    if (empty_) return;
    int64_t offsets[N] = {};
    if (ndim_ == 0) {
      const int64_t zero[N] = {};
      f(offsets, int64_t{1}, zero);
      return;
    }
    const int inner = ndim_ - 1;
    int64_t inner_strides[N];
    for (int k = 0; k < N; ++k) inner_strides[k] = strides_[k][inner];
    int64_t index[kMaxDims] = {};
    while (true) {
      f(offsets, dims_[inner], inner_strides);
      int a = inner - 1;
      for (; a >= 0; --a) {
        for (int k = 0; k < N; ++k) offsets[k] += strides_[k][a];
        if (++index[a] < dims_[a]) break;
        for (int k = 0; k < N; ++k) offsets[k] -= strides_[k][a] * dims_[a];
        index[a] = 0;
      }
      if (a < 0) return;
    }
  }

 private:
  // Axis a (extent d) continues the last kept axis when every operand steps through
  // it exactly as the kept axis would continue.
  bool Mergeable(const int64_t (&strides)[N][kMaxDims], int a, int64_t d) const {
    for (int k = 0; k < N; ++k) {
      if (strides_[k][ndim_ - 1] != strides[k][a] * d) return false;
    }
    return true;
  }

  bool empty_ = false;
  int ndim_ = 0;
  int64_t dims_[kMaxDims] = {};
  int64_t strides_[N][kMaxDims] = {};
};

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_COMMON_STRIDED_LOOP_H_
