// Kernels of the backward-only ops (core/op/ops/grad_ops.cc): relu_grad and
// sparse_softmax_cross_entropy_grad.
#include <string>

#include "kernels/common/kernel_plans.h"
#include "kernels/cpu/families.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// dx = dy where y > 0, else 0. A NaN y passes no gradient (NaN > 0 is false).
Status ReluGradKernel(const KernelContext& ctx) {
  const LocalTensor& y = ctx.inputs[0];
  if (ctx.inputs[1].shape != y.shape || ctx.inputs[1].dtype != y.dtype) {
    return KernelError(ctx, "input \"dy\" is " + ctx.inputs[1].shape.ToString() + " " +
                                DTypeName(ctx.inputs[1].dtype) + " but \"y\" is " +
                                y.shape.ToString() + " " + DTypeName(y.dtype));
  }
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, y.shape, y.dtype));
  return Dispatch<DTypeSet::kNumeric>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    const T* yp = In<T>(ctx, 0);
    const T* dy = In<T>(ctx, 1);
    T* dx = Out<T>(ctx, 0);
    const int64_t n = y.shape.num_elements();
    for (int64_t i = 0; i < n; ++i) dx[i] = yp[i] > T(0) ? dy[i] : T(0);
    return Status::Ok();
  });
}

// dx[r, c] = (prob[r, c] - (c == label[r])) * dout[r].
Status SoftmaxXentGradKernel(const KernelContext& ctx) {
  const LocalTensor& prob = ctx.inputs[0];
  const int nd = prob.shape.ndim();
  if (nd < 1) {
    return KernelError(ctx, "input \"prob\" has shape " + prob.shape.ToString() +
                                "; expected at least 1 dim (the class axis)");
  }
  TESS_ASSIGN_OR_RETURN(const Shape batch,
                        Shape::Make(prob.shape.data(), static_cast<size_t>(nd - 1)));
  for (int i : {1, 2}) {
    if (ctx.inputs[i].shape != batch) {
      return KernelError(ctx, std::string("input \"") + (i == 1 ? "label" : "dout") +
                                  "\" has shape " + ctx.inputs[i].shape.ToString() +
                                  " but \"prob\" " + prob.shape.ToString() + " needs " +
                                  batch.ToString());
    }
  }
  TESS_RETURN_IF_ERROR(ExpectOutput(ctx, 0, prob.shape, prob.dtype));
  const int64_t rows = batch.num_elements();
  const int64_t classes = prob.shape.dim(nd - 1);
  return Dispatch<DTypeSet::kFloating>(ctx, 0, [&](auto t) {
    using T = typename decltype(t)::type;
    return Dispatch<DTypeSet::kIndex>(ctx, 1, [&](auto it) {
      using I = typename decltype(it)::type;
      const I* labels = In<I>(ctx, 1);
      for (int64_t r = 0; r < rows; ++r) {
        if (labels[r] < 0 || labels[r] >= classes) {
          return KernelError(ctx, LabelError(prob.shape, batch, r, labels[r]));
        }
      }
      const T* p = In<T>(ctx, 0);
      const T* dout = static_cast<const T*>(ctx.inputs[2].data);
      T* dx = Out<T>(ctx, 0);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < classes; ++c) {
          const T onehot = c == static_cast<int64_t>(labels[r]) ? T(1) : T(0);
          dx[r * classes + c] = (p[r * classes + c] - onehot) * dout[r];
        }
      }
      return Status::Ok();
    });
  });
}

}  // namespace

Status RegisterGradKernels(KernelRegistry* r) {
  const KernelEntry kernels[] = {
      {"relu_grad", Checked<ReluGradKernel>},
      {"sparse_softmax_cross_entropy_grad", Checked<SoftmaxXentGradKernel>},
  };
  return RegisterAll(r, Device::kCpu, kernels);
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
