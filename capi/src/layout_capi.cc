// tess_layout_*: the part of a logical tensor that one rank holds.
#include <string>

#include "capi/src/capi_error.h"
#include "capi/src/handles.h"
#include "capi/src/tensor_args.h"
#include "core/common/shape.h"
#include "tessera/tessera.h"

using tessera::OutOfRange;
using tessera::PhysicalLayout;
using tessera::Result;
using tessera::Shape;
using tessera::capi::Report;

namespace {

tess_status CheckDim(const tess_layout* layout, size_t dim, const char* function) {
  size_t ndim = static_cast<size_t>(layout->value.local_shape.ndim());
  if (dim < ndim) return TESS_OK;
  return Report(OutOfRange(std::string(function) + ": dim " + std::to_string(dim) +
                           " is outside a layout of " + std::to_string(ndim) + " dims"));
}

}  // namespace

extern "C" {

tess_status tess_layout_create(tess_layout** out, const tess_placement* placement,
                               const tess_nd_sbp* nd_sbp, const int64_t* shape, size_t ndim,
                               int32_t rank) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(placement);
  TESS_CAPI_REQUIRE(nd_sbp);
  if (ndim > 0) TESS_CAPI_REQUIRE(shape);
  TESS_CAPI_BEGIN
  Result<Shape> logical = Shape::Make(shape, ndim);
  if (!logical.ok()) return Report(logical.status());
  Result<PhysicalLayout> layout =
      tessera::PhysicalLayoutOfRank(*logical, placement->value, nd_sbp->value, rank);
  if (!layout.ok()) return Report(layout.status());
  std::string text = layout->RangesToString();
  *out = new tess_layout{*layout, std::move(text)};
  return TESS_OK;
  TESS_CAPI_END
}

void tess_layout_destroy(tess_layout* layout) { delete layout; }

tess_status tess_layout_local_shape(const int64_t** out_dims, size_t* out_ndim,
                                    const tess_layout* layout) {
  TESS_CAPI_REQUIRE(out_dims);
  TESS_CAPI_REQUIRE(out_ndim);
  TESS_CAPI_REQUIRE(layout);
  return tessera::capi::LendShape(layout->value.local_shape, out_dims, out_ndim);
}

tess_status tess_layout_range(int64_t* out_begin, int64_t* out_end, const tess_layout* layout,
                              size_t dim) {
  TESS_CAPI_REQUIRE(out_begin);
  TESS_CAPI_REQUIRE(out_end);
  TESS_CAPI_REQUIRE(layout);
  tess_status st = CheckDim(layout, dim, __func__);
  if (st != TESS_OK) return st;
  *out_begin = layout->value.ranges[dim].begin;
  *out_end = layout->value.ranges[dim].end;
  return TESS_OK;
}

tess_status tess_layout_num_elements(int64_t* out, const tess_layout* layout) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(layout);
  *out = layout->value.local_shape.num_elements();
  return TESS_OK;
}

const char* tess_layout_string(const tess_layout* layout) {
  return layout ? layout->text.c_str() : "";
}

}  // extern "C"
