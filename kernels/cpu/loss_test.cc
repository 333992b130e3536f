// nll_loss and cross_entropy against per-row references in double.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_test_util.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// -log_softmax(row)[t] computed the textbook way (fine for these small values).
double NaiveCrossEntropy(const std::vector<double>& row, int64_t t) {
  double s = 0;
  for (double v : row) s += std::exp(v);
  return std::log(s) - row[t];
}

TEST(LossKernelTest, EveryReductionAgainstNaiveRows) {
  std::mt19937 rng(107);
  for (DType dt : FloatTypes()) {
    for (DType it : IndexTypes()) {
      for (const char* op : {"nll_loss", "cross_entropy"}) {
        for (int64_t rows : {0, 1, 5}) {
          SCOPED_TRACE(std::string(op) + " " + DTypeName(dt) + " " + DTypeName(it) + " rows " +
                       std::to_string(rows));
          const int64_t classes = 4;
          HostTensor x = Random(Shape{rows, classes}, dt, &rng, -3, 1);
          HostTensor target = Random(Shape{rows}, it, &rng, 0, classes - 1);
          std::vector<double> loss;
          for (int64_t i = 0; i < rows; ++i) {
            std::vector<double> row;
            for (int64_t c = 0; c < classes; ++c) row.push_back(x.Get(i * classes + c));
            const int64_t t = static_cast<int64_t>(target.Get(i));
            loss.push_back(std::string(op) == "nll_loss" ? -row[t] : NaiveCrossEntropy(row, t));
          }
          double sum = 0;
          for (double l : loss) sum += l;
          const double tol = dt == DType::kF32 ? 2e-6 : 1e-12;
          auto none = RunOp(op, {x, target}, {{"reduction", AttrValue::Int(0)}});
          ASSERT_TRUE(none.ok()) << none.status().ToString();
          ExpectValues((*none)[0], loss, tol);
          auto total = RunOp(op, {x, target}, {{"reduction", AttrValue::Int(2)}});
          ASSERT_TRUE(total.ok()) << total.status().ToString();
          ExpectValues((*total)[0], {sum}, tol);
          auto mean = RunOp(op, {x, target});  // the default reduction is mean
          ASSERT_TRUE(mean.ok()) << mean.status().ToString();
          ExpectValues((*mean)[0], {rows == 0 ? kNaN : sum / static_cast<double>(rows)}, tol);
        }
      }
    }
  }
}

TEST(LossKernelTest, MeanDividesByTheLogicalBatch) {
  // A rank holding rows 2..3 of a logical batch of 7: its part of the mean is its sum / 7.
  HostTensor lp = FromValues(Shape{2, 3}, DType::kF64, {-1, -2, -3, -4, -5, -6});
  HostTensor target = FromValues(Shape{2}, DType::kI64, {2, 0});
  auto call = PrepareCall("nll_loss", {lp, target}, {{"reduction", AttrValue::Int(1)}});
  ASSERT_TRUE(call.ok()) << call.status().ToString();
  const Shape logical[] = {Shape{7, 3}, Shape{7}};
  (*call)->ctx.logical_input_shapes = logical;
  ASSERT_TRUE((*call)->fn((*call)->ctx).ok());
  ExpectValues((*call)->outputs[0], {(3.0 + 4.0) / 7});
}

TEST(LossKernelTest, TargetsOutsideTheClassesAreNamed) {
  HostTensor x(Shape{2, 3}, DType::kF32);
  for (int64_t i = 0; i < 6; ++i) x.Set(i, -1);
  EXPECT_EQ(ErrorOf("nll_loss", {x, FromValues(Shape{2}, DType::kI32, {0, 3})}, {},
                    {HostTensor(Shape{}, DType::kF32)}),
            "nll_loss: target[1] = 3 is outside [0, 3), the classes of \"log_probs\" [2,3]");
  EXPECT_EQ(ErrorOf("cross_entropy", {x, FromValues(Shape{2}, DType::kI64, {-1, 0})},
                    {{"reduction", AttrValue::Int(0)}}, {HostTensor(Shape{2}, DType::kF32)}),
            "cross_entropy: target[0] = -1 is outside [0, 3), the classes of \"logits\" [2,3]");
  EXPECT_EQ(ErrorOf("nll_loss", {x, FromValues(Shape{2}, DType::kI32, {0, 1})}, {},
                    {HostTensor(Shape{2}, DType::kF32)}),
            "nll_loss: output \"out\" is [2] f32 but the inputs give [] f32");
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
