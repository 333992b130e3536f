// tess_boxing_run and tess_boxing_plan_*: boxing of local buffers between any two placed
// nd-sbps, and the plan that does it.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "capi/src/capi_error.h"
#include "capi/src/comm_args.h"
#include "capi/src/handles.h"
#include "capi/src/tensor_args.h"
#include "core/boxing/boxing.h"
#include "core/boxing/boxing_layouts.h"
#include "core/boxing/boxing_plan.h"
#include "core/boxing/boxing_workspace.h"
#include "core/comm/call_check.h"
#include "core/comm/mpi_world.h"
#include "tessera/tessera.h"

using tessera::DType;
using tessera::InvalidArgument;
using tessera::Placement;
using tessera::Result;
using tessera::Shape;
using tessera::Status;
using tessera::boxing::BoxingLayouts;
using tessera::boxing::BoxingPlan;
using tessera::boxing::BoxingRequest;
using tessera::boxing::Side;
using tessera::capi::NullArgument;
using tessera::capi::ReportIn;
using tessera::capi::ShapeArg;

// The shared immutable plan plus the text the string getters lend out.
struct tess_boxing_plan {
  std::shared_ptr<const BoxingPlan> value;
  std::string text;
  std::vector<std::string> steps;
};

namespace {

// The checked (shape, dtype) of a boxing; the handles are checked non-NULL first.
struct BoxingArgs {
  Shape shape;
  DType dtype;
};

tess_status CheckArgs(const char* function, const int64_t* shape, size_t ndim, tess_dtype dtype,
                      const tess_placement* src_placement, const tess_nd_sbp* src,
                      const tess_placement* dst_placement, const tess_nd_sbp* dst,
                      BoxingArgs* args) {
  if (ndim > 0 && shape == nullptr) return NullArgument(function, "shape");
  if (src_placement == nullptr) return NullArgument(function, "src_placement");
  if (src == nullptr) return NullArgument(function, "src");
  if (dst_placement == nullptr) return NullArgument(function, "dst_placement");
  if (dst == nullptr) return NullArgument(function, "dst");
  Result<Shape> s = ShapeArg("shape", shape, ndim);
  if (!s.ok()) return ReportIn(function, s.status());
  Result<DType> t = tessera::capi::MovableDTypeArg(dtype);
  if (!t.ok()) return ReportIn(function, t.status());
  *args = BoxingArgs{*s, *t};
  return TESS_OK;
}

// The layouts of a tess_boxing_run or tess_boxing_plan_create, checked once and in the name of
// `function`: its messages read "tess_boxing_run: src nd-sbp ...", ready for Report.
Result<BoxingLayouts> LayoutsArg(const char* function, const BoxingArgs& args,
                                 const tess_placement* src_placement, const tess_nd_sbp* src,
                                 const tess_placement* dst_placement, const tess_nd_sbp* dst) {
  return BoxingLayouts::Make(function, args.shape, args.dtype, src_placement->value, src->value,
                             dst_placement->value, dst->value);
}

// INVALID_ARGUMENT unless `bytes` (argument `name`) is exactly the size of `rank`'s
// piece on `side`. Exact, not "at least": a whole logical tensor passed for a piece is
// a likely mistake that "at least" would let through silently.
Status CheckPieceBytes(const char* name, size_t bytes, const BoxingLayouts& layouts, Side side,
                       int32_t rank) {
  const int64_t elements = layouts.PieceElements(side, rank);
  const size_t need = static_cast<size_t>(elements) * tessera::DTypeSize(layouts.dtype());
  if (bytes == need) return Status::Ok();
  const char* side_name = side == Side::kSrc ? "src" : "dst";
  const Placement& placement = layouts.placement(side);
  std::string piece = placement.contains(rank)
                          ? "rank " + std::to_string(rank) + "'s " + side_name + " piece (" +
                                layouts.nd_sbp(side).ToString() + " on " + placement.ToString() +
                                ") holds " + std::to_string(elements) + " " +
                                tessera::DTypeName(layouts.dtype()) + " elements, " +
                                std::to_string(need) + " bytes"
                          : "rank " + std::to_string(rank) + " is not in the " + side_name +
                                " placement " + placement.ToString() + ", so it holds 0 bytes";
  return InvalidArgument(std::string(name) + " is " + std::to_string(bytes) + " but " + piece);
}

// Per thread, so that threads boxing between disjoint placements need no lock and a
// repeated boxing reuses its staging.
tessera::boxing::BoxingWorkspace& ThreadWorkspace() {
  thread_local tessera::boxing::BoxingWorkspace workspace;
  return workspace;
}

}  // namespace

