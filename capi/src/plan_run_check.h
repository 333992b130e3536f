// Check mode for plan runs (docs/reliability.md, "Divergence detection"): before a
// run, run_local or push, the ranks of the plan's placements agree on the plan and its
// inputs with one small collective (core/comm/call_check.h).
#ifndef TESSERA_CAPI_SRC_PLAN_RUN_CHECK_H_
#define TESSERA_CAPI_SRC_PLAN_RUN_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/common/status.h"
#include "core/tensor/global_tensor.h"

namespace tessera::capi {

// One run as the ranks agree it: `function` (the C function, for messages), the
// plan's identity (a hash of its program's text), the world ranks of its placements
// (sorted), and its inputs (`inputs` NULL for local inputs, of which only the count is
// agreed). OK when every rank issued the same; otherwise FAILED_PRECONDITION naming the
// ranks and what differed, on every rank.
struct PlanRunCall {
  const char* function;
  uint64_t plan_hash;
  const std::vector<int32_t>* ranks;
  const tensor::Tensor* inputs;
  size_t num_inputs;
};
Status AgreePlanRun(const PlanRunCall& call);

}  // namespace tessera::capi

#endif  // TESSERA_CAPI_SRC_PLAN_RUN_CHECK_H_
