// A 2-layer MLP trained with core/autograd, for the optimizer tests and bench:
//   logits = bias_add(matmul(relu(bias_add(matmul(x, W1), b1)), W2), b2)
//   loss   = reduce_mean(sparse_softmax_cross_entropy(logits, labels).out)
// and a naive reference of the same training in plain doubles: the forward and the
// hand-derived backward of this model, and PyTorch's documented update rules
// (torch.optim.SGD / Adam / AdamW), independent of the code under test.
#ifndef TESSERA_TESTS_OPTIM_MLP_H_
#define TESSERA_TESTS_OPTIM_MLP_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "core/autograd/variable.h"
#include "core/optim/options.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera::optim_test {

using Values = std::vector<std::vector<double>>;  // W1, b1, W2, b2, row-major

struct MlpConfig {
  explicit MlpConfig(Placement p) : placement(std::move(p)) {}

  int64_t batch = 8, in = 4, hidden = 6, classes = 3;
  DType dtype = DType::kF64;
  Placement placement;
  NdSbp data_sbp;                 // of x and labels
  std::vector<NdSbp> param_sbps;  // of W1, b1, W2, b2
};

// The world's ranks as a 1-d placement; data S(0), parameters B (data parallel).
MlpConfig DataParallel(DType dtype);

// Closed-form starting values.
Values InitialParams(const MlpConfig& c);

// What one ForwardBackward did, for tests of parallel styles: the loss and where
// inference put the partial results (the second matmul's output, and the nd-sbp the
// loss op boxed the logits into: P -> B or P -> S is an all-reduce or reduce-scatter).
struct StepRecord {
  double loss = 0;       // the whole value, on every rank
  NdSbp matmul2_sbp;     // matmul(h, W2)'s output
  NdSbp logits_sbp;      // bias_add's output
  NdSbp loss_input_sbp;  // what sparse_softmax_cross_entropy took the logits as
};

class Mlp {
 public:
  // Parameters from InitialParams, as leaves that require a gradient.
  static Result<Mlp> Make(const MlpConfig& c);
  // Forward and backward on step `step`'s batch (gradients accumulate into the leaves);
  // fills `record` when given (reading the loss is a collective over the world).
  Status ForwardBackward(int step, StepRecord* record = nullptr);
  // Step `step`'s batch: x [batch, in] and int32 labels [batch], in data_sbp.
  Result<std::pair<tensor::Tensor, tensor::Tensor>> Batch(int step) const;
  // The forward: the mean loss of batch (x, labels), recorded on the tape; fills
  // `record`'s nd-sbps (not its loss) when given. x and labels may be placeholders of a
  // plan capture (tests/plan/train_plan_test.cc).
  Result<autograd::Variable> Loss(const tensor::Tensor& x, const tensor::Tensor& labels,
                                  StepRecord* record = nullptr);
  // Whole logical values of the parameters (on every rank).
  Result<Values> ParamValues() const;
  std::vector<autograd::Variable*> Params();

  std::vector<autograd::Variable> params;
  MlpConfig config;
};

// The reference: `steps` steps of `options` from InitialParams, each with the batch of
// its step number (1, 2, ...).
Values ReferenceTraining(const MlpConfig& c, const optim::OptimizerOptions& options, int steps);

// Largest |a - b| / max(1, |b|) over every element.
double MaxRelativeError(const Values& a, const Values& b);

}  // namespace tessera::optim_test

#endif  // TESSERA_TESTS_OPTIM_MLP_H_
