#include "core/boxing/boxing_plan.h"

#include <cstdio>
#include <utility>

namespace tessera::boxing {
namespace {

std::string Seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1e", seconds);
  return text;
}

}  // namespace

BoxingPlan::BoxingPlan(const BoxingLayouts& layouts, std::vector<BoxingStep> steps)
    : layouts_(layouts), steps_(std::move(steps)) {
  for (const BoxingStep& step : steps_) total_seconds_ += step.seconds;
}

std::string BoxingPlan::StepToString(size_t index) const {
  const BoxingStep& step = steps_[index];
  std::string line;
  if (step.kind == BoxingStep::Kind::kReshard) {
    line = "reshard " + placement(step.from_side).ToString() + " " + step.from.ToString() + " -> " +
           placement(step.to_side).ToString() + " " + step.to.ToString() + "  " +
           CollectiveName(step.collective) + " over " + std::to_string(step.ranks) +
           " ranks, busiest rank moves " + std::to_string(step.wire_bytes) + " B";
  } else if (step.kind == BoxingStep::Kind::kRelabel) {
    line = "relabel " + placement(step.from_side).ToString() + " " + step.from.ToString() + " -> " +
           placement(step.to_side).ToString() + " " + step.to.ToString() + "  " +
           CollectiveName(step.collective);
  } else {
    if (!same_placement()) line = placement(step.from_side).ToString() + " ";
    std::string axes;
    for (int k = 0; k < step.from.num_axes(); ++k) {
      if ((step.axes >> k & 1u) != 0) axes += (axes.empty() ? "" : ",") + std::to_string(k);
    }
    line += (axes.find(',') == std::string::npos ? "axis " : "axes ") + axes + ": " +
            step.from[step.axis].ToString() + " -> " + step.to[step.axis].ToString() + "  " +
            CollectiveName(step.collective) + " over " + std::to_string(step.ranks) +
            (step.ranks == 1 ? " rank" : " ranks");
  }
  return line + "  cost " + Seconds(step.seconds) + " s";
}

std::string BoxingPlan::ToString() const {
  std::string text = "boxing " + std::string(DTypeName(dtype())) + shape().ToString() + ": " +
                     src_placement().ToString() + " " + src().ToString() + " -> " +
                     dst_placement().ToString() + " " + dst().ToString() + "\n";
  for (size_t i = 0; i < steps_.size(); ++i) {
    text += std::to_string(i + 1) + ". " + StepToString(i) + "\n";
  }
  if (steps_.empty()) text += "(nothing to do: the layouts are the same)\n";
  text += "total: " + std::to_string(steps_.size()) + (steps_.size() == 1 ? " step" : " steps") +
          ", cost " + Seconds(total_seconds_) + " s";
  return text;
}

}  // namespace tessera::boxing
