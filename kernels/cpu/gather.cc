// gather and embedding: copies of params rows picked by i32/i64 indices, for every
// params dtype. Every index is checked before anything is written: one outside
// [0, axis size) is an error naming the op, its position in indices and its value.
// Negative indices do not wrap.
#include <algorithm>
#include <vector>

#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/families.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// params viewed as [pre, axis_size, post]; out as [pre, num_indices, post].
struct GatherPlan {
  int64_t pre = 1, axis_size = 0, post = 1;
};

// `what()`, which names the indexed axis, runs only on failure: the success path
// allocates nothing.
template <typename I, typename What>
Status CheckIndices(const KernelContext& ctx, const I* indices, const Shape& shape,
                    int64_t axis_size, const What& what) {
  const int64_t n = shape.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    if (indices[i] < 0 || indices[i] >= axis_size) {
      return KernelError(ctx, "indices" + IndexString(shape, i) + " = " +
                                  std::to_string(indices[i]) + " is outside [0, " +
                                  std::to_string(axis_size) + "), " + what());
    }
  }
  return Status::Ok();
}

template <typename What>
Status RunGather(const KernelContext& ctx, const GatherPlan& p, const What& what) {
  const Shape& index_shape = ctx.inputs[1].shape;
  const int64_t n = index_shape.num_elements();
  return Dispatch<DTypeSet::kIndex>(ctx, 1, [&](auto it) {
    using I = typename decltype(it)::type;
    const I* indices = In<I>(ctx, 1);
    TESS_RETURN_IF_ERROR(CheckIndices(ctx, indices, index_shape, p.axis_size, what));
    return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
      using T = typename decltype(t)::type;
      const T* params = In<T>(ctx, 0);
      T* out = Out<T>(ctx, 0);
      if (p.post == 0) return Status::Ok();
      for (int64_t o = 0; o < p.pre; ++o) {
        const T* src = params + o * p.axis_size * p.post;
        T* dst = out + o * n * p.post;
        for (int64_t i = 0; i < n; ++i) {
          std::copy_n(src + static_cast<int64_t>(indices[i]) * p.post, p.post, dst + i * p.post);
        }
      }
      return Status::Ok();
    });
  });
}

Status GatherKernel(const KernelContext& ctx) {
  const LocalTensor& params = ctx.inputs[0];
  const Shape& idx = ctx.inputs[1].shape;
  TESS_ASSIGN_OR_RETURN(const int64_t axis_attr, IntAttr(ctx, "axis"));
  TESS_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, "axis", axis_attr, 0));
  const Shape& ps = params.shape;
  int64_t dims[Shape::kMaxDims];
  int nd = 0;
  GatherPlan plan;
  // params[:axis] + indices.shape + params[axis+1:], bounded by Shape::kMaxDims.
  const int out_ndim = ps.ndim() - 1 + idx.ndim();
  if (out_ndim > Shape::kMaxDims) {
    return KernelError(ctx, "output rank " + std::to_string(out_ndim) + " of params " +
                                ps.ToString() + " and indices " + idx.ToString() + " exceeds " +
                                std::to_string(Shape::kMaxDims));
  }
  for (int i = 0; i < axis; ++i) {
    dims[nd++] = ps.dim(i);
    plan.pre *= ps.dim(i);
  }
  for (int i = 0; i < idx.ndim(); ++i) dims[nd++] = idx.dim(i);
  for (int i = axis + 1; i < ps.ndim(); ++i) {
    dims[nd++] = ps.dim(i);
    plan.post *= ps.dim(i);
  }
  plan.axis_size = ps.dim(axis);
  TESS_ASSIGN_OR_RETURN(const Shape out, Shape::Make(dims, static_cast<size_t>(nd)));
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, out, params.dtype));
  return RunGather(ctx, plan, [&] {
    return "axis " + std::to_string(axis) + " of \"params\" " + ps.ToString();
  });
}

Status EmbeddingKernel(const KernelContext& ctx) {
  const LocalTensor& weight = ctx.inputs[0];
  const Shape& idx = ctx.inputs[1].shape;
  if (weight.shape.ndim() != 2) {
    return KernelError(
        ctx, "input \"weight\" has shape " + weight.shape.ToString() + "; expected 2 dims [V, D]");
  }
  if (idx.ndim() + 1 > Shape::kMaxDims) {
    return KernelError(ctx, "output rank " + std::to_string(idx.ndim() + 1) + " of indices " +
                                idx.ToString() + " exceeds " + std::to_string(Shape::kMaxDims));
  }
  int64_t dims[Shape::kMaxDims];
  for (int i = 0; i < idx.ndim(); ++i) dims[i] = idx.dim(i);
  dims[idx.ndim()] = weight.shape.dim(1);
  TESS_ASSIGN_OR_RETURN(const Shape out, Shape::Make(dims, static_cast<size_t>(idx.ndim() + 1)));
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, out, weight.dtype));
  GatherPlan plan;
  plan.axis_size = weight.shape.dim(0);
  plan.post = weight.shape.dim(1);
  return RunGather(ctx, plan, [&] { return "the rows of \"weight\" " + weight.shape.ToString(); });
}

}  // namespace

Status RegisterGatherKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"gather", Checked<GatherKernel>},
      {"embedding", Checked<EmbeddingKernel>},
  };
  return RegisterAll(r, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
