#include "core/op/op_registry.h"

#include <gtest/gtest.h>

#include "core/op/op_context.h"

namespace tessera {
namespace op {
namespace {

TEST(OpRegistryTest, GlobalHasTheIssueOpSet) {
  // The forward ops, the backward-only ones (grad_ops.cc, scatter_grad_ops.cc) and the
  // optimizer updates (optim_ops.cc).
  std::vector<std::string> expected = {
      "abs",
      "adam_update",
      "adam_update_at_step",
      "add",
      "add_n",
      "argmax",
      "batch_matmul",
      "bias_add",
      "cast",
      "concat",
      "cos",
      "cross_entropy",
      "cumsum",
      "div",
      "embedding",
      "equal",
      "equal_mask",
      "exp",
      "expand",
      "flatten",
      "gather",
      "gather_grad",
      "gelu",
      "gelu_grad",
      "greater",
      "greater_equal",
      "identity",
      "layer_norm",
      "less",
      "less_equal",
      "log",
      "log_softmax",
      "matmul",
      "maximum",
      "minimum",
      "mul",
      "neg",
      "nll_loss",
      "not_equal",
      "pow",
      "reduce_max",
      "reduce_mean",
      "reduce_min",
      "reduce_sum",
      "relu",
      "relu_grad",
      "reshape",
      "scalar_add",
      "scalar_mul",
      "sgd_update",
      "sigmoid",
      "sin",
      "slice",
      "slice_grad",
      "softmax",
      "sparse_softmax_cross_entropy",
      "sparse_softmax_cross_entropy_grad",
      "sqrt",
      "squeeze",
      "std",
      "sub",
      "tanh",
      "transpose",
      "unsqueeze",
      "var",
      "where",
      "xlogy",
  };
  EXPECT_EQ(OpRegistry::Global().Names(), expected);
  auto r = OpRegistry::Global().Find("matmul");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->name(), "matmul");
  EXPECT_EQ(*r, *OpRegistry::Global().Find("matmul"));  // stable address
}

TEST(OpRegistryTest, NotFoundNamesCloseOps) {
  auto r = OpRegistry::Global().Find("matmull");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  // "matmul" is one edit away; "mul" is a substring of the query.
  EXPECT_EQ(r.status().message(), "no op named \"matmull\"; did you mean: matmul, mul");
  EXPECT_EQ(OpRegistry::Global().Find("softmx").status().message(),
            "no op named \"softmx\"; did you mean: softmax");
  EXPECT_EQ(OpRegistry::Global().Find("softmax_log").status().message(),
            "no op named \"softmax_log\"; did you mean: log, softmax");
  EXPECT_EQ(OpRegistry::Global().Find("zzzzzzzzzzzz").status().message(),
            "no op named \"zzzzzzzzzzzz\"; " + std::to_string(OpRegistry::Global().Names().size()) +
                " ops are registered");
}

Status NoShape(OpContext*) { return Status::Ok(); }
void NoSigs(const OpContext&, SignatureList*) {}

TEST(OpRegistryTest, RegisterChecksDefinitionsAndNames) {
  OpRegistry r;
  ASSERT_TRUE(
      r.Register(OpDef("f").Input("x").Output("y").SetShapeFn(NoShape).SetSignatureFn(NoSigs))
          .ok());
  Status dup =
      r.Register(OpDef("f").Input("x").Output("y").SetShapeFn(NoShape).SetSignatureFn(NoSigs));
  EXPECT_EQ(dup.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(dup.message(), "op \"f\" is already registered");
  EXPECT_EQ(r.Register(OpDef("g")).message(), "g: op definition has no shape function");
  EXPECT_EQ(r.size(), 1u);
}

}  // namespace
}  // namespace op
}  // namespace tessera
