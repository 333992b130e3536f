#include "core/plan/replay_segments.h"

namespace tessera::plan {

std::vector<ReplaySegment> SplitForReplay(const std::vector<CompiledStep>& steps) {
  std::vector<ReplaySegment> segments;
  const size_t n = steps.size();
  size_t begin = 0;
  for (size_t i = 0; i <= n; ++i) {
    const bool boxing = i < n && steps[i].kind == StepKind::kBoxing;
    if (i < n && !boxing) continue;
    // steps[begin, i) hold no boxing step: one stretch.
    if (i > begin) {
      bool has_kernel = false;
      for (size_t k = begin; k < i; ++k) has_kernel = has_kernel || steps[k].kernel != nullptr;
      segments.push_back(ReplaySegment{begin, i, has_kernel, false});
    }
    if (boxing) segments.push_back(ReplaySegment{i, i + 1, false, false});
    begin = i + 1;
  }
  if (segments.empty() || !segments.back().graph) {
    segments.push_back(ReplaySegment{n, n, false, false});
  }
  segments.back().assigns = true;
  return segments;
}

}  // namespace tessera::plan
