// reduce_sum, reduce_mean, reduce_max, reduce_min on CUDA, with the CPU kernels'
// semantics: an empty max (min) is -inf / lowest (+inf / highest), an empty mean NaN,
// max and min propagate NaN, integer sums wrap.
//
// No permutation is materialised: x's kept axes and its reduced axes are each merged
// (StridedLoop's rule) into an IndexMap, so output o and reduced position r address
// x[kept(o) + reduced(r)]. Two layouts:
// - rows: x's innermost axis is reduced, so a reduction reads contiguous memory. One
//   block per output, threads striding over r, a shuffle tree to combine.
// - columns: the innermost axis is kept, so neighbouring outputs are neighbours in
//   memory. A block takes 32 neighbouring outputs (threadIdx.x) and splits r over 8
//   rows of threads (threadIdx.y), which reads x in coalesced 32-wide runs.
// Float sums accumulate in the element type (f32 in float, unlike the CPU's double):
// the tree keeps the error near log2(count) ulps of the sum of magnitudes.
#include <cuda_runtime.h>

#include <type_traits>

#include "kernels/common/arith.h"
#include "kernels/common/kernel_plans.h"
#include "kernels/common/strided_loop.h"
#include "kernels/cuda/families.h"
#include "kernels/cuda/launch.cu.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

enum class Kind { kSum, kMean, kMax, kMin };

template <Kind kKind, typename T>
struct Reducer {
  __device__ static T Identity() {
    if constexpr (kKind == Kind::kMax) return Lowest<T>();
    if constexpr (kKind == Kind::kMin) return Highest<T>();
    return T(0);
  }
  __device__ T operator()(T a, T b) const {
    if constexpr (kKind == Kind::kMax) return Max(a, b);
    if constexpr (kKind == Kind::kMin) return Min(a, b);
    return Add(a, b);
  }
  // The output element for an accumulated `acc` of `count` elements.
  __device__ static T Finish(T acc, int64_t count) {
    if constexpr (kKind == Kind::kMean) {
      return count == 0 ? T(NAN) : acc / static_cast<T>(count);
    }
    return acc;
  }
};

// Both kernels accumulate in C = Compute<T> (float for f16/bf16) and round once into
// out.
template <Kind kKind, typename T>
__global__ void ReduceRowsKernel(const T* x, T* out, int64_t outputs, int64_t count,
                                 IndexMap<1> kept, IndexMap<1> reduced) {
  using C = Compute<T>;
  __shared__ C shared[32];
  const Reducer<kKind, C> op;
  for (int64_t o = blockIdx.x; o < outputs; o += gridDim.x) {
    int64_t base[1];
    kept.Offsets(o, base);
    C acc = op.Identity();
    for (int64_t r = threadIdx.x; r < count; r += blockDim.x) {
      int64_t off[1];
      reduced.Offsets(r, off);
      acc = op(acc, C(x[base[0] + off[0]]));
    }
    acc = BlockReduce(acc, op, shared);
    if (threadIdx.x == 0) out[o] = op.Finish(acc, count);
  }
}

constexpr int kColumnWidth = 32;  // outputs per block
constexpr int kColumnRows = 8;    // threads splitting each output's reduction

template <Kind kKind, typename T>
__global__ void ReduceColumnsKernel(const T* x, T* out, int64_t outputs, int64_t count,
                                    IndexMap<1> kept, IndexMap<1> reduced) {
  using C = Compute<T>;
  __shared__ C partial[kColumnRows][kColumnWidth + 1];
  const Reducer<kKind, C> op;
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int64_t o0 = static_cast<int64_t>(blockIdx.x) * kColumnWidth; o0 < outputs;
       o0 += static_cast<int64_t>(gridDim.x) * kColumnWidth) {
    const int64_t o = o0 + tx;
    C acc = op.Identity();
    if (o < outputs) {
      int64_t base[1];
      kept.Offsets(o, base);
      for (int64_t r = ty; r < count; r += kColumnRows) {
        int64_t off[1];
        reduced.Offsets(r, off);
        acc = op(acc, C(x[base[0] + off[0]]));
      }
    }
    partial[ty][tx] = acc;
    __syncthreads();
    if (ty == 0 && o < outputs) {
      for (int k = 1; k < kColumnRows; ++k) acc = op(acc, partial[k][tx]);
      out[o] = op.Finish(acc, count);
    }
    __syncthreads();
  }
}

// The merged geometry of the axes of `x` with reduced[a] == `which`, as an IndexMap
// over x's strides. Its flat index runs over those axes in row-major order, which for
// the kept axes is the output's order.
IndexMap<1> AxesMap(const Shape& x, const bool* reduced, bool which) {
  int64_t x_strides[Shape::kMaxDims];
  ContiguousStrides(x, x_strides);
  int64_t dims[Shape::kMaxDims];
  int64_t strides[2][Shape::kMaxDims];
  int n = 0;
  for (int a = 0; a < x.ndim(); ++a) {
    if (reduced[a] != which) continue;
    dims[n] = x.dim(a);
    strides[0][n] = x_strides[a];
    ++n;
  }
  // Cannot fail: at most x.ndim() extents, each >= 0.
  const Shape space = Shape::Make(dims, static_cast<size_t>(n)).value();
  ContiguousStrides(space, strides[1]);
  return MakeIndexMap<1>(StridedLoop<2>(space, strides));
}

template <Kind kKind>
Status ReduceOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const ReducePlan plan, PlanReduce(ctx));
  constexpr DTypeSet kSet = kKind == Kind::kMean ? DTypeSet::kFloating : DTypeSet::kNumeric;
  return Dispatch<kSet>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const int64_t outputs = plan.out.num_elements();
    if (outputs == 0) return Status::Ok();
    const Shape& xs = ctx.inputs[0].shape;
    const IndexMap<1> kept = AxesMap(xs, plan.reduced, false);
    const IndexMap<1> reduced = AxesMap(xs, plan.reduced, true);
    // Rows when the innermost axis that matters (extent > 1) is reduced.
    bool rows = false;
    for (int a = xs.ndim() - 1; a >= 0; --a) {
      if (xs.dim(a) == 1) continue;
      rows = plan.reduced[a];
      break;
    }
    const T* x = In<T>(ctx, 0);
    T* out = Out<T>(ctx, 0);
    if (rows) {
      ReduceRowsKernel<kKind>
          <<<BlockCount(outputs, 1), ReduceThreads(plan.count), 0, StreamOf(ctx)>>>(
              x, out, outputs, plan.count, kept, reduced);
    } else {
      ReduceColumnsKernel<kKind>
          <<<BlockCount(outputs, kColumnWidth), dim3(kColumnWidth, kColumnRows), 0,
             StreamOf(ctx)>>>(x, out, outputs, plan.count, kept, reduced);
    }
    return CheckLaunch(ctx, rows ? "ReduceRowsKernel" : "ReduceColumnsKernel");
  });
}

}  // namespace

Status RegisterReduceKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"reduce_sum", Checked<ReduceOp<Kind::kSum>>},
      {"reduce_mean", Checked<ReduceOp<Kind::kMean>>},
      {"reduce_max", Checked<ReduceOp<Kind::kMax>>},
      {"reduce_min", Checked<ReduceOp<Kind::kMin>>},
  };
  return RegisterAll(r, Device::kCuda, kernels);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
