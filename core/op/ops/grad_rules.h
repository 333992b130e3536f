// The gradient rules of the built-in ops (core/op/grad.h), each referenced once from
// its op's definition with SetGradFn. Grouped by file as the ops are.
#ifndef TESSERA_CORE_OP_OPS_GRAD_RULES_H_
#define TESSERA_CORE_OP_OPS_GRAD_RULES_H_

#include "core/op/grad.h"

namespace tessera {
namespace op {

// elementwise_grad.cc
Status AddGrad(GradBuilder* g);
Status SubGrad(GradBuilder* g);
Status MulGrad(GradBuilder* g);
Status DivGrad(GradBuilder* g);
Status NegGrad(GradBuilder* g);
Status IdentityGrad(GradBuilder* g);
Status ScalarAddGrad(GradBuilder* g);
Status ScalarMulGrad(GradBuilder* g);
Status ExpGrad(GradBuilder* g);
Status LogGrad(GradBuilder* g);
Status SinGrad(GradBuilder* g);
Status CosGrad(GradBuilder* g);
Status TanhGrad(GradBuilder* g);
Status SigmoidGrad(GradBuilder* g);
Status SqrtGrad(GradBuilder* g);
Status ReluGrad(GradBuilder* g);
Status CastGrad(GradBuilder* g);
Status AddNGrad(GradBuilder* g);
Status GeluGrad(GradBuilder* g);
Status AbsGrad(GradBuilder* g);
Status PowGrad(GradBuilder* g);
Status ExtremumGrad(GradBuilder* g);  // maximum, minimum
Status WhereGrad(GradBuilder* g);

// nn_grad.cc
Status MatmulGrad(GradBuilder* g);
Status BiasAddGrad(GradBuilder* g);
Status SparseSoftmaxCrossEntropyGrad(GradBuilder* g);
Status SoftmaxGrad(GradBuilder* g);
Status LogSoftmaxGrad(GradBuilder* g);
Status LayerNormGrad(GradBuilder* g);
Status GatherGrad(GradBuilder* g);
Status EmbeddingGrad(GradBuilder* g);
Status NllLossGrad(GradBuilder* g);
Status CrossEntropyGrad(GradBuilder* g);

// shape_grad.cc
Status ReduceSumGrad(GradBuilder* g);
Status ReduceMeanGrad(GradBuilder* g);
Status ReshapeGrad(GradBuilder* g);
Status TransposeGrad(GradBuilder* g);
Status ReduceExtremumGrad(GradBuilder* g);  // reduce_max, reduce_min
Status ConcatGrad(GradBuilder* g);
Status SliceGrad(GradBuilder* g);
Status ExpandGrad(GradBuilder* g);
Status CumsumGrad(GradBuilder* g);
Status VarGrad(GradBuilder* g);  // var, std

}  // namespace op
}  // namespace tessera

#endif  // TESSERA_CORE_OP_OPS_GRAD_RULES_H_
