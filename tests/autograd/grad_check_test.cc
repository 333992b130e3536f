// Gradient checks (grad_check.h) of the differentiable ops at every rank count the
// test runs with (1 and 3: 3 makes uneven splits of the 4- and 5-long axes), on
// several layouts of each input: split on each axis, broadcast, partial sum.
#include "tests/autograd/grad_check.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tessera::autograd_test {
namespace {

Placement World() { return WorldPlacement(); }

TEST(GradCheck, UnaryOps) {
  for (const char* op : {"neg", "identity", "exp", "tanh", "sigmoid", "relu"}) {
    for (const NdSbp& l : Layouts(2)) {
      EXPECT_GRAD(op, {GradInput{Shape{4, 5}, l}}, {}, World());
    }
  }
  // sqrt on positive values only.
  std::vector<double> pos(20);
  for (size_t i = 0; i < pos.size(); ++i) pos[i] = 0.5 + 0.1 * static_cast<double>(i);
  for (const NdSbp& l : Layouts(2)) {
    EXPECT_GRAD("sqrt", {GradInput{Shape{4, 5}, l, pos}}, {}, World());
    EXPECT_GRAD("scalar_mul", {GradInput{Shape{4, 5}, l}}, {{"value", op::AttrValue::Float(-2.5)}},
                World());
    EXPECT_GRAD("scalar_add", {GradInput{Shape{4, 5}, l}}, {{"value", op::AttrValue::Float(3)}},
                World());
  }
}

TEST(GradCheck, BinaryOpsWithBroadcasting) {
  for (const char* op : {"add", "sub", "mul", "div"}) {
    for (const NdSbp& lx : Layouts(2)) {
      for (const NdSbp& ly : Layouts(2)) {
        EXPECT_GRAD(op, {GradInput{Shape{4, 5}, lx}, GradInput{Shape{4, 5}, ly}}, {}, World());
      }
      // y broadcast along axis 0 ([1, 5]) and along a new leading axis ([5]).
      EXPECT_GRAD(op, {GradInput{Shape{4, 5}, lx}, GradInput{Shape{1, 5}, L("B")}}, {}, World());
      EXPECT_GRAD(op, {GradInput{Shape{4, 5}, lx}, GradInput{Shape{5}, L("S(0)")}}, {}, World());
    }
  }
}

TEST(GradCheck, Matmul) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const Shape a = ta ? Shape{3, 4} : Shape{4, 3};
      const Shape b = tb ? Shape{5, 3} : Shape{3, 5};
      const op::AttrMap attrs{{"transpose_a", op::AttrValue::Bool(ta)},
                              {"transpose_b", op::AttrValue::Bool(tb)}};
      for (const NdSbp& la : Layouts(2)) {
        for (const NdSbp& lb : {L("B"), L("S(0)"), L("S(1)")}) {
          EXPECT_GRAD("matmul", {GradInput{a, la}, GradInput{b, lb}}, attrs, World());
        }
      }
    }
  }
  EXPECT_GRAD("batch_matmul",
              {GradInput{Shape{2, 4, 3}, L("S(0)")}, GradInput{Shape{2, 3, 5}, L("B")}},
              {{"transpose_a", op::AttrValue::Bool(false)}}, World());
}

TEST(GradCheck, BiasAddAndReductions) {
  for (const NdSbp& l : Layouts(2)) {
    EXPECT_GRAD("bias_add", {GradInput{Shape{4, 5}, l}, GradInput{Shape{5}, L("B")}},
                {{"axis", op::AttrValue::Int(1)}}, World());
    for (const char* op : {"reduce_sum", "reduce_mean"}) {
      for (auto axes : std::vector<std::vector<int64_t>>{{}, {0}, {1}, {-1}}) {
        for (bool keep : {false, true}) {
          EXPECT_GRAD(
              op, {GradInput{Shape{4, 5}, l}},
              {{"axes", op::AttrValue::Ints(axes)}, {"keepdims", op::AttrValue::Bool(keep)}},
              World());
        }
      }
    }
  }
}

TEST(GradCheck, SoftmaxFamily) {
  for (const NdSbp& l : Layouts(2)) {
    for (const char* op : {"softmax", "log_softmax"}) {
      for (int64_t axis : {0, 1, -1}) {
        EXPECT_GRAD(op, {GradInput{Shape{4, 5}, l}}, {{"axis", op::AttrValue::Int(axis)}}, World());
      }
    }
  }
  for (const NdSbp& l : {L("S(0)"), L("B")}) {
    GradInput labels{
        Shape{4}, l.ToString() == "B" ? L("B") : L("S(0)"), {1, 0, 4, 2}, false, DType::kI64};
    EXPECT_GRAD("sparse_softmax_cross_entropy", {GradInput{Shape{4, 5}, l}, labels}, {}, World());
  }
}

TEST(GradCheck, ShapeOps) {
  for (const NdSbp& l : Layouts(2)) {
    EXPECT_GRAD("reshape", {GradInput{Shape{4, 6}, l}}, {{"shape", op::AttrValue::Ints({2, 12})}},
                World());
    EXPECT_GRAD("transpose", {GradInput{Shape{4, 5}, l}}, {{"perm", op::AttrValue::Ints({1, 0})}},
                World());
  }
}

}  // namespace
}  // namespace tessera::autograd_test
