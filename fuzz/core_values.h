// What the core-layer targets share: random nd-sbps and the check that a failure is
// INVALID_ARGUMENT with a message.
#ifndef TESSERA_FUZZ_CORE_VALUES_H_
#define TESSERA_FUZZ_CORE_VALUES_H_

#include <cstdint>
#include <string>

#include "core/common/status.h"
#include "core/sbp/sbp.h"
#include "fuzz/fuzz_input.h"

namespace tessera::fuzz {

// One valid Sbp per axis (split axes 0-4, so some do not fit the tensor), for `axes`
// placement axes; one time in 16 for another axis count.
inline NdSbp RandomNdSbp(FuzzInput& in, int axes) {
  NdSbp nd;
  if (in.Byte() % 16 == 0) axes = axes % NdSbp::kMaxAxes + 1;
  for (int a = 0; a < axes; ++a) {
    nd.Append(Sbp::Make(static_cast<int>(in.InRange(0, 4)), static_cast<int32_t>(in.InRange(0, 4)))
                  .value());
  }
  return nd;
}

// Input errors are INVALID_ARGUMENT with a message naming what is wrong.
inline void CheckInvalidArgument(const Status& s, const std::string& what) {
  FUZZ_CHECK(s.code() == StatusCode::kInvalidArgument && !s.message().empty(),
             what + " failed without INVALID_ARGUMENT and a message: " + s.ToString());
}

}  // namespace tessera::fuzz

#endif  // TESSERA_FUZZ_CORE_VALUES_H_
