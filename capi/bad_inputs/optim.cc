// Bad inputs: optimizers (tessera/optim.h, catalogue.h). Cases that need a parameter
// make a fresh leaf that requires a gradient and destroy it (and any optimizer) before
// returning the status under test.
#include <cstdint>

#include "capi/bad_inputs/catalogue.h"

namespace tessera::bad_inputs {
namespace {

// A fresh f32 [2,3] B leaf of ones that requires a gradient, and an optimizer over it.
struct Param {
  tess_tensor* w = nullptr;
  tess_optimizer* opt = nullptr;
  Param() {
    const int64_t shape[] = {2, 3};
    tess_tensor_full(&w, shape, 2, TESS_DTYPE_F32, 1.0, f.p, f.b);
    tess_tensor_set_requires_grad(w, 1);
  }
  ~Param() {
    tess_optimizer_destroy(opt);
    tess_tensor_destroy(w);
  }
  // tess_optimizer_create over {w} with `o`; destroys what it made.
  tess_status Create(const tess_optimizer_options& o) {
    tess_tensor* params[] = {w};
    return tess_optimizer_create(&opt, params, 1, &o);
  }
  tess_optimizer* Made() {
    tess_tensor* params[] = {w};
    tess_optimizer_create(&opt, params, 1, nullptr);
    return opt;
  }
};

// The options with one field changed (a lambda body: `o.field = value;`).
#define OPTIONS_CASE(input, fragment, ...)                          \
  CASE("tess_optimizer_create", input, kInvalid, fragment, Param p; \
       tess_optimizer_options o = TESS_OPTIMIZER_OPTIONS_INIT; __VA_ARGS__ return p.Create(o);)

}  // namespace

std::vector<Case> OptimCases() {
  return {
    CASE("tess_optimizer_create", "out is NULL", kInvalid, "out", Param p;
         tess_tensor * params[] = {p.w};
         return tess_optimizer_create(nullptr, params, 1, nullptr);),
        CASE("tess_optimizer_create", "params is NULL with num_params 1", kInvalid, "params",
             tess_optimizer* o = nullptr;
             return tess_optimizer_create(&o, nullptr, 1, nullptr);),
        CASE("tess_optimizer_create", "params[0] is NULL", kInvalid, "params[0] is NULL",
             tess_optimizer* o = nullptr;
             tess_tensor * params[] = {nullptr};
             return tess_optimizer_create(&o, params, 1, nullptr);),
        CASE("tess_optimizer_create", "a parameter that requires no gradient", kInvalid,
             "parameter 0", tess_optimizer* o = nullptr;
             tess_tensor * params[] = {f.x}; return tess_optimizer_create(&o, params, 1, nullptr);),
        CASE("tess_optimizer_create", "the same parameter twice", kInvalid, "parameter 1", Param p;
             tess_tensor * params[] = {p.w, p.w};
             return tess_optimizer_create(&p.opt, params, 2, nullptr);),
        CASE("tess_optimizer_create", "the output of a recorded op", kInvalid, "parameter 0",
             Param p;
             tess_tensor* y = nullptr; tess_relu(&y, p.w); tess_tensor * params[] = {y};
             const tess_status s = tess_optimizer_create(&p.opt, params, 1, nullptr);
             tess_tensor_destroy(y); return s;),
        OPTIONS_CASE("options.struct_size 3", "struct_size", o.struct_size = 3;),
        OPTIONS_CASE("options.algorithm 7", "algorithm is 7", o.algorithm = 7;),
        OPTIONS_CASE("options.lr -0.5", "lr is -0.5", o.lr = -0.5;),
        OPTIONS_CASE("options.lr NaN", "lr is nan", o.lr = kNaN;),
        OPTIONS_CASE("options.lr infinite", "lr is inf", o.lr = kInf;),
        OPTIONS_CASE("options.weight_decay -1", "weight_decay is -1", o.weight_decay = -1;),
        OPTIONS_CASE("options.momentum -0.9", "momentum is -0.9", o.momentum = -0.9;),
        OPTIONS_CASE("options.dampening -1", "dampening is -1", o.dampening = -1;),
        OPTIONS_CASE("options.nesterov without momentum", "nesterov", o.nesterov = 1;),
        OPTIONS_CASE("options.beta1 1 (Adam)", "beta1 is 1", o.algorithm = TESS_OPTIMIZER_ADAM;
                     o.beta1 = 1;),
        OPTIONS_CASE("options.beta2 -0.1 (AdamW)", "beta2 is -0.1",
                     o.algorithm = TESS_OPTIMIZER_ADAMW;
                     o.beta2 = -0.1;),
        OPTIONS_CASE("options.eps -1 (Adam)", "eps is -1", o.algorithm = TESS_OPTIMIZER_ADAM;
                     o.eps = -1;),
        OPTIONS_CASE("options.bucket_bytes 0 with fused", "bucket_bytes is 0", o.fused = 1;
                     o.bucket_bytes = 0;),
        OPTIONS_CASE("options.zero1 without fused", "zero1", o.zero1 = 1;),
        OPTIONS_CASE("options.progress_thread without fused", "progress_thread",
                     o.progress_thread = 1;),
        CASE("tess_optimizer_step", "optimizer is NULL", kInvalid, "optimizer",
             return tess_optimizer_step(nullptr);),
        CASE("tess_optimizer_zero_grad", "optimizer is NULL", kInvalid, "optimizer",
             return tess_optimizer_zero_grad(nullptr);),
        CASE("tess_optimizer_set_lr", "optimizer is NULL", kInvalid, "optimizer",
             return tess_optimizer_set_lr(nullptr, 0.1);),
        CASE("tess_optimizer_set_lr", "lr -1", kInvalid, "lr is -1", Param p;
             return tess_optimizer_set_lr(p.Made(), -1);),
        CASE("tess_optimizer_set_lr", "lr NaN", kInvalid, "lr is nan", Param p;
             return tess_optimizer_set_lr(p.Made(), kNaN);),
        CASE("tess_optimizer_get_stats", "out is NULL", kInvalid, "out", Param p;
             return tess_optimizer_get_stats(nullptr, p.Made());),
        CASE("tess_optimizer_get_stats", "optimizer is NULL", kInvalid, "optimizer",
             tess_optimizer_stats s = TESS_OPTIMIZER_STATS_INIT;
             return tess_optimizer_get_stats(&s, nullptr);),
        CASE("tess_optimizer_get_stats", "out->struct_size 0", kInvalid, "struct_size", Param p;
             tess_optimizer_stats s = TESS_OPTIMIZER_STATS_INIT; s.struct_size = 0;
             return tess_optimizer_get_stats(&s, p.Made());),
  };
}

}  // namespace tessera::bad_inputs
