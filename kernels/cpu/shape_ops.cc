// Kernels that move elements without changing them: transpose, reshape, concat, slice.
// Every dtype. reshape copies its input into the caller's output (whose local shape the
// caller computed: for a split tensor it is not the "shape" attribute).
// transpose and slice walk the output in memory order (StridedLoop), so writes are
// contiguous and runs of contiguous reads become plain copies.
#include <cstring>
#include <vector>

#include "kernels/cpu/dispatch.h"
#include "kernels/cpu/families.h"
#include "kernels/cpu/strided_loop.h"

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

// Copies x into `out` (shape out_shape) where out element (i_0, ..) is x element at
// x_offset + sum_a i_a * x_strides[a].
Status StridedCopy(const KernelContext& ctx, const Shape& out_shape, int64_t x_offset,
                   const int64_t* x_strides) {
  int64_t strides[2][Shape::kMaxDims];
  for (int a = 0; a < out_shape.ndim(); ++a) strides[0][a] = x_strides[a];
  ContiguousStrides(out_shape, strides[1]);
  const StridedLoop<2> loop(out_shape, strides);
  return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const T* x = In<T>(ctx, 0) + x_offset;
    T* out = Out<T>(ctx, 0);
    loop.Run([&](const int64_t* off, int64_t n, const int64_t* st) {
      CopyRun(x + off[0], out + off[1], n, st[0]);
    });
    return Status::Ok();
  });
}

// ---- transpose ----

Status TransposeKernel(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  TESS_ASSIGN_OR_RETURN(const std::vector<int64_t>* perm, IntsAttr(ctx, "perm"));
  const int nd = x.shape.ndim();
  bool ok = static_cast<int>(perm->size()) == nd;
  bool seen[Shape::kMaxDims] = {};
  for (int i = 0; ok && i < nd; ++i) {
    const int64_t p = (*perm)[i];
    ok = p >= 0 && p < nd && !seen[p];
    if (ok) seen[p] = true;
  }
  if (!ok) {
    std::string p;
    for (size_t i = 0; i < perm->size(); ++i) p += (i ? "," : "") + std::to_string((*perm)[i]);
    return KernelError(ctx, "attribute \"perm\" [" + p + "] is not a permutation of the " +
                                std::to_string(nd) + " axes of input \"x\" " + x.shape.ToString());
  }
  int64_t x_strides[Shape::kMaxDims];
  ContiguousStrides(x.shape, x_strides);
  Shape out = x.shape;
  int64_t strides[Shape::kMaxDims];
  for (int i = 0; i < nd; ++i) {
    out.set_dim(i, x.shape.dim(static_cast<int>((*perm)[i])));
    strides[i] = x_strides[(*perm)[i]];
  }
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, out, x.dtype));
  return StridedCopy(ctx, out, 0, strides);
}

// ---- reshape ----

Status ReshapeKernel(const KernelContext& ctx) {
  const LocalTensor& x = ctx.inputs[0];
  const LocalTensor& out = ctx.outputs[0];
  if (out.dtype != x.dtype || out.shape.num_elements() != x.shape.num_elements()) {
    return KernelError(
        ctx, "output \"out\" is " + out.shape.ToString() + " " + DTypeName(out.dtype) + " (" +
                 std::to_string(out.shape.num_elements()) + " elements) but input \"x\" is " +
                 x.shape.ToString() + " " + DTypeName(x.dtype) + " (" +
                 std::to_string(x.shape.num_elements()) + " elements)");
  }
  const size_t bytes = static_cast<size_t>(x.shape.num_elements()) * DTypeSize(x.dtype);
  if (bytes > 0) std::memcpy(out.data, x.data, bytes);
  return Status::Ok();
}

// ---- concat ----

Status ConcatKernel(const KernelContext& ctx) {
  const LocalTensor& first = ctx.inputs[0];
  TESS_ASSIGN_OR_RETURN(const int64_t axis_attr, IntAttr(ctx, "axis"));
  TESS_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, "axis", axis_attr, 0));
  Shape out = first.shape;
  int64_t total = 0;
  for (int k = 0; k < ctx.num_inputs; ++k) {
    const LocalTensor& in = ctx.inputs[k];
    TESS_RETURN_IF_ERROR(ExpectDType(ctx, k, first.dtype, "in[0]"));
    bool ok = in.shape.ndim() == first.shape.ndim();
    for (int i = 0; ok && i < first.shape.ndim(); ++i) {
      ok = i == axis || in.shape.dim(i) == first.shape.dim(i);
    }
    if (!ok) {
      return KernelError(ctx, "input \"" + InputName(ctx, k) + "\" has shape " +
                                  in.shape.ToString() + " but \"in[0]\" has " +
                                  first.shape.ToString() + "; shapes must match except on axis " +
                                  std::to_string(axis));
    }
    total += in.shape.dim(axis);
  }
  out.set_dim(axis, total);
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, out, first.dtype));
  if (out.num_elements() == 0) return Status::Ok();
  // Each outer index takes one contiguous chunk of every input, in order.
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= out.dim(i);
  for (int i = axis + 1; i < out.ndim(); ++i) inner *= out.dim(i);
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
  const LocalTensor& x = ctx.inputs[0];
  const int nd = x.shape.ndim();
  const std::vector<int64_t>* attrs[3];
  const char* names[3] = {"start", "stop", "step"};
  for (int i = 0; i < 3; ++i) {
    TESS_ASSIGN_OR_RETURN(attrs[i], IntsAttr(ctx, names[i]));
    if (static_cast<int>(attrs[i]->size()) != nd) {
      return KernelError(ctx, "attribute \"" + std::string(names[i]) + "\" has " +
                                  std::to_string(attrs[i]->size()) +
                                  " entries but input \"x\" has shape " + x.shape.ToString() +
                                  " (" + std::to_string(nd) + " axes)");
    }
  }
  int64_t x_strides[Shape::kMaxDims];
  ContiguousStrides(x.shape, x_strides);
  Shape out = x.shape;
  int64_t strides[Shape::kMaxDims];
  int64_t offset = 0;
  for (int i = 0; i < nd; ++i) {
    const int64_t d = x.shape.dim(i);
    const int64_t step = (*attrs[2])[i];
    if (step < 1) {
      return KernelError(ctx, "attribute \"step\" has " + std::to_string(step) + " at axis " +
                                  std::to_string(i) + "; steps must be >= 1");
    }
    // The shape function's Python semantics: negative positions count from the end,
    // then clamp into [0, d].
    auto clamp = [d](int64_t v) {
      if (v < 0) v += d;
      return v < 0 ? 0 : (v > d ? d : v);
    };
    const int64_t start = clamp((*attrs[0])[i]);
    const int64_t stop = clamp((*attrs[1])[i]);
    out.set_dim(i, stop > start ? (stop - start + step - 1) / step : 0);
    strides[i] = x_strides[i] * step;
    offset += start * x_strides[i];
  }
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, out, x.dtype));
  if (out.num_elements() == 0) return Status::Ok();
  return StridedCopy(ctx, out, offset, strides);
}

}  // namespace

Status RegisterShapeKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"transpose", Checked<TransposeKernel>},
      {"reshape", Checked<ReshapeKernel>},
      {"concat", Checked<ConcatKernel>},
      {"slice", Checked<SliceKernel>},
  };
  return RegisterAll(r, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
