#include "capi/src/plan_run_check.h"

#include <cstdio>
#include <string>

#include "core/comm/call_check.h"

namespace tessera::capi {
namespace {

std::string DescribePlanRun(const void* context) {
  const PlanRunCall& c = *static_cast<const PlanRunCall*>(context);
  char hash[20];
  std::snprintf(hash, sizeof(hash), "%016llx", static_cast<unsigned long long>(c.plan_hash));
  std::string text = std::string(c.function) + " of plan " + hash + " with " +
                     std::to_string(c.num_inputs) + " inputs";
  for (size_t i = 0; c.inputs != nullptr && i < c.num_inputs; ++i) {
    text += (i ? ", " : ": ") + (c.inputs[i] ? c.inputs[i]->meta().ToString() : "NULL");
  }
  return text;
}

}  // namespace

Status AgreePlanRun(const PlanRunCall& call) {
  comm::CallFingerprint fp("plan run", call.function);
  fp.Add(comm::CallField::kOp, call.plan_hash);
  fp.Add(comm::CallField::kShapes, call.num_inputs);
  for (size_t i = 0; call.inputs != nullptr && i < call.num_inputs; ++i) {
    if (call.inputs[i] == nullptr) {  // refused by the run itself, on every rank alike
      fp.Add(comm::CallField::kShapes, 0x6e756c6cULL);
      continue;
    }
    const infer::TensorMeta& m = call.inputs[i]->meta();
    fp.AddLayout(m.shape, m.dtype, m.placement, m.nd_sbp);
  }
  fp.SetDescribe(&DescribePlanRun, &call);
  return comm::AgreeCallOnRanks(*call.ranks, fp);
}

}  // namespace tessera::capi
