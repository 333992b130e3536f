// tessera/optim.h over core/optim's Optimizer. The handle owns the parameters'
// Variables (the optimizer keeps pointers to them, and fused mode rebinds them to
// views of its buckets); after Create every caller handle is pointed at its rebound
// tensor, so handles and optimizer share one tensor and one autograd record.
#include <memory>
#include <string>
#include <vector>

#include "capi/src/capi_error.h"
#include "capi/src/handles.h"
#include "capi/src/struct_args.h"
#include "capi/src/tensor_args.h"
#include "core/optim/optimizer.h"
#include "tessera/tessera.h"

using tessera::InvalidArgument;
using tessera::Result;
using tessera::Status;
using tessera::autograd::Variable;
using tessera::capi::ReadOptions;
using tessera::capi::ReportIn;
using tessera::capi::WriteStats;
using tessera::optim::Optimizer;
using tessera::optim::OptimizerOptions;

struct tess_optimizer {
  std::vector<Variable> params;  // never resized after Create: the optimizer points in
  std::vector<tess_tensor*> handles;
  std::unique_ptr<Optimizer> optimizer;
  int64_t steps = 0;
};

namespace {

OptimizerOptions CoreOptions(const tess_optimizer_options& o) {
  OptimizerOptions c;
  c.algorithm = static_cast<tessera::optim::Algorithm>(o.algorithm);
  c.lr = o.lr;
  c.weight_decay = o.weight_decay;
  c.momentum = o.momentum;
  c.dampening = o.dampening;
  c.nesterov = o.nesterov != 0;
  c.beta1 = o.beta1;
  c.beta2 = o.beta2;
  c.eps = o.eps;
  c.fused = o.fused != 0;
  c.bucket_bytes = o.bucket_bytes;
  c.zero1 = o.zero1 != 0;
  c.progress_thread = o.progress_thread != 0;
  return c;
}

Status CheckAlgorithm(int32_t algorithm) {
  if (algorithm >= TESS_OPTIMIZER_SGD && algorithm <= TESS_OPTIMIZER_ADAMW) return Status::Ok();
  return InvalidArgument("options.algorithm is " + std::to_string(algorithm) +
                         "; expected TESS_OPTIMIZER_SGD (0), _ADAM (1) or _ADAMW (2)");
}

}  // namespace

extern "C" {

tess_status tess_optimizer_create(tess_optimizer** out, tess_tensor* const* params,
                                  size_t num_params, const tess_optimizer_options* options) {
  TESS_CAPI_REQUIRE(out);
  if (num_params > 0) TESS_CAPI_REQUIRE(params);
  TESS_CAPI_BEGIN
  tess_optimizer_options o = TESS_OPTIMIZER_OPTIONS_INIT;
  Status s = ReadOptions(__func__, "options", "tess_optimizer_options", options,
                         TESS_STRUCT_SIZE_UP_TO(tess_optimizer_options, progress_thread), &o);
  if (s.ok()) s = CheckAlgorithm(o.algorithm);
  if (!s.ok()) return ReportIn(__func__, s);
  auto made = std::make_unique<tess_optimizer>();
  made->params.reserve(num_params);
  std::vector<Variable*> pointers;
  for (size_t i = 0; i < num_params; ++i) {
    if (params[i] == nullptr) {
      return ReportIn(__func__, InvalidArgument("params[" + std::to_string(i) + "] is NULL"));
    }
    made->params.push_back(Variable{params[i]->value, params[i]->autograd});
    made->handles.push_back(params[i]);
  }
  for (Variable& v : made->params) pointers.push_back(&v);
  Result<std::unique_ptr<Optimizer>> optimizer = Optimizer::Create(pointers, CoreOptions(o));
  if (!optimizer.ok()) return ReportIn(__func__, optimizer.status());
  made->optimizer = std::move(*optimizer);
  // Fused mode rebound the Variables to views of the buckets: the handles follow.
  for (size_t i = 0; i < num_params; ++i) params[i]->value = made->params[i].value;
  *out = made.release();
  return TESS_OK;
  TESS_CAPI_END
}

void tess_optimizer_destroy(tess_optimizer* optimizer) { delete optimizer; }

tess_status tess_optimizer_step(tess_optimizer* optimizer) {
  TESS_CAPI_REQUIRE(optimizer);
  TESS_CAPI_BEGIN
  Status s = optimizer->optimizer->Step();
  if (s.ok()) ++optimizer->steps;
  return ReportIn(__func__, s);
  TESS_CAPI_END
}

tess_status tess_optimizer_capture_step(tess_optimizer* optimizer) {
  TESS_CAPI_REQUIRE(optimizer);
  TESS_CAPI_BEGIN
  return ReportIn(__func__, optimizer->optimizer->CaptureStep());
  TESS_CAPI_END
}

tess_status tess_optimizer_zero_grad(tess_optimizer* optimizer) {
  TESS_CAPI_REQUIRE(optimizer);
  TESS_CAPI_BEGIN
  return ReportIn(__func__, optimizer->optimizer->ZeroGrad());
  TESS_CAPI_END
}

tess_status tess_optimizer_set_lr(tess_optimizer* optimizer, double lr) {
  TESS_CAPI_REQUIRE(optimizer);
  TESS_CAPI_BEGIN
  return ReportIn(__func__, optimizer->optimizer->SetLr(lr));
  TESS_CAPI_END
}

tess_status tess_optimizer_get_stats(tess_optimizer_stats* out, const tess_optimizer* optimizer) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(optimizer);
  TESS_CAPI_BEGIN
  const tessera::optim::OverlapStats o = optimizer->optimizer->overlap_stats();
  tess_optimizer_stats full = TESS_OPTIMIZER_STATS_INIT;
  full.steps = optimizer->steps;
  full.num_params = static_cast<int64_t>(optimizer->params.size());
  full.num_buckets = o.buckets;
  full.allreduces_in_backward = o.started_in_backward;
  full.allreduce_seconds = o.in_flight_seconds;
  full.allreduce_wait_seconds = o.step_wait_seconds;
  full.state_bytes = o.state_bytes;
  return ReportIn(__func__,
                  WriteStats(__func__, "out", "tess_optimizer_stats", full,
                             TESS_STRUCT_SIZE_UP_TO(tess_optimizer_stats, state_bytes), out));
  TESS_CAPI_END
}

}  // extern "C"
