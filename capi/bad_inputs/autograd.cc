// Bad inputs: autograd (catalogue.h). Cases that need a recorded graph build one on
// the fixture's placement and destroy it before returning the status under test.
#include <cstdint>

#include "capi/bad_inputs/catalogue.h"

namespace tessera::bad_inputs {
namespace {

// y = relu(w) for a fresh leaf w (f32 [2,3] ones, B); the caller destroys both.
void MakeGraph(tess_tensor** w, tess_tensor** y) {
  const int64_t shape[] = {2, 3};
  tess_tensor_full(w, shape, 2, TESS_DTYPE_F32, 1.0, f.p, f.b);
  tess_tensor_set_requires_grad(*w, 1);
  tess_relu(y, *w);
}

// sum(relu(w)) as a scalar root, plus its graph's tensors, for the backward cases.
struct Scalar {
  tess_tensor* w = nullptr;
  tess_tensor* y = nullptr;
  tess_tensor* loss = nullptr;
  Scalar() {
    MakeGraph(&w, &y);
    tess_reduce_sum(&loss, y, nullptr, 0, 0);
  }
  ~Scalar() {
    tess_tensor_destroy(loss);
    tess_tensor_destroy(y);
    tess_tensor_destroy(w);
  }
};

}  // namespace

std::vector<Case> AutogradCases() {
  return {
    CASE("tess_tensor_set_requires_grad", "tensor is NULL", kInvalid, "tensor",
         return tess_tensor_set_requires_grad(nullptr, 1);),
        CASE("tess_tensor_set_requires_grad", "an i32 tensor", kInvalid, "i32",
             return tess_tensor_set_requires_grad(f.xi, 1);),
        CASE("tess_tensor_set_requires_grad", "the output of a recorded op", kInvalid, "not a leaf",
             tess_tensor* w = nullptr;
             tess_tensor* y = nullptr; MakeGraph(&w, &y);
             const tess_status s = tess_tensor_set_requires_grad(y, 0); tess_tensor_destroy(y);
             tess_tensor_destroy(w); return s;),
        CASE("tess_tensor_requires_grad", "out is NULL", kInvalid, "out",
             return tess_tensor_requires_grad(nullptr, f.x);),
        CASE("tess_tensor_requires_grad", "tensor is NULL", kInvalid, "tensor", int32_t r;
             return tess_tensor_requires_grad(&r, nullptr);),
        CASE("tess_tensor_is_leaf", "out is NULL", kInvalid, "out",
             return tess_tensor_is_leaf(nullptr, f.x);),
        CASE("tess_tensor_is_leaf", "tensor is NULL", kInvalid, "tensor", int32_t r;
             return tess_tensor_is_leaf(&r, nullptr);),
        CASE("tess_tensor_grad", "out is NULL", kInvalid, "out",
             return tess_tensor_grad(nullptr, f.x);),
        CASE("tess_tensor_grad", "tensor is NULL", kInvalid, "tensor", tess_tensor * g;
             return tess_tensor_grad(&g, nullptr);),
        CASE("tess_tensor_zero_grad", "tensor is NULL", kInvalid, "tensor",
             return tess_tensor_zero_grad(nullptr);),
        CASE("tess_tensor_detach", "out is NULL", kInvalid, "out",
             return tess_tensor_detach(nullptr, f.x);),
        CASE("tess_tensor_detach", "tensor is NULL", kInvalid, "tensor", tess_tensor * d;
             return tess_tensor_detach(&d, nullptr);),
        CASE("tess_autograd_backward", "roots is NULL", kInvalid, "roots",
             return tess_autograd_backward(nullptr, 1, nullptr, nullptr);),
        CASE("tess_autograd_backward", "num_roots 0", kInvalid, "num_roots is 0",
             const tess_tensor* roots[] = {f.x};
             return tess_autograd_backward(roots, 0, nullptr, nullptr);),
        CASE("tess_autograd_backward", "roots[0] is NULL", kInvalid, "roots[0] is NULL",
             const tess_tensor* roots[] = {nullptr};
             return tess_autograd_backward(roots, 1, nullptr, nullptr);),
        CASE("tess_autograd_backward", "a root that requires no gradient", kInvalid,
             "does not require a gradient", const tess_tensor* roots[] = {f.x};
             return tess_autograd_backward(roots, 1, nullptr, nullptr);),
        CASE("tess_autograd_backward", "options.struct_size 3", kInvalid, "struct_size", Scalar g;
             tess_backward_options o = TESS_BACKWARD_OPTIONS_INIT; o.struct_size = 3;
             const tess_tensor* roots[] = {g.loss};
             return tess_autograd_backward(roots, 1, nullptr, &o);),
        CASE("tess_autograd_backward", "a [2,3] root without a gradient", kInvalid,
             "pass its gradient", tess_tensor* w = nullptr;
             tess_tensor* y = nullptr; MakeGraph(&w, &y); const tess_tensor* roots[] = {y};
             const tess_status s = tess_autograd_backward(roots, 1, nullptr, nullptr);
             tess_tensor_destroy(y); tess_tensor_destroy(w); return s;),
        CASE("tess_autograd_backward", "an f64 gradient for an f32 root", kInvalid, "f64",
             tess_tensor* w = nullptr;
             tess_tensor* y = nullptr; MakeGraph(&w, &y); const tess_tensor* roots[] = {y};
             const tess_tensor* grads[] = {f.xd};
             const tess_status s = tess_autograd_backward(roots, 1, grads, nullptr);
             tess_tensor_destroy(y); tess_tensor_destroy(w); return s;),
        CASE("tess_autograd_backward", "the same graph twice without retain_graph", kPrecondition,
             "retain_graph", Scalar g;
             const tess_tensor* roots[] = {g.loss};
             tess_autograd_backward(roots, 1, nullptr, nullptr);
             return tess_autograd_backward(roots, 1, nullptr, nullptr);),
        CASE("tess_autograd_is_grad_enabled", "out is NULL", kInvalid, "out",
             return tess_autograd_is_grad_enabled(nullptr);),
  };
}

}  // namespace tessera::bad_inputs