extern "C" {

tess_status tess_boxing_run(void* out_local, size_t out_bytes, const void* in_local,
                            size_t in_bytes, const int64_t* shape, size_t ndim, tess_dtype dtype,
                            const tess_placement* src_placement, const tess_nd_sbp* src,
                            const tess_placement* dst_placement, const tess_nd_sbp* dst) {
  TESS_CAPI_BEGIN
  BoxingArgs args;
  tess_status st =
      CheckArgs(__func__, shape, ndim, dtype, src_placement, src, dst_placement, dst, &args);
  if (st != TESS_OK) return st;
  Result<int32_t> me = tessera::comm::WorldRank();
  if (!me.ok()) return ReportIn(__func__, me.status());
  Result<BoxingLayouts> layouts =
      LayoutsArg(__func__, args, src_placement, src, dst_placement, dst);
  if (!layouts.ok()) return tessera::capi::Report(layouts.status());
  if (tessera::comm::CheckModeEnabled()) {
    Status agreed = tessera::comm::AgreeBoxingCall("tess_boxing_run", layouts->shape(),
                                                   layouts->dtype(), src_placement->value,
                                                   src->value, dst_placement->value, dst->value);
    if (!agreed.ok()) return ReportIn(__func__, agreed);
  }
  Status s = CheckPieceBytes("in_bytes", in_bytes, *layouts, Side::kSrc, *me);
  if (s.ok()) s = CheckPieceBytes("out_bytes", out_bytes, *layouts, Side::kDst, *me);
  if (s.ok()) {
    s = tessera::boxing::Box(
        BoxingRequest{std::move(layouts).value(), in_local, out_local, &ThreadWorkspace()});
  }
  return ReportIn(__func__, s);
  TESS_CAPI_END
}

tess_status tess_boxing_plan_create(tess_boxing_plan** out, const int64_t* shape, size_t ndim,
                                    tess_dtype dtype, const tess_placement* src_placement,
                                    const tess_nd_sbp* src, const tess_placement* dst_placement,
                                    const tess_nd_sbp* dst) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_BEGIN
  BoxingArgs args;
  tess_status st =
      CheckArgs(__func__, shape, ndim, dtype, src_placement, src, dst_placement, dst, &args);
  if (st != TESS_OK) return st;
  // The same layout checks, in the same words, as tess_boxing_run.
  Result<BoxingLayouts> layouts =
      LayoutsArg(__func__, args, src_placement, src, dst_placement, dst);
  if (!layouts.ok()) return tessera::capi::Report(layouts.status());
  Result<std::shared_ptr<const BoxingPlan>> plan = tessera::boxing::PlanBoxing(*layouts);
  if (!plan.ok()) return ReportIn(__func__, plan.status());
  auto handle = std::make_unique<tess_boxing_plan>();
  handle->value = *plan;
  handle->text = (*plan)->ToString();
  for (size_t i = 0; i < (*plan)->steps().size(); ++i) {
    handle->steps.push_back((*plan)->StepToString(i));
  }
  *out = handle.release();
  return TESS_OK;
  TESS_CAPI_END
}

void tess_boxing_plan_destroy(tess_boxing_plan* plan) { delete plan; }

const char* tess_boxing_plan_string(const tess_boxing_plan* plan) {
  return plan ? plan->text.c_str() : "";
}

tess_status tess_boxing_plan_num_steps(size_t* out, const tess_boxing_plan* plan) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(plan);
  *out = plan->steps.size();
  return TESS_OK;
}

const char* tess_boxing_plan_step_string(const tess_boxing_plan* plan, size_t index) {
  return plan && index < plan->steps.size() ? plan->steps[index].c_str() : "";
}

tess_status tess_boxing_plan_cost(double* out, const tess_boxing_plan* plan) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(plan);
  *out = plan->value->total_seconds();
  return TESS_OK;
}

}  // extern "C"
