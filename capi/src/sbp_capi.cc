// tess_nd_sbp_*: parse, create and query nd-sbps.
#include <string>

#include "capi/src/capi_error.h"
#include "capi/src/handles.h"
#include "tessera/tessera.h"

using tessera::InvalidArgument;
using tessera::NdSbp;
using tessera::OutOfRange;
using tessera::Result;
using tessera::Sbp;
using tessera::capi::Report;

namespace {

tess_status Emit(tess_nd_sbp** out, Result<NdSbp> nd_sbp) {
  if (!nd_sbp.ok()) return Report(nd_sbp.status());
  std::string text = nd_sbp->ToString();
  *out = new tess_nd_sbp{*nd_sbp, std::move(text)};
  return TESS_OK;
}

}  // namespace

extern "C" {

tess_status tess_nd_sbp_parse(tess_nd_sbp** out, const char* text) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(text);
  TESS_CAPI_BEGIN
  return Emit(out, NdSbp::Parse(text));
  TESS_CAPI_END
}

tess_status tess_nd_sbp_create(tess_nd_sbp** out, const tess_sbp_kind* kinds,
                               const int32_t* split_axes, size_t num_axes) {
  TESS_CAPI_REQUIRE(out);
  if (num_axes > 0) {
    TESS_CAPI_REQUIRE(kinds);
    TESS_CAPI_REQUIRE(split_axes);
  }
  TESS_CAPI_BEGIN
  if (num_axes < 1 || num_axes > static_cast<size_t>(NdSbp::kMaxAxes)) {
    return Report(InvalidArgument("tess_nd_sbp_create: num_axes is " + std::to_string(num_axes) +
                                  "; expected 1 to " + std::to_string(NdSbp::kMaxAxes)));
  }
  NdSbp nd;
  for (size_t i = 0; i < num_axes; ++i) {
    int32_t axis = kinds[i] == TESS_SBP_SPLIT ? split_axes[i] : 0;
    Result<Sbp> sbp = Sbp::Make(kinds[i], axis);
    if (!sbp.ok()) {
      return Report(InvalidArgument("tess_nd_sbp_create: axis " + std::to_string(i) + ": " +
                                    sbp.status().message()));
    }
    nd.Append(*sbp);
  }
  return Emit(out, nd);
  TESS_CAPI_END
}

void tess_nd_sbp_destroy(tess_nd_sbp* nd_sbp) { delete nd_sbp; }

const char* tess_nd_sbp_string(const tess_nd_sbp* nd_sbp) {
  return nd_sbp ? nd_sbp->text.c_str() : "";
}

tess_status tess_nd_sbp_num_axes(size_t* out, const tess_nd_sbp* nd_sbp) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(nd_sbp);
  *out = static_cast<size_t>(nd_sbp->value.num_axes());
  return TESS_OK;
}

tess_status tess_nd_sbp_get(tess_sbp_kind* out_kind, int32_t* out_split_axis,
                            const tess_nd_sbp* nd_sbp, size_t axis) {
  TESS_CAPI_REQUIRE(out_kind);
  TESS_CAPI_REQUIRE(out_split_axis);
  TESS_CAPI_REQUIRE(nd_sbp);
  TESS_CAPI_BEGIN
  if (axis >= static_cast<size_t>(nd_sbp->value.num_axes())) {
    return Report(OutOfRange("tess_nd_sbp_get: axis " + std::to_string(axis) + " is outside " +
                             nd_sbp->text + ", which has " +
                             std::to_string(nd_sbp->value.num_axes()) + " axes"));
  }
  const Sbp& sbp = nd_sbp->value[static_cast<int>(axis)];
  *out_kind = static_cast<tess_sbp_kind>(sbp.kind);
  *out_split_axis = sbp.is_split() ? sbp.axis : -1;
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_nd_sbp_equal(int32_t* out, const tess_nd_sbp* a, const tess_nd_sbp* b) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(a);
  TESS_CAPI_REQUIRE(b);
  *out = a->value == b->value ? 1 : 0;
  return TESS_OK;
}

}  // extern "C"
