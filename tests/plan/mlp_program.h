// The MLP forward the plan tests and benchmark share (~20 ops: matmul, bias_add,
// activations, a residual add, softmax), and an eager replay of any Program through
// eager::Apply, the independent path plan results are checked against.
#ifndef TESSERA_TESTS_PLAN_MLP_PROGRAM_H_
#define TESSERA_TESTS_PLAN_MLP_PROGRAM_H_

#include <cstdint>
#include <vector>

#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/plan/program.h"
#include "core/sbp/sbp.h"
#include "core/tensor/global_tensor.h"

namespace tessera::plan_test {

struct MlpConfig {
  Placement placement;
  // nd-sbps of the first two weights ([in, width] and [width, width]); the other weights
  // and every bias are broadcast.
  NdSbp w1_nd_sbp;
  NdSbp w2_nd_sbp;
  int64_t batch = 7;
  int64_t in = 6;
  int64_t width = 8;
  int64_t out = 5;
};

// All-B on every axis of `placement`.
NdSbp Broadcast(const Placement& placement);

// One data input "x" [batch, in] (default nd-sbp: S(0)), random variables, 20 ops; outputs
// the softmax and a value derived from it and the log-softmax.
Result<plan::Program> BuildMlp(const MlpConfig& config);

// The program's outputs computed op by op with eager::Apply (same attrs and constraints).
Result<std::vector<tensor::Tensor>> RunEager(const plan::Program& program,
                                             const std::vector<tensor::Tensor>& inputs);

}  // namespace tessera::plan_test

#endif  // TESSERA_TESTS_PLAN_MLP_PROGRAM_H_
