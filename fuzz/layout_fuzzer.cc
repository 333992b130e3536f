// Shapes, balanced splits and physical layouts. Shape::Make over arbitrary dims
// (including ones whose element count overflows: INVALID_ARGUMENT); BalancedRange over
// arbitrary (total, parts, index) within its preconditions; PhysicalLayoutAt for every
// rank of a random placement and nd-sbp. Properties checked independently of the
// code: pieces lie inside the tensor, consecutive balanced parts are contiguous and
// differ by at most one item, and the ranks' pieces add up to the tensor once per
// rank along each non-split axis.
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/balanced_split.h"
#include "core/sbp/physical_layout.h"
#include "core/sbp/sbp.h"
#include "fuzz/core_values.h"
#include "fuzz/fuzz_input.h"

namespace tessera::fuzz {
namespace {

int64_t NonNegative(int64_t v) { return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v; }

void CheckBalancedRange(FuzzInput& in) {
  const int64_t total = NonNegative(in.Edgy());
  const int64_t parts = NonNegative(in.Edgy());
  if (parts < 1) return;
  const uint64_t raw = in.Raw<uint64_t>();
  // An index near either end as often as a random one.
  const int64_t pick = static_cast<int64_t>(raw % static_cast<uint64_t>(parts));
  const int64_t index = in.Byte() % 3 == 0 ? 0 : (in.Bool() ? parts - 1 : pick);
  const Range r = BalancedRange(total, parts, index);
  const std::string what = "BalancedRange(" + std::to_string(total) + ", " + std::to_string(parts) +
                           ", " + std::to_string(index) + ") = [" + std::to_string(r.begin) + ", " +
                           std::to_string(r.end) + ")";
  FUZZ_CHECK(0 <= r.begin && r.begin <= r.end && r.end <= total, what + " is outside [0, total]");
  const int64_t small = total / parts;
  FUZZ_CHECK(r.size() == small || r.size() == small + 1, what + ": size is not total/parts (+1)");
  if (index == 0) FUZZ_CHECK(r.begin == 0, what + ": part 0 does not start at 0");
  if (index == parts - 1)
    FUZZ_CHECK(r.end == total, what + ": the last part does not end at total");
  if (index + 1 < parts) {
    const Range next = BalancedRange(total, parts, index + 1);
    FUZZ_CHECK(next.begin == r.end, what + ": the next part does not start where this one ends");
    FUZZ_CHECK(next.size() <= r.size(), what + ": a later part is larger");
  }
}

void CheckLayouts(FuzzInput& in) {
  std::vector<int64_t> dims(in.InRange(0, Shape::kMaxDims + 1));
  for (int64_t& d : dims) d = in.Edgy();
  Result<Shape> shape = Shape::Make(dims);
  if (!shape.ok()) {
    CheckInvalidArgument(shape.status(), "Shape::Make");
    return;
  }
  // Independently: the element count (the product of the nonzero dims must fit).
  unsigned __int128 count = 1;
  bool zero = false;
  for (int64_t d : dims) {
    if (d == 0)
      zero = true;
    else
      count *= static_cast<unsigned __int128>(d);
    FUZZ_CHECK(count <= static_cast<unsigned __int128>(INT64_MAX),
               "Shape::Make accepted " + shape->ToString() + ", whose element count overflows");
  }
  if (zero) count = 0;
  FUZZ_CHECK(shape->num_elements() == static_cast<int64_t>(count),
             shape->ToString() + ": num_elements " + std::to_string(shape->num_elements()));

  // A placement of up to 3 axes and 64 ranks, ranks in input order.
  std::vector<int64_t> hierarchy(in.InRange(1, 3));
  int64_t n = 1;
  for (int64_t& h : hierarchy) {
    h = in.InRange(1, 4);
    n *= h;
  }
  std::vector<int32_t> ranks;
  for (int32_t r = 0; r < n; ++r) ranks.push_back(r);
  for (size_t i = ranks.size(); i > 1; --i) std::swap(ranks[i - 1], ranks[in.Byte() % i]);
  Result<Placement> placement = Placement::Make(DeviceType::kCpu, ranks, hierarchy);
  FUZZ_CHECK(placement.ok(), "Placement::Make: " + placement.status().ToString());

  NdSbp nd;
  const int axes = in.Byte() % 8 == 0 ? static_cast<int>(hierarchy.size()) % 3 + 1
                                      : static_cast<int>(hierarchy.size());
  for (int a = 0; a < axes; ++a) {
    const int kind = static_cast<int>(in.InRange(0, 4));
    Result<Sbp> sbp = Sbp::Make(kind, static_cast<int32_t>(in.InRange(0, 3)));
    FUZZ_CHECK(sbp.ok(), "Sbp::Make: " + sbp.status().ToString());
    nd.Append(*sbp);
  }
  const std::string what =
      shape->ToString() + " on " + placement->ToString() + " as " + nd.ToString();
  Status valid = ValidateNdSbp(nd, *placement, *shape);
  if (!valid.ok()) {
    CheckInvalidArgument(valid, what + ": ValidateNdSbp");
    FUZZ_CHECK(!PhysicalLayoutAt(*shape, *placement, nd, 0).ok(),
               what + ": PhysicalLayoutAt accepts what ValidateNdSbp rejects");
    return;
  }
  FUZZ_CHECK(!PhysicalLayoutAt(*shape, *placement, nd, n).ok() &&
                 !PhysicalLayoutAt(*shape, *placement, nd, -1).ok(),
             what + ": PhysicalLayoutAt accepts an index outside the placement");
  unsigned __int128 copies = 1;
  for (int a = 0; a < nd.num_axes(); ++a) {
    if (!nd[a].is_split()) copies *= static_cast<unsigned __int128>(hierarchy[a]);
  }
  unsigned __int128 sum = 0;
  for (int64_t index = 0; index < n; ++index) {
    Result<PhysicalLayout> layout = PhysicalLayoutAt(*shape, *placement, nd, index);
    FUZZ_CHECK(layout.ok(), what + ": " + layout.status().ToString());
    Result<PhysicalLayout> by_rank =
        PhysicalLayoutOfRank(*shape, *placement, nd, placement->rank_at(index));
    FUZZ_CHECK(by_rank.ok() && by_rank->local_shape == layout->local_shape,
               what + ": the layout by rank differs from the layout by index");
    FUZZ_CHECK(layout->local_shape.ndim() == shape->ndim(), what + ": local ndim differs");
    unsigned __int128 local = 1;
    for (int d = 0; d < shape->ndim(); ++d) {
      const Range& r = layout->ranges[d];
      FUZZ_CHECK(0 <= r.begin && r.begin <= r.end && r.end <= shape->dim(d),
                 what + ": piece " + std::to_string(index) + " is " + layout->RangesToString());
      FUZZ_CHECK(layout->local_shape.dim(d) == r.size(), what + ": local dim is not its range");
      local *= static_cast<unsigned __int128>(r.size());
    }
    FUZZ_CHECK(layout->local_shape.num_elements() == static_cast<int64_t>(local),
               what + ": local num_elements");
    sum += local;
  }
  FUZZ_CHECK(sum == count * copies,
             what + ": the pieces do not add up to the tensor once per non-split rank");
}

}  // namespace
}  // namespace tessera::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tessera::fuzz::FuzzInput in(data, size);
  if (in.Bool()) {
    tessera::fuzz::CheckBalancedRange(in);
  } else {
    tessera::fuzz::CheckLayouts(in);
  }
  return 0;
}
