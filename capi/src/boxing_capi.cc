// tess_box and tess_boxing_plan_*: boxing of local buffers between any two placed
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
#include "core/boxing/boxing_plan.h"
#include "core/boxing/boxing_workspace.h"
#include "core/comm/mpi_world.h"
#include "core/sbp/physical_layout.h"
#include "tessera/tessera.h"

using tessera::DType;
using tessera::InvalidArgument;
using tessera::NdSbp;
using tessera::Placement;
using tessera::Result;
using tessera::Shape;
using tessera::Status;
using tessera::boxing::BoxingPlan;
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

// The elements of `rank`'s piece of `shape` held as `nd_sbp` on `placement`; 0 when
// the placement lacks the rank. Such a rank validates the nd-sbp too (through
// parallel index 0), so every rank rejects a bad one alike. `side` ("src" or "dst")
// starts the message.
Result<int64_t> PieceElements(const char* side, const Shape& shape, const Placement& placement,
                              const NdSbp& nd_sbp, int32_t rank) {
  const int64_t index = placement.index_of(rank);
  Result<tessera::PhysicalLayout> layout =
      tessera::PhysicalLayoutAt(shape, placement, nd_sbp, index >= 0 ? index : 0);
  if (!layout.ok()) {
    return Status(layout.status().code(), std::string(side) + " " + layout.status().message());
  }
  return index >= 0 ? layout->local_shape.num_elements() : 0;
}

// INVALID_ARGUMENT unless `bytes` (argument `name`) is exactly the piece's size.
// Exact, not "at least": a whole logical tensor passed for a piece is a likely
// mistake that "at least" would let through silently.
Status CheckPieceBytes(const char* name, size_t bytes, int64_t elements, DType dtype,
                       const char* side, const Placement& placement, const NdSbp& nd_sbp,
                       int32_t rank) {
  const size_t need = static_cast<size_t>(elements) * tessera::DTypeSize(dtype);
  if (bytes == need) return Status::Ok();
  std::string piece = placement.contains(rank)
                          ? "rank " + std::to_string(rank) + "'s " + side + " piece (" +
                                nd_sbp.ToString() + " on " + placement.ToString() + ") holds " +
                                std::to_string(elements) + " " + tessera::DTypeName(dtype) +
                                " elements, " + std::to_string(need) + " bytes"
                          : "rank " + std::to_string(rank) + " is not in the " + side +
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

tess_status tess_box(void* out_local, size_t out_bytes, const void* in_local, size_t in_bytes,
                     const int64_t* shape, size_t ndim, tess_dtype dtype,
                     const tess_placement* src_placement, const tess_nd_sbp* src,
                     const tess_placement* dst_placement, const tess_nd_sbp* dst) {
  TESS_CAPI_BEGIN
  BoxingArgs args;
  tess_status st =
      CheckArgs(__func__, shape, ndim, dtype, src_placement, src, dst_placement, dst, &args);
  if (st != TESS_OK) return st;
  Result<int32_t> me = tessera::comm::WorldRank();
  if (!me.ok()) return ReportIn(__func__, me.status());
  const Placement& from = src_placement->value;
  const Placement& to = dst_placement->value;
  Result<int64_t> in_elements = PieceElements("src", args.shape, from, src->value, *me);
  if (!in_elements.ok()) return ReportIn(__func__, in_elements.status());
  Result<int64_t> out_elements = PieceElements("dst", args.shape, to, dst->value, *me);
  if (!out_elements.ok()) return ReportIn(__func__, out_elements.status());
  Status s =
      CheckPieceBytes("in_bytes", in_bytes, *in_elements, args.dtype, "src", from, src->value, *me);
  if (s.ok()) {
    s = CheckPieceBytes("out_bytes", out_bytes, *out_elements, args.dtype, "dst", to, dst->value,
                        *me);
  }
  if (s.ok()) {
    s = tessera::boxing::Box(in_local, out_local, args.shape, args.dtype, from, src->value, to,
                             dst->value, &ThreadWorkspace());
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
  // The same layout checks, in the same words, as tess_box; rank -1 is in neither.
  Result<int64_t> checked =
      PieceElements("src", args.shape, src_placement->value, src->value, /*rank=*/-1);
  if (checked.ok()) {
    checked = PieceElements("dst", args.shape, dst_placement->value, dst->value, /*rank=*/-1);
  }
  if (!checked.ok()) return ReportIn(__func__, checked.status());
  Result<std::shared_ptr<const BoxingPlan>> plan = tessera::boxing::PlanBoxing(
      args.shape, args.dtype, src_placement->value, src->value, dst_placement->value, dst->value);
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
