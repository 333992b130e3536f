// Sbp::Parse and NdSbp::Parse over arbitrary text, and the checked constructors
// (Sbp::Make, NdSbp::Make) over arbitrary kind and axis values. Each answers
// INVALID_ARGUMENT with a message, or a value whose text parses back to it.
#include <cstdint>
#include <string>

#include "core/common/status.h"
#include "core/sbp/sbp.h"
#include "fuzz/core_values.h"
#include "fuzz/fuzz_input.h"

namespace tessera::fuzz {
namespace {

// Parsed text may count split axes from the end (S(-1) .. S(-kMaxDims), resolved
// against a rank later); the checked constructors take axes >= 0 only.
void CheckSbp(const Sbp& sbp) {
  FUZZ_CHECK(static_cast<int>(sbp.kind) >= 0 && static_cast<int>(sbp.kind) <= 4,
             "an Sbp of kind " + std::to_string(static_cast<int>(sbp.kind)));
  FUZZ_CHECK(
      sbp.is_split() ? sbp.axis >= -Shape::kMaxDims && sbp.axis <= kMaxSplitAxis : sbp.axis == 0,
      sbp.ToString() + " carries axis " + std::to_string(sbp.axis));
  Result<Sbp> again = Sbp::Parse(sbp.ToString());
  FUZZ_CHECK(again.ok() && *again == sbp, sbp.ToString() + " does not parse back to itself");
}

void CheckNdSbp(const NdSbp& nd) {
  FUZZ_CHECK(nd.num_axes() >= 1 && nd.num_axes() <= NdSbp::kMaxAxes,
             nd.ToString() + " has " + std::to_string(nd.num_axes()) + " axes");
  for (int i = 0; i < nd.num_axes(); ++i) CheckSbp(nd[i]);
  Result<NdSbp> again = NdSbp::Parse(nd.ToString());
  FUZZ_CHECK(again.ok(), nd.ToString() + " does not parse back: " + again.status().message());
  FUZZ_CHECK(*again == nd && again->Hash() == nd.Hash(),
             nd.ToString() + " parses back as " + again->ToString());
  bool counts_from_end = false;
  for (int i = 0; i < nd.num_axes(); ++i) counts_from_end |= nd[i].is_split() && nd[i].axis < 0;
  Result<NdSbp> made = NdSbp::Make(&nd[0], nd.num_axes());
  if (counts_from_end) {
    FUZZ_CHECK(!made.ok(), nd.ToString() + " is remade by NdSbp::Make, which takes axes >= 0");
  } else {
    FUZZ_CHECK(made.ok() && *made == nd, nd.ToString() + " is not remade by NdSbp::Make");
  }
}

}  // namespace
}  // namespace tessera::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  fuzz::FuzzInput in(data, size);
  switch (in.Byte() % 3) {
    case 0: {
      Result<NdSbp> nd = NdSbp::Parse(in.Rest());
      if (nd.ok()) {
        fuzz::CheckNdSbp(*nd);
      } else {
        fuzz::CheckInvalidArgument(nd.status(), "NdSbp::Parse");
      }
      break;
    }
    case 1: {
      Result<Sbp> sbp = Sbp::Parse(in.Rest());
      if (sbp.ok()) {
        fuzz::CheckSbp(*sbp);
      } else {
        fuzz::CheckInvalidArgument(sbp.status(), "Sbp::Parse");
      }
      break;
    }
    default: {
      // Raw kind/axis pairs, as tess_nd_sbp_create passes them.
      const int num_axes = static_cast<int>(in.InRange(-1, NdSbp::kMaxAxes + 1));
      Sbp sbps[NdSbp::kMaxAxes + 1];
      for (Sbp& s : sbps) {
        s.kind = static_cast<SbpKind>(in.Bool() ? in.InRange(-1, 5) : in.Raw<int32_t>());
        s.axis = in.Bool() ? static_cast<int32_t>(in.InRange(-1, 9)) : in.Raw<int32_t>();
        Result<Sbp> one = Sbp::Make(static_cast<int>(s.kind), s.axis);
        if (one.ok()) {
          fuzz::CheckSbp(*one);
        } else {
          fuzz::CheckInvalidArgument(one.status(), "Sbp::Make");
        }
      }
      Result<NdSbp> nd = NdSbp::Make(sbps, num_axes);
      if (nd.ok()) {
        fuzz::CheckNdSbp(*nd);
      } else {
        fuzz::CheckInvalidArgument(nd.status(), "NdSbp::Make");
      }
      break;
    }
  }
  return 0;
}
