// Kernels that move elements without changing them: transpose, reshape (squeeze,
// unsqueeze, flatten), concat, slice, expand. Every dtype. reshape copies its input into the
// caller's output (whose local shape the caller computed: for a split tensor it is not the "shape"
// attribute). transpose, slice and expand (a zero stride on each expanded axis) walk the output in
// memory order (StridedLoop), so writes are contiguous and runs of contiguous reads become plain
// copies.
#include <cstring>

#include "kernels/common/kernel_plans.h"
#include "kernels/common/strided_loop.h"
#include "kernels/cpu/families.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// out[i] = in[i * stride] for one run; a unit stride is a copy.
template <typename T>
void CopyRun(const T* in, T* out, int64_t n, int64_t stride) {
  if (stride == 1) {
    std::memcpy(out, in, static_cast<size_t>(n) * sizeof(T));
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = in[i * stride];
  }
}

// Copies x into out as the plan maps them.
Status StridedCopy(const KernelContext& ctx, const StridedCopyPlan& plan) {
  const StridedLoop<2> loop(plan.out, plan.strides);
  return Dispatch<DTypeSet::kAll>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const T* x = In<T>(ctx, 0) + plan.offset;
    T* out = Out<T>(ctx, 0);
    loop.Run([&](const int64_t* off, int64_t n, const int64_t* st) {
      CopyRun(x + off[0], out + off[1], n, st[0]);
    });
    return Status::Ok();
  });
}

// ---- transpose ----

Status TransposeKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const StridedCopyPlan plan, PlanTranspose(ctx));
  return StridedCopy(ctx, plan);
}

// ---- reshape ----

Status ReshapeKernel(const KernelContext& ctx) {
  TESS_RETURN_IF_ERROR(PlanReshape(ctx));
  const LocalTensor& x = ctx.inputs[0];
  const size_t bytes = static_cast<size_t>(x.shape.num_elements()) * DTypeSize(x.dtype);
  if (bytes > 0) std::memcpy(ctx.outputs[0].data, x.data, bytes);
  return Status::Ok();
}

// ---- expand ----

Status ExpandKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const StridedCopyPlan plan, PlanExpand(ctx));
  if (plan.out.num_elements() == 0) return Status::Ok();
  return StridedCopy(ctx, plan);
}

// ---- concat ----

Status ConcatKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const ConcatPlan plan, PlanConcat(ctx));
  if (plan.out.num_elements() == 0) return Status::Ok();
  const int64_t outer = plan.outer, inner = plan.inner;
  const int axis = plan.axis;
  const LocalTensor& first = ctx.inputs[0];
  const size_t esize = DTypeSize(first.dtype);
  char* dst = static_cast<char*>(ctx.outputs[0].data);
  for (int64_t o = 0; o < outer; ++o) {
    for (int k = 0; k < ctx.num_inputs; ++k) {
      const size_t chunk = static_cast<size_t>(ctx.inputs[k].shape.dim(axis) * inner) * esize;
      if (chunk == 0) continue;
      std::memcpy(dst, static_cast<const char*>(ctx.inputs[k].data) + o * chunk, chunk);
      dst += chunk;
    }
  }
  return Status::Ok();
}

// ---- slice ----

Status SliceKernel(const KernelContext& ctx) {
  TESS_ASSIGN_OR_RETURN(const StridedCopyPlan plan, PlanSlice(ctx));
  if (plan.out.num_elements() == 0) return Status::Ok();
  return StridedCopy(ctx, plan);
}

}  // namespace

Status RegisterShapeKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"transpose", Checked<TransposeKernel>},
      {"reshape", Checked<ReshapeKernel>},
      // squeeze, unsqueeze and flatten are reshapes: the same row-major copy.
      {"squeeze", Checked<ReshapeKernel>},
      {"unsqueeze", Checked<ReshapeKernel>},
      {"flatten", Checked<ReshapeKernel>},
      {"expand", Checked<ExpandKernel>},
      {"concat", Checked<ConcatKernel>},
      {"slice", Checked<SliceKernel>},
  };
  return RegisterAll(r, Device::kCpu, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
