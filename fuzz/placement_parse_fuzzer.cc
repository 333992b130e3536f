// Placement::Parse over arbitrary text and Placement::Make over arbitrary (hierarchy,
// ranks). Either answers INVALID_ARGUMENT with a message, or gives a placement whose
// text parses back to an equal placement and whose rank table is consistent: every
// index maps to its rank and back, and every axis group holds the ranks along it.
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/limits.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "fuzz/core_values.h"
#include "fuzz/fuzz_input.h"

namespace tessera::fuzz {
namespace {

void CheckPlacement(const Placement& p) {
  const std::string& text = p.ToString();
  Result<Placement> again = Placement::Parse(text);
  if (text.size() > kMaxParsedTextLength) {
    // A placement of more than about 10,000 ranks prints (one id per rank) past the
    // parser's text limit, though a range made it: the limit, not a failure
    // (docs/reliability.md, "Fuzzing").
    FUZZ_CHECK(!again.ok() && again.status().code() == StatusCode::kInvalidArgument,
               "a text past kMaxParsedTextLength parsed");
  } else {
    FUZZ_CHECK(again.ok(), text + " does not parse back: " + again.status().message());
    FUZZ_CHECK(*again == p && again->Hash() == p.Hash(),
               text + " parses back as another placement");
    FUZZ_CHECK(again->ToString() == text, text + " prints back as " + again->ToString());
  }

  int64_t product = 1;
  for (int64_t d : p.hierarchy()) {
    FUZZ_CHECK(d >= 1, text + " has a hierarchy dim below 1");
    product *= d;  // bounded by parallel_num() when the check below holds
    FUZZ_CHECK(product <= p.parallel_num(), text + ": hierarchy product exceeds the rank count");
  }
  FUZZ_CHECK(product == p.parallel_num(), text + ": hierarchy product is not the rank count");
  // Bounded work per input: a few indices (the first, the last, two between), and axis
  // groups only along axes of at most 64 ranks (each AxisGroup is a placement of the
  // axis's size).
  const int64_t n = p.parallel_num();
  for (int64_t i : {int64_t{0}, n / 3, (2 * n) / 3, n - 1}) {
    const int32_t rank = p.rank_at(i);
    FUZZ_CHECK(rank >= 0, text + " holds a negative rank");
    FUZZ_CHECK(p.index_of(rank) == i, text + ": index_of(rank_at(i)) != i");
    for (int axis = 0; axis < p.num_axes(); ++axis) {
      if (p.hierarchy()[axis] > 64) continue;
      Result<Placement> group = p.AxisGroup(axis, rank);
      FUZZ_CHECK(group.ok(), text + ": AxisGroup failed: " + group.status().message());
      FUZZ_CHECK(group->parallel_num() == p.hierarchy()[axis],
                 text + ": axis group size is not the axis's dim");
      FUZZ_CHECK(group->contains(rank), text + ": axis group lacks its own rank");
      FUZZ_CHECK(group->rank_at(p.Coordinate(i, axis)) == rank,
                 text + ": the rank is not at its coordinate in its axis group");
    }
  }
  FUZZ_CHECK(!p.RankAt(p.parallel_num()).ok() && !p.RankAt(-1).ok(),
             text + ": RankAt accepts an index outside the placement");
}

}  // namespace
}  // namespace tessera::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  fuzz::FuzzInput in(data, size);
  if (in.Byte() % 2 == 0) {
    Result<Placement> p = Placement::Parse(in.Rest());
    if (p.ok()) {
      fuzz::CheckPlacement(*p);
    } else {
      fuzz::CheckInvalidArgument(p.status(), "Placement::Parse");
    }
    return 0;
  }
  const DeviceType device = in.Bool() ? DeviceType::kCuda : DeviceType::kCpu;
  std::vector<int64_t> hierarchy(in.InRange(0, Placement::kMaxAxes + 1));
  for (int64_t& d : hierarchy) d = in.Edgy();
  std::vector<int32_t> ranks(in.InRange(0, 40));
  for (int32_t& r : ranks)
    r = in.Bool() ? static_cast<int32_t>(in.InRange(-2, 40)) : in.Raw<int32_t>();
  Result<Placement> p = Placement::Make(device, ranks, hierarchy);
  if (p.ok()) {
    FUZZ_CHECK(p->ranks() == ranks && p->hierarchy() == hierarchy,
               "Make stored other ranks or another hierarchy than it was given");
    fuzz::CheckPlacement(*p);
  } else {
    fuzz::CheckInvalidArgument(p.status(), "Placement::Make");
  }
  return 0;
}
