// Optimizers on a 2-d placement (4 ranks as 2 x 2): data parallel on axis 0, the MLP's
// hidden layer split on axis 1 (W1 by columns, b1 and W2 by rows), so gradients are
// P(sum) on axis 0 only for some parameters and split on axis 1; the fused buckets
// reduce over axis 0's ranks alone. Both modes against the naive reference (mlp.h).
#include <gtest/gtest.h>

#include "core/comm/mpi_world.h"
#include "core/optim/optimizer.h"
#include "tests/optim/mlp.h"

namespace tessera::optim_test {
namespace {

MlpConfig TwoD(DType dtype) {
  MlpConfig c(Placement::Make(DeviceType::kCpu, {0, 1, 2, 3}, {2, 2}).value());
  c.dtype = dtype;
  c.data_sbp = NdSbp::Parse("(S(0), B)").value();
  c.param_sbps = {NdSbp::Parse("(B, S(1))").value(), NdSbp::Parse("(B, S(0))").value(),
                  NdSbp::Parse("(B, S(0))").value(), NdSbp::Parse("(B, B)").value()};
  return c;
}

TEST(Optimizer2dTest, DataAndModelParallelMatchTheReference) {
  if (comm::WorldSize().value() != 4) GTEST_SKIP() << "needs 4 ranks";
  for (optim::Algorithm a : {optim::Algorithm::kSgd, optim::Algorithm::kAdamW}) {
    optim::OptimizerOptions o;
    o.algorithm = a;
    o.lr = a == optim::Algorithm::kSgd ? 0.3 : 0.05;
    o.momentum = a == optim::Algorithm::kSgd ? 0.9 : 0;
    o.weight_decay = 0.01;
    const MlpConfig c = TwoD(DType::kF64);
    const Values want = ReferenceTraining(c, o, 3);
    for (int mode = 0; mode < 3; ++mode) {
      const bool fused = mode > 0;
      SCOPED_TRACE(std::string(optim::AlgorithmName(a)) + (mode == 0   ? " per-tensor"
                                                           : mode == 1 ? " fused"
                                                                       : " fused zero1"));
      o.fused = fused;
      o.zero1 = mode == 2;
      o.bucket_bytes = 200;
      Result<Mlp> mlp = Mlp::Make(c);
      ASSERT_TRUE(mlp.ok()) << mlp.status().ToString();
      auto opt = optim::Optimizer::Create(mlp->Params(), o);
      ASSERT_TRUE(opt.ok()) << opt.status().ToString();
      for (int t = 1; t <= 3; ++t) {
        ASSERT_TRUE((*opt)->ZeroGrad().ok());
        Status s = mlp->ForwardBackward(t);
        ASSERT_TRUE(s.ok()) << s.ToString();
        s = (*opt)->Step();
        ASSERT_TRUE(s.ok()) << s.ToString();
      }
      Result<Values> got = mlp->ParamValues();
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_LE(MaxRelativeError(*got, want), 1e-10);
      EXPECT_GT(MaxRelativeError(*got, InitialParams(c)), 1e-3);
      if (mode >= 1) {  // all-reduces, or ZeRO-1's reduce-scatters, from the hooks
        EXPECT_GT((*opt)->overlap_stats().started_in_backward, 0);
      }
    }
  }
}

}  // namespace
}  // namespace tessera::optim_test
