// The max and min every Tessera reduction uses (reduce_max/min kernels, P(max)/P(min)
// boxing, the MPI, shared-memory and CUDA collectives): NaN propagates (any NaN in ->
// a NaN out, as NumPy's maximum/minimum), and -0.0 orders below +0.0 (IEEE 754-2019
// maximum/minimum), so the result is the same whatever order the operands are combined
// in. That matters more than it looks: a collective's combining order depends on the
// algorithm, the rank count and the layout, and a max that kept whichever zero came
// first would give a B tensor with +0.0 on one rank and -0.0 on another. Which NaN
// comes out (payload, sign) when several meet is not specified. See docs/numerics.md.
//
// Host and device code (__host__ __device__ under nvcc); branch-free enough that GCC
// vectorises loops over it at -O3.
#ifndef TESSERA_CORE_COMMON_EXACT_MINMAX_H_
#define TESSERA_CORE_COMMON_EXACT_MINMAX_H_

#include <cmath>
#include <type_traits>

#include "core/common/half.h"

#ifndef TESS_HOST_DEVICE
#if defined(__CUDACC__)
#define TESS_HOST_DEVICE __host__ __device__
#else
#define TESS_HOST_DEVICE
#endif
#endif

namespace tessera {

// f16 and bf16 (core/common/half.h) compare as the floats they are; the result is one
// of the two operands, unchanged.
template <typename T>
TESS_HOST_DEVICE inline T ExactMax(T a, T b) {
  if constexpr (kIsFloating<T>) {
    using F = std::conditional_t<kIsHalf<T>, float, T>;
    const F fa = a, fb = b;
    // fb != fb: b is NaN (a NaN a survives: every test on it is false). b == a with b
    // positive: equal values are identical except +0.0 == -0.0, where +0.0 wins.
    return (fb > fa || fb != fb || (fb == fa && !std::signbit(fb))) ? b : a;
  } else {
    return b > a ? b : a;
  }
}

template <typename T>
TESS_HOST_DEVICE inline T ExactMin(T a, T b) {
  if constexpr (kIsFloating<T>) {
    using F = std::conditional_t<kIsHalf<T>, float, T>;
    const F fa = a, fb = b;
    return (fb < fa || fb != fb || (fb == fa && std::signbit(fb))) ? b : a;
  } else {
    return b < a ? b : a;
  }
}

// The two as function objects, for loops templated on their combining op.
struct ExactMaxOp {
  template <typename T>
  TESS_HOST_DEVICE T operator()(T a, T b) const {
    return ExactMax(a, b);
  }
};
struct ExactMinOp {
  template <typename T>
  TESS_HOST_DEVICE T operator()(T a, T b) const {
    return ExactMin(a, b);
  }
};

}  // namespace tessera

#endif  // TESSERA_CORE_COMMON_EXACT_MINMAX_H_
