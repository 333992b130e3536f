// transpose, reshape (squeeze, unsqueeze, flatten), concat, slice and expand on CUDA: elements move
// as bits (1, 2, 4 or 8 bytes), so one kernel per element size serves every dtype. transpose and
// slice write the output in order and find each source element through an IndexMap over the merged
// axes; when the merged map is a plain contiguous run the copy is a cudaMemcpyAsync. reshape is a
// device-to-device copy into the caller's output (whose local shape the caller computed). concat
// copies each input's [outer, chunk] block into its columns of the output.
#include <cuda_runtime.h>

#include "kernels/common/kernel_plans.h"
#include "kernels/common/strided_loop.h"
#include "kernels/cuda/families.h"
#include "kernels/cuda/launch.cu.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

template <typename U>
__global__ void GatherCopyKernel(const U* x, U* out, int64_t n, IndexMap<1> map) {
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) {
    int64_t off[1];
    map.Offsets(i, off);
    out[i] = x[off[0]];
  }
}

// out row r (pitch out_pitch) gets the `width` elements of x row r (pitch width).
template <typename U>
__global__ void CopyRowsKernel(const U* x, U* out, int64_t rows, int64_t width, int64_t out_pitch) {
  const int64_t n = rows * width;
  for (int64_t i = GlobalThread(); i < n; i += GridThreads()) {
    const int64_t r = i / width;
    out[r * out_pitch + (i - r * width)] = x[i];
  }
}

Status StridedCopy(const KernelContext& ctx, const StridedCopyPlan& plan) {
  const int64_t n = plan.out.num_elements();
  if (n == 0) return Status::Ok();
  const DType dtype = ctx.inputs[0].dtype;
  const StridedLoop<2> loop(plan.out, plan.strides);
  if (loop.ndim() == 0 || (loop.ndim() == 1 && loop.stride(0, 0) == 1)) {
    const size_t esize = DTypeSize(dtype);
    return CheckCall(
        ctx, "cudaMemcpyAsync",
        cudaMemcpyAsync(ctx.outputs[0].data,
                        static_cast<const char*>(ctx.inputs[0].data) +
                            plan.offset * static_cast<int64_t>(esize),
                        static_cast<size_t>(n) * esize, cudaMemcpyDeviceToDevice, StreamOf(ctx)));
  }
  return VisitBits(dtype, [&](auto u) {
    using U = typename decltype(u)::type;
    GatherCopyKernel<<<BlockCount(n), kThreads, 0, StreamOf(ctx)>>>(
        In<U>(ctx, 0) + plan.offset, Out<U>(ctx, 0), n, MakeIndexMap<1>(loop));
    return CheckLaunch(ctx, "GatherCopyKernel");
  });
}

Status TransposeOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const StridedCopyPlan plan, PlanTranspose(ctx));
  return StridedCopy(ctx, plan);
}

Status SliceOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const StridedCopyPlan plan, PlanSlice(ctx));
  return StridedCopy(ctx, plan);
}

// expand: a zero source stride along every expanded axis.
Status ExpandOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const StridedCopyPlan plan, PlanExpand(ctx));
  return StridedCopy(ctx, plan);
}

Status ReshapeOp(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(PlanReshape(ctx));
  const LocalTensor& x = ctx.inputs[0];
  const size_t bytes = static_cast<size_t>(x.shape.num_elements()) * DTypeSize(x.dtype);
  if (bytes == 0) return Status::Ok();
  return CheckCall(
      ctx, "cudaMemcpyAsync",
      cudaMemcpyAsync(ctx.outputs[0].data, x.data, bytes, cudaMemcpyDeviceToDevice, StreamOf(ctx)));
}

Status ConcatOp(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const ConcatPlan plan, PlanConcat(ctx));
  if (plan.out.num_elements() == 0) return Status::Ok();
  const int64_t out_pitch = plan.out.dim(plan.axis) * plan.inner;
  return VisitBits(ctx.inputs[0].dtype, [&](auto u) {
    using U = typename decltype(u)::type;
    int64_t column = 0;
    for (int k = 0; k < ctx.num_inputs; ++k) {
      const int64_t width = ctx.inputs[k].shape.dim(plan.axis) * plan.inner;
      if (width == 0) continue;
      CopyRowsKernel<<<BlockCount(plan.outer * width), kThreads, 0, StreamOf(ctx)>>>(
          In<U>(ctx, k), Out<U>(ctx, 0) + column, plan.outer, width, out_pitch);
      TESS_RETURN_IF_ERROR(CheckLaunch(ctx, "CopyRowsKernel"));
      column += width;
    }
    return Status::Ok();
  });
}

}  // namespace

Status RegisterShapeKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"transpose", Checked<TransposeOp>},
      {"reshape", Checked<ReshapeOp>},
      // squeeze, unsqueeze and flatten are reshapes: the same row-major copy.
      {"squeeze", Checked<ReshapeOp>},
      {"unsqueeze", Checked<ReshapeOp>},
      {"flatten", Checked<ReshapeOp>},
      {"expand", Checked<ExpandOp>},
      {"concat", Checked<ConcatOp>},
      {"slice", Checked<SliceOp>},
  };
  return RegisterAll(r, Device::kCuda, kernels);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
