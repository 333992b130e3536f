#include <gtest/gtest.h>

#include "core/op/op_test_util.h"

namespace tessera {
namespace op {
namespace {

using Strings = std::vector<std::string>;

std::vector<TensorDesc> Batch(Shape scores, Shape target, DType t = DType::kI64) {
  return {{scores, DType::kF32}, {target, t}};
}

AttrMap Reduction(int64_t r) { return {{"reduction", AttrValue::Int(r)}}; }

TEST(LossTest, ShapesPerReduction) {
  for (const char* op : {"nll_loss", "cross_entropy"}) {
    auto none = InferShapes(op, Batch({4, 3}, {4}), Reduction(0));
    ASSERT_TRUE(none.ok()) << none.status().ToString();
    EXPECT_EQ((*none)[0].shape, Shape({4})) << op;
    for (int64_t r : {1, 2}) {
      auto total = InferShapes(op, Batch({4, 3}, {4}, DType::kI32), Reduction(r));
      ASSERT_TRUE(total.ok()) << total.status().ToString();
      EXPECT_EQ((*total)[0].shape, Shape({})) << op;
      EXPECT_EQ((*total)[0].dtype, DType::kF32) << op;
    }
  }
  EXPECT_EQ(ShapeError("nll_loss", Batch({4, 3}, {5})),
            "nll_loss: input \"target\" has shape [5] but \"log_probs\" has [4,3]; target needs "
            "one class per row ([4])");
  EXPECT_EQ(ShapeError("cross_entropy", Batch({4, 3}, {4}), Reduction(3)),
            "cross_entropy: attribute \"reduction\" is 3; expected 0 (none), 1 (mean) or 2 (sum)");
  EXPECT_EQ(ShapeError("nll_loss", Batch({4, 3}, {4}, DType::kF32)),
            "nll_loss: input \"target\" has dtype f32; expected i32 or i64");
  EXPECT_EQ(ShapeError("cross_entropy", Batch({4}, {4})),
            "cross_entropy: input \"logits\" has shape [4] (1 dims); expected 2 dims");
}

TEST(LossTest, BatchSplitsAndPartials) {
  EXPECT_EQ(
      Sigs("nll_loss", Batch({4, 3}, {4}), Reduction(0)),
      (Strings{"log_probs:S(0), target:S(0) -> out:S(0)", "log_probs:P, target:B -> out:P",
               "log_probs:P(max), target:B -> out:P(min)",
               "log_probs:P(min), target:B -> out:P(max)", "log_probs:B, target:B -> out:B"}));
  // mean and sum: per-rank parts of the total add up (the mean's divide by the global N).
  for (int64_t r : {1, 2}) {
    EXPECT_EQ(Sigs("nll_loss", Batch({4, 3}, {4}), Reduction(r)),
              (Strings{"log_probs:S(0), target:S(0) -> out:P", "log_probs:P, target:B -> out:P",
                       "log_probs:B, target:B -> out:B"}));
    EXPECT_EQ(Sigs("cross_entropy", Batch({4, 3}, {4}), Reduction(r)),
              (Strings{"logits:S(0), target:S(0) -> out:P", "logits:B, target:B -> out:B"}));
  }
  EXPECT_EQ(Sigs("cross_entropy", Batch({4, 3}, {4}), Reduction(0)),
            (Strings{"logits:S(0), target:S(0) -> out:S(0)", "logits:B, target:B -> out:B"}));
}

}  // namespace
}  // namespace op
}  // namespace tessera
