// The compiled-plan handle, shared by plan_capi.cc (which makes it) and serve_capi.cc
// (which serves it).
#ifndef TESSERA_CAPI_SRC_PLAN_HANDLE_H_
#define TESSERA_CAPI_SRC_PLAN_HANDLE_H_

#include <memory>
#include <string>

#include "core/plan/compile.h"

struct tess_plan {
  std::shared_ptr<const tessera::plan::CompiledPlan> value;
  std::string text;
};

#endif  // TESSERA_CAPI_SRC_PLAN_HANDLE_H_
