// Gradient checks (grad_check.h) of gelu, abs, pow, maximum/minimum and
// reduce_max/min at 1, 3 and 4 ranks (3 splits the 4- and 5-long axes unevenly), on
// every 1-d layout of each input and on the 2-d layouts of MeshPlacement() ([2, 2] at
// 4 ranks, [1, n] otherwise).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/autograd/grad_check.h"

namespace tessera::autograd_test {
namespace {

using op::AttrValue;

TEST(GradCheckOps, GeluAndAbs) {
  for (const Case& c : Cases(2)) {
    EXPECT_GRAD("gelu", {GradInput{Shape{4, 5}, c.layout}}, {}, c.placement);
    EXPECT_GRAD("abs", {GradInput{Shape{4, 5}, c.layout}}, {}, c.placement);
  }
}

TEST(GradCheckOps, Pow) {
  // Positive bases, so any exponent is defined.
  const std::vector<double> base = Range(20, 0.3, 0.11);
  for (const Case& c : Cases(2)) {
    EXPECT_GRAD("pow", {GradInput{Shape{4, 5}, c.layout, base}, GradInput{Shape{4, 5}, c.layout}},
                {}, c.placement);
    // The exponent broadcast along axis 0, and the base along a new leading axis.
    EXPECT_GRAD("pow", {GradInput{Shape{4, 5}, c.layout, base}, GradInput{Shape{5}, Bcast(c)}}, {},
                c.placement);
    EXPECT_GRAD(
        "pow",
        {GradInput{Shape{5}, Bcast(c), Range(5, 0.5, 0.3)}, GradInput{Shape{4, 5}, c.layout}}, {},
        c.placement);
  }
}

TEST(GradCheckOps, MaximumMinimum) {
  for (const char* op : {"maximum", "minimum"}) {
    for (const Case& c : Cases(2)) {
      EXPECT_GRAD(op, {GradInput{Shape{4, 5}, c.layout}, GradInput{Shape{4, 5}, Like(c.layout, 2)}},
                  {}, c.placement);
    }
    for (const NdSbp& l : Layouts(2)) {
      EXPECT_GRAD(op, {GradInput{Shape{4, 5}, l}, GradInput{Shape{1, 5}, L("B")}}, {},
                  WorldPlacement());
    }
    // Ties: a central difference at x == y moves out by eps one way and not at all
    // the other, so the numeric gradient is 1/2 for each input: the even split.
    const std::vector<double> x = Range(6, -0.5, 0.25);
    std::vector<double> y = x;
    y[1] += 1;
    y[4] -= 1;
    EXPECT_GRAD(op, {GradInput{Shape{2, 3}, L("S(0)"), x}, GradInput{Shape{2, 3}, L("B"), y}}, {},
                WorldPlacement());
  }
}

TEST(GradCheckOps, ReduceMaxMin) {
  for (const char* op : {"reduce_max", "reduce_min"}) {
    for (const Case& c : Cases(2)) {
      // All axes, the first kept, the last dropped: each way ExpandFromReduced goes.
      const std::pair<std::vector<int64_t>, bool> reductions[] = {
          {{}, false}, {{0}, true}, {{-1}, false}};
      for (const auto& [axes, keep] : reductions) {
        EXPECT_GRAD(op, {GradInput{Shape{4, 5}, c.layout}},
                    {{"axes", AttrValue::Ints(axes)}, {"keepdims", AttrValue::Bool(keep)}},
                    c.placement);
      }
    }
    // Two equal extremes in a row: each gets half (the central difference sees 1/2).
    std::vector<double> x = Range(8, -0.7, 0.2);
    x[1] = x[3] = 2.0;   // row 0's max
    x[4] = x[6] = -2.0;  // row 1's min
    EXPECT_GRAD(op, {GradInput{Shape{2, 4}, L("S(1)"), x}}, {{"axes", AttrValue::Ints({1})}},
                WorldPlacement());
  }
}

}  // namespace
}  // namespace tessera::autograd_test
