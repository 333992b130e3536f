#include "core/plan/replay_segments.h"

#include <ostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tessera::plan {

// Readable failures (found by gtest through argument-dependent lookup).
void PrintTo(const ReplaySegment& s, std::ostream* os) {
  *os << "[" << s.begin << ", " << s.end << ")" << (s.graph ? " graph" : " plain")
      << (s.assigns ? " + assigns" : "");
}

namespace {

Status NoKernel(const kernels::KernelContext&) { return Status::Ok(); }

// Steps from a pattern: 'k' a kernel step this rank runs, '-' a kernel step it skips (no
// local piece: null kernel), 'b' a boxing step.
std::vector<CompiledStep> Steps(const std::string& pattern) {
  std::vector<CompiledStep> steps(pattern.size());
  for (size_t i = 0; i < pattern.size(); ++i) {
    steps[i].device = DeviceType::kCuda;
    if (pattern[i] == 'b') steps[i].kind = StepKind::kBoxing;
    if (pattern[i] == 'k') steps[i].kernel = &NoKernel;
  }
  return steps;
}

using Segments = std::vector<ReplaySegment>;

TEST(ReplaySegmentsTest, KernelsOnlyAreOneGraphWithTheAssigns) {
  EXPECT_EQ(SplitForReplay(Steps("kkk")), (Segments{{0, 3, true, true}}));
  EXPECT_EQ(SplitForReplay(Steps("k")), (Segments{{0, 1, true, true}}));
}

TEST(ReplaySegmentsTest, BoxingStepsSplitTheGraphsAndRunBetweenThem) {
  EXPECT_EQ(SplitForReplay(Steps("kkbkk")),
            (Segments{{0, 2, true, false}, {2, 3, false, false}, {3, 5, true, true}}));
  EXPECT_EQ(
      SplitForReplay(Steps("kbbk")),
      (Segments{
          {0, 1, true, false}, {1, 2, false, false}, {2, 3, false, false}, {3, 4, true, true}}));
}

TEST(ReplaySegmentsTest, APlanEndingInBoxingRunsTheAssignsAfterIt) {
  EXPECT_EQ(SplitForReplay(Steps("kkb")),
            (Segments{{0, 2, true, false}, {2, 3, false, false}, {3, 3, false, true}}));
  EXPECT_EQ(SplitForReplay(Steps("bk")), (Segments{{0, 1, false, false}, {1, 2, true, true}}));
}

TEST(ReplaySegmentsTest, StretchesWithoutAKernelOfThisRankRunPlainly) {
  EXPECT_EQ(SplitForReplay(Steps("--bk-")),
            (Segments{{0, 2, false, false}, {2, 3, false, false}, {3, 5, true, true}}));
  EXPECT_EQ(
      SplitForReplay(Steps("k-b--")),
      (Segments{
          {0, 2, true, false}, {2, 3, false, false}, {3, 5, false, false}, {5, 5, false, true}}));
}

TEST(ReplaySegmentsTest, NoStepsLeaveOnlyTheAssigns) {
  EXPECT_EQ(SplitForReplay(Steps("")), (Segments{{0, 0, false, true}}));
  EXPECT_EQ(SplitForReplay(Steps("b")), (Segments{{0, 1, false, false}, {1, 1, false, true}}));
}

}  // namespace
}  // namespace tessera::plan
