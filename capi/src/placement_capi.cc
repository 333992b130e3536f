// tess_placement_*: parse, create and query placements.
#include <string>
#include <vector>

#include "capi/src/capi_error.h"
#include "capi/src/handles.h"
#include "tessera/tessera.h"

using tessera::OutOfRange;
using tessera::Placement;
using tessera::Result;
using tessera::capi::Report;

namespace {

tess_status Emit(tess_placement** out, Result<Placement> placement) {
  if (!placement.ok()) return Report(placement.status());
  *out = new tess_placement{std::move(placement).value()};
  return TESS_OK;
}

}  // namespace

extern "C" {

tess_status tess_placement_parse(tess_placement** out, const char* text) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(text);
  TESS_CAPI_BEGIN
  return Emit(out, Placement::Parse(text));
  TESS_CAPI_END
}

tess_status tess_placement_create(tess_placement** out, tess_device_type device_type,
                                  const int32_t* ranks, size_t num_ranks, const int64_t* hierarchy,
                                  size_t num_axes) {
  TESS_CAPI_REQUIRE(out);
  if (num_ranks > 0) TESS_CAPI_REQUIRE(ranks);
  if (num_axes > 0) TESS_CAPI_REQUIRE(hierarchy);
  TESS_CAPI_BEGIN
  return Emit(out, Placement::Make(static_cast<tessera::DeviceType>(device_type),
                                   std::vector<int32_t>(ranks, ranks + num_ranks),
                                   std::vector<int64_t>(hierarchy, hierarchy + num_axes)));
  TESS_CAPI_END
}

void tess_placement_destroy(tess_placement* placement) { delete placement; }

const char* tess_placement_string(const tess_placement* placement) {
  return placement ? placement->value.ToString().c_str() : "";
}

tess_status tess_placement_device_type(tess_device_type* out, const tess_placement* placement) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(placement);
  *out = static_cast<tess_device_type>(placement->value.device_type());
  return TESS_OK;
}

tess_status tess_placement_num_axes(size_t* out, const tess_placement* placement) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(placement);
  *out = static_cast<size_t>(placement->value.num_axes());
  return TESS_OK;
}

tess_status tess_placement_hierarchy_dim(int64_t* out, const tess_placement* placement,
                                         size_t axis) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(placement);
  TESS_CAPI_BEGIN
  const Placement& p = placement->value;
  if (axis >= static_cast<size_t>(p.num_axes())) {
    return Report(OutOfRange("tess_placement_hierarchy_dim: axis " + std::to_string(axis) +
                             " is outside " + p.ToString() + ", which has " +
                             std::to_string(p.num_axes()) + " axes"));
  }
  *out = p.hierarchy()[axis];
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_placement_parallel_num(int64_t* out, const tess_placement* placement) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(placement);
  *out = placement->value.parallel_num();
  return TESS_OK;
}

tess_status tess_placement_rank_at(int32_t* out, const tess_placement* placement, int64_t index) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(placement);
  TESS_CAPI_BEGIN
  Result<int32_t> rank = placement->value.RankAt(index);
  if (!rank.ok()) return Report(rank.status());
  *out = *rank;
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_placement_index_of(int64_t* out, const tess_placement* placement, int32_t rank) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(placement);
  TESS_CAPI_BEGIN
  Result<int64_t> index = placement->value.IndexOf(rank);
  if (!index.ok()) return Report(index.status());
  *out = *index;
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_placement_contains(int32_t* out, const tess_placement* placement, int32_t rank) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(placement);
  *out = placement->value.contains(rank) ? 1 : 0;
  return TESS_OK;
}

tess_status tess_placement_axis_group(tess_placement** out, const tess_placement* placement,
                                      size_t axis, int32_t rank) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(placement);
  TESS_CAPI_BEGIN
  if (axis >= static_cast<size_t>(Placement::kMaxAxes)) {
    return Report(OutOfRange("tess_placement_axis_group: axis " + std::to_string(axis) +
                             " is outside " + placement->value.ToString()));
  }
  return Emit(out, placement->value.AxisGroup(static_cast<int>(axis), rank));
  TESS_CAPI_END
}

tess_status tess_placement_equal(int32_t* out, const tess_placement* a, const tess_placement* b) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(a);
  TESS_CAPI_REQUIRE(b);
  *out = a->value == b->value ? 1 : 0;
  return TESS_OK;
}

tess_status tess_placement_hash(uint64_t* out, const tess_placement* placement) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(placement);
  *out = static_cast<uint64_t>(placement->value.Hash());
  return TESS_OK;
}

}  // extern "C"
