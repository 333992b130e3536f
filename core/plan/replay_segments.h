// How a plan instance on a cuda placement splits its steps into CUDA graphs for replay
// (plan_exec.h, "CUDA graph replay"): a graph may hold kernels and device copies but no
// host wait, and every boxing step waits on the host, so the graphs are the stretches of
// kernel steps between boxing steps, and the boxing steps run between them.
#ifndef TESSERA_CORE_PLAN_REPLAY_SEGMENTS_H_
#define TESSERA_CORE_PLAN_REPLAY_SEGMENTS_H_

#include <cstddef>
#include <vector>

#include "core/plan/compile.h"

namespace tessera::plan {

// Steps [begin, end) of a plan, run as one: replayed as a graph (`graph`: a stretch of
// kernel steps holding at least one kernel this rank runs) or run plainly (one boxing
// step, a stretch with no kernel on this rank, or only the assigns). `assigns`: the
// variable assigns follow the segment's steps (the last segment only).
struct ReplaySegment {
  size_t begin = 0;
  size_t end = 0;
  bool graph = false;
  bool assigns = false;

  bool operator==(const ReplaySegment& o) const {
    return begin == o.begin && end == o.end && graph == o.graph && assigns == o.assigns;
  }
};

// The segments of `steps` in run order, covering every step once; the last one carries
// the assigns: the last stretch's graph when the plan ends with one, else a segment of its
// own after the last step ([n, n), run plainly). Kernel steps are assumed to be cuda
// kernels (the caller does not replay plans with cpu kernel steps).
std::vector<ReplaySegment> SplitForReplay(const std::vector<CompiledStep>& steps);

}  // namespace tessera::plan

#endif  // TESSERA_CORE_PLAN_REPLAY_SEGMENTS_H_
