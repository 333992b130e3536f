// The boxing planner over random pairs of placed nd-sbps: random shapes (edge dims
// included), dtypes, two placements of 1-3 axes over up to 8 of 12 ranks, and any
// nd-sbps. FindBoxingPlan either fails with INVALID_ARGUMENT and a message or returns
// a plan whose steps chain from the source nd-sbp to the destination's at a finite,
// non-negative cost. For two layouts without partial axes, the reshard's transfers
// are checked too: each lies inside its source and destination pieces, and each
// destination piece receives exactly its own element count.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/boxing/boxing_plan.h"
#include "core/boxing/planner.h"
#include "core/boxing/reshard.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/physical_layout.h"
#include "core/sbp/sbp.h"
#include "fuzz/core_values.h"
#include "fuzz/fuzz_input.h"

namespace tessera::fuzz {
namespace {

Placement RandomPlacement(FuzzInput& in) {
  std::vector<int64_t> hierarchy(in.InRange(1, 3));
  int64_t n = 1;
  for (int64_t& h : hierarchy) {
    h = n >= 8 ? 1 : in.InRange(1, 8 / n);
    n *= h;
  }
  std::vector<int32_t> pool;
  for (int32_t r = 0; r < 12; ++r) pool.push_back(r);
  for (size_t i = pool.size(); i > 1; --i) std::swap(pool[i - 1], pool[in.Byte() % i]);
  pool.resize(n);
  const DeviceType device = in.Byte() % 32 == 0 ? DeviceType::kCuda : DeviceType::kCpu;
  return Placement::Make(device, pool, hierarchy).value();
}

bool HasPartial(const NdSbp& nd) {
  for (int a = 0; a < nd.num_axes(); ++a) {
    if (nd[a].is_partial()) return true;
  }
  return false;
}

bool Inside(const boxing::Region& inner, const boxing::Region& outer) {
  if (inner.ndim != outer.ndim) return false;
  for (int d = 0; d < inner.ndim; ++d) {
    if (inner.ranges[d].begin < outer.ranges[d].begin ||
        inner.ranges[d].end > outer.ranges[d].end) {
      return false;
    }
  }
  return true;
}

}  // namespace
}  // namespace tessera::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  fuzz::FuzzInput in(data, size);
  std::vector<int64_t> dims(in.InRange(0, 4));
  for (int64_t& d : dims) d = in.Bool() ? in.InRange(0, 9) : in.Edgy();
  Result<Shape> shape = Shape::Make(dims);
  if (!shape.ok()) return 0;  // the layout target covers Shape::Make
  const DType dtype = static_cast<DType>(in.InRange(0, kNumDTypes - 1));
  const Placement src_placement = fuzz::RandomPlacement(in);
  const Placement dst_placement = in.Byte() % 4 == 0 ? src_placement : fuzz::RandomPlacement(in);
  const NdSbp src = fuzz::RandomNdSbp(in, src_placement.num_axes());
  const NdSbp dst = fuzz::RandomNdSbp(in, dst_placement.num_axes());
  const std::string what = shape->ToString() + " " + src_placement.ToString() + " " +
                           src.ToString() + " -> " + dst_placement.ToString() + " " +
                           dst.ToString();

  Result<std::shared_ptr<const boxing::BoxingPlan>> plan =
      boxing::FindBoxingPlan(*shape, dtype, src_placement, src, dst_placement, dst);
  if (!plan.ok()) {
    fuzz::CheckInvalidArgument(plan.status(), what);
    return 0;
  }
  const boxing::BoxingPlan& p = **plan;
  FUZZ_CHECK(std::isfinite(p.total_seconds()) && p.total_seconds() >= 0,
             what + ": cost " + std::to_string(p.total_seconds()));
  FUZZ_CHECK(!p.ToString().empty(), what + ": empty plan text");
  const std::vector<boxing::BoxingStep>& steps = p.steps();
  if (src_placement == dst_placement && src == dst) {
    FUZZ_CHECK(steps.empty(), what + ": a plan with steps for an unchanged layout");
  }
  NdSbp at = src;
  for (size_t i = 0; i < steps.size(); ++i) {
    const boxing::BoxingStep& step = steps[i];
    FUZZ_CHECK(step.from == at, what + ": step " + std::to_string(i + 1) + " starts from " +
                                    step.from.ToString() + ", not " + at.ToString());
    FUZZ_CHECK(std::isfinite(step.seconds) && step.seconds >= 0 && step.wire_bytes >= 0,
               what + ": step " + std::to_string(i + 1) + " cost");
    FUZZ_CHECK(!p.StepToString(i).empty(), what + ": empty step text");
    at = step.to;
  }
  FUZZ_CHECK(at == dst, what + ": the steps end at " + at.ToString());
  if (src_placement != dst_placement) {
    FUZZ_CHECK(!steps.empty() && steps.back().to_side == boxing::Side::kDst,
               what + ": the plan does not reach the destination placement");
  }

  if (fuzz::HasPartial(src) || fuzz::HasPartial(dst) ||
      src_placement.device_type() != dst_placement.device_type()) {
    return 0;
  }
  std::vector<unsigned __int128> received(dst_placement.parallel_num(), 0);
  boxing::ForEachTransfer(
      *shape, src_placement, src, dst_placement, dst, [&](const boxing::Transfer& t) {
        FUZZ_CHECK(t.dst_index >= 0 && t.dst_index < dst_placement.parallel_num() &&
                       t.src_index >= 0 && t.src_index < src_placement.parallel_num(),
                   what + ": a transfer names a parallel index outside");
        FUZZ_CHECK(fuzz::Inside(t.region, t.src_box) && fuzz::Inside(t.region, t.dst_box),
                   what + ": a transfer's region leaves its pieces");
        received[t.dst_index] += t.region.num_elements();
      });
  for (int64_t j = 0; j < dst_placement.parallel_num(); ++j) {
    const int64_t want =
        PhysicalLayoutAt(*shape, dst_placement, dst, j).value().local_shape.num_elements();
    FUZZ_CHECK(received[j] == static_cast<unsigned __int128>(want),
               what + ": destination piece " + std::to_string(j) + " receives " +
                   std::to_string(static_cast<int64_t>(received[j])) + " of " +
                   std::to_string(want) + " elements");
  }
  return 0;
}
