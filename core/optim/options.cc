#include "core/optim/options.h"

#include <cmath>
#include <string>

#include "core/common/double_text.h"

namespace tessera {
namespace optim {
namespace {

Status NonNegative(const char* name, double value) {
  if (std::isfinite(value) && value >= 0) return Status::Ok();
  return InvalidArgument(std::string("OptimizerOptions: ") + name + " is " + DoubleText(value) +
                         "; expected a finite value >= 0");
}

Status Beta(const char* name, double value) {
  if (value >= 0 && value < 1) return Status::Ok();
  return InvalidArgument(std::string("OptimizerOptions: ") + name + " is " + DoubleText(value) +
                         "; expected a value in [0, 1)");
}

}  // namespace

const char* AlgorithmName(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kSgd: return "sgd";
    case Algorithm::kAdam: return "adam";
    case Algorithm::kAdamW: return "adamw";
  }
  return "unknown";
}

Status ValidateOptions(const OptimizerOptions& o) {
  if (std::string(AlgorithmName(o.algorithm)) == "unknown") {
    return InvalidArgument("OptimizerOptions: algorithm is " +
                           std::to_string(static_cast<int>(o.algorithm)) +
                           "; expected 0 (sgd), 1 (adam) or 2 (adamw)");
  }
  TESS_RETURN_IF_ERROR(NonNegative("lr", o.lr));
  TESS_RETURN_IF_ERROR(NonNegative("weight_decay", o.weight_decay));
  if (o.algorithm == Algorithm::kSgd) {
    TESS_RETURN_IF_ERROR(NonNegative("momentum", o.momentum));
    TESS_RETURN_IF_ERROR(NonNegative("dampening", o.dampening));
    if (o.nesterov && (o.momentum <= 0 || o.dampening != 0)) {
      return InvalidArgument("OptimizerOptions: nesterov is true with momentum " +
                             DoubleText(o.momentum) + " and dampening " + DoubleText(o.dampening) +
                             "; Nesterov momentum needs momentum > 0 and dampening 0");
    }
  } else {
    TESS_RETURN_IF_ERROR(Beta("beta1", o.beta1));
    TESS_RETURN_IF_ERROR(Beta("beta2", o.beta2));
    TESS_RETURN_IF_ERROR(NonNegative("eps", o.eps));
  }
  if (o.bucket_bytes < 1) {
    return InvalidArgument("OptimizerOptions: bucket_bytes is " + std::to_string(o.bucket_bytes) +
                           "; expected >= 1");
  }
  if (o.zero1 && !o.fused) {
    return InvalidArgument(
        "OptimizerOptions: zero1 is true with fused false; ZeRO-1 shards the fused buckets' "
        "state, so it needs fused = true");
  }
  if (o.progress_thread && !o.fused) {
    return InvalidArgument(
        "OptimizerOptions: progress_thread is true with fused false; only fused mode starts "
        "all-reduces during backward");
  }
  return Status::Ok();
}

const char* UpdateOpName(Algorithm algorithm) {
  return algorithm == Algorithm::kSgd ? "sgd_update" : "adam_update";
}

int NumStates(Algorithm algorithm) { return algorithm == Algorithm::kSgd ? 1 : 2; }

op::AttrMap UpdateAttrs(const OptimizerOptions& o, int64_t step) {
  using op::AttrValue;
  if (o.algorithm == Algorithm::kSgd) {
    return {{"lr", AttrValue::Float(o.lr)},
            {"momentum", AttrValue::Float(o.momentum)},
            {"dampening", AttrValue::Float(o.dampening)},
            {"nesterov", AttrValue::Bool(o.nesterov)},
            {"weight_decay", AttrValue::Float(o.weight_decay)},
            {"first_step", AttrValue::Bool(step == 1)}};
  }
  op::AttrMap attrs = AdamAttrsWithoutStep(o);
  attrs.Set("step", AttrValue::Int(step));
  return attrs;
}

op::AttrMap AdamAttrsWithoutStep(const OptimizerOptions& o) {
  using op::AttrValue;
  return {{"lr", AttrValue::Float(o.lr)},
          {"beta1", AttrValue::Float(o.beta1)},
          {"beta2", AttrValue::Float(o.beta2)},
          {"eps", AttrValue::Float(o.eps)},
          {"weight_decay", AttrValue::Float(o.weight_decay)},
          {"decoupled", AttrValue::Bool(o.algorithm == Algorithm::kAdamW)}};
}

}  // namespace optim
}  // namespace tessera
