// Optimizers (core/optim) training a 2-layer MLP with core/autograd, data parallel on
// every rank of the world (weights B, batch S(0)), against a naive reference of the same
// training (mlp.h: hand-derived gradients and PyTorch's update rules). The reference
// does not depend on the rank count, so matching it at 1 and 3 ranks also shows that
// data parallelism changes nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/autograd/backward.h"
#include "core/op/op_registry.h"
#include "core/optim/optimizer.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"
#include "tests/optim/mlp.h"

namespace tessera::optim_test {
namespace {

using optim::Algorithm;
using optim::Optimizer;
using optim::OptimizerOptions;

constexpr int kSteps = 4;

OptimizerOptions Sgd() {
  OptimizerOptions o;
  o.algorithm = Algorithm::kSgd;
  o.lr = 0.3;
  o.momentum = 0.9;
  o.dampening = 0.1;
  o.weight_decay = 0.01;
  return o;
}
OptimizerOptions Nesterov() {
  OptimizerOptions o = Sgd();
  o.dampening = 0;
  o.nesterov = true;
  return o;
}
OptimizerOptions Adam(Algorithm a) {
  OptimizerOptions o;
  o.algorithm = a;
  o.lr = 0.05;
  o.beta1 = 0.8;
  o.beta2 = 0.95;
  o.eps = 1e-6;
  o.weight_decay = 0.1;
  return o;
}

// kSteps steps of `o` on the MLP of `c`; the parameters at the end.
Result<Values> Train(const MlpConfig& c, const OptimizerOptions& o, int steps = kSteps) {
  TESS_ASSIGN_OR_RETURN(Mlp mlp, Mlp::Make(c));
  TESS_ASSIGN_OR_RETURN(auto opt, Optimizer::Create(mlp.Params(), o));
  for (int t = 1; t <= steps; ++t) {
    TESS_RETURN_IF_ERROR(opt->ZeroGrad());
    TESS_RETURN_IF_ERROR(mlp.ForwardBackward(t));
    TESS_RETURN_IF_ERROR(opt->Step());
  }
  for (size_t i = 0; i < opt->num_params(); ++i) {
    if (opt->step_count(i) != steps) return Internal("a parameter missed a step");
  }
  return mlp.ParamValues();
}

void ExpectMatchesReference(const MlpConfig& c, const OptimizerOptions& o, double tolerance) {
  const Values want = ReferenceTraining(c, o, kSteps);
  for (int mode = 0; mode < 3; ++mode) {
    SCOPED_TRACE(mode == 0 ? "per-tensor" : mode == 1 ? "fused" : "fused, progress thread");
    OptimizerOptions f = o;
    f.fused = mode > 0;
    f.progress_thread = mode == 2;
    f.bucket_bytes = 100;  // several buckets: W1 (24 elements) alone, b1 + W2 ...
    Result<Values> got = Train(c, f);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_LE(MaxRelativeError(*got, want), tolerance);
    // The parameters moved: the comparison is not of starting values.
    EXPECT_GT(MaxRelativeError(*got, InitialParams(c)), 1e-3);
  }
}

TEST(OptimizerTest, SgdMatchesTorchRules) {
  ExpectMatchesReference(DataParallel(DType::kF64), Sgd(), 1e-10);
  ExpectMatchesReference(DataParallel(DType::kF64), Nesterov(), 1e-10);
  ExpectMatchesReference(DataParallel(DType::kF32), Sgd(), 2e-5);
}

TEST(OptimizerTest, AdamAndAdamWMatchTorchRules) {
  ExpectMatchesReference(DataParallel(DType::kF64), Adam(Algorithm::kAdam), 1e-9);
  ExpectMatchesReference(DataParallel(DType::kF64), Adam(Algorithm::kAdamW), 1e-9);
  ExpectMatchesReference(DataParallel(DType::kF32), Adam(Algorithm::kAdamW), 1e-4);
}

TEST(OptimizerTest, FusedAndPerTensorAgreeForEveryBucketSize) {
  const MlpConfig c = DataParallel(DType::kF64);
  OptimizerOptions o = Adam(Algorithm::kAdam);
  Result<Values> per_tensor = Train(c, o);
  ASSERT_TRUE(per_tensor.ok()) << per_tensor.status().ToString();
  o.fused = true;
  for (int64_t bytes : {int64_t{1}, int64_t{200}, int64_t{1} << 20}) {
    o.bucket_bytes = bytes;
    Result<Values> fused = Train(c, o);
    ASSERT_TRUE(fused.ok()) << fused.status().ToString();
    EXPECT_LE(MaxRelativeError(*fused, *per_tensor), 1e-12) << "bucket_bytes " << bytes;
  }
}

// ZeRO-1: each data-parallel rank keeps a third of the state at 3 ranks; the parameters
// come out as without it (and as the reference).
TEST(OptimizerTest, Zero1MatchesUnshardedWithLessState) {
  const MlpConfig c = DataParallel(DType::kF64);
  for (OptimizerOptions o : {Sgd(), Adam(Algorithm::kAdam), Adam(Algorithm::kAdamW)}) {
    SCOPED_TRACE(optim::AlgorithmName(o.algorithm));
    o.fused = true;
    o.bucket_bytes = 200;
    int64_t state_bytes[2] = {0, 0};
    Values results[2];
    for (int zero1 = 0; zero1 < 2; ++zero1) {
      o.zero1 = zero1 == 1;
      Result<Mlp> mlp = Mlp::Make(c);
      ASSERT_TRUE(mlp.ok());
      auto opt = Optimizer::Create(mlp->Params(), o);
      ASSERT_TRUE(opt.ok()) << opt.status().ToString();
      for (int t = 1; t <= kSteps; ++t) {
        ASSERT_TRUE((*opt)->ZeroGrad().ok());
        ASSERT_TRUE(mlp->ForwardBackward(t).ok());
        Status s = (*opt)->Step();
        ASSERT_TRUE(s.ok()) << s.ToString();
      }
      results[zero1] = mlp->ParamValues().value();
      state_bytes[zero1] = (*opt)->overlap_stats().state_bytes;
      // Over several ranks the reductions (all-reduce or reduce-scatter) start in backward.
      if (c.placement.parallel_num() > 1) {
        EXPECT_GT((*opt)->overlap_stats().started_in_backward, 0);
      }
    }
    EXPECT_LE(MaxRelativeError(results[1], results[0]), 1e-12);
    EXPECT_LE(MaxRelativeError(results[1], ReferenceTraining(c, o, kSteps)), 1e-9);
    const int64_t n = c.placement.parallel_num();
    // Even slices, each rounded up to whole 8-byte words per bucket.
    EXPECT_LE(state_bytes[1], state_bytes[0] / n + 64) << "ranks " << n;
    if (n > 1) {
      EXPECT_LT(state_bytes[1], state_bytes[0]);
    }
  }
}

TEST(OptimizerTest, FusedReportsItsBuckets) {
  Result<Mlp> mlp = Mlp::Make(DataParallel(DType::kF32));
  ASSERT_TRUE(mlp.ok());
  OptimizerOptions o = Sgd();
  o.fused = true;
  auto opt = Optimizer::Create(mlp->Params(), o);
  ASSERT_TRUE(opt.ok()) << opt.status().ToString();
  // One bucket (every parameter is f32 on the same placement and B, 25 MiB).
  EXPECT_EQ((*opt)->overlap_stats().buckets, 1);
  // The parameters are views of it now, each with the optimizer's hook.
  for (const autograd::Variable& p : mlp->params) {
    EXPECT_TRUE(p.value->is_view());
    EXPECT_EQ(p.meta->hooks.size(), 1u);
  }
  ASSERT_TRUE(mlp->ForwardBackward(1).ok());
  ASSERT_TRUE((*opt)->Step().ok());
  const optim::OverlapStats s = (*opt)->overlap_stats();
  // Over several ranks the gradients are P on the data-parallel axis: the bucket's
  // all-reduce started from the last hook of backward. On one rank inference makes
  // them B: nothing to reduce.
  EXPECT_EQ(s.started_in_backward, mlp->config.placement.parallel_num() > 1 ? 1 : 0);
  EXPECT_EQ(s.run_in_step, 0);
  EXPECT_GE(s.hidden_fraction(), 0);
  EXPECT_LE(s.hidden_fraction(), 1);
  // Destroying the optimizer takes its hooks off; the parameters keep their values.
  const Values before = mlp->ParamValues().value();
  opt->reset();
  for (const autograd::Variable& p : mlp->params) EXPECT_TRUE(p.meta->hooks.empty());
  EXPECT_EQ(mlp->ParamValues().value(), before);
}

// Parameters of two dtypes under one optimizer: each (dtype, placement, nd-sbp) gets
// buckets of its own, and both models train as the reference says.
TEST(OptimizerTest, MixedDtypesGetBucketsOfTheirOwn) {
  const MlpConfig c32 = DataParallel(DType::kF32), c64 = DataParallel(DType::kF64);
  OptimizerOptions o = Adam(Algorithm::kAdamW);
  o.fused = true;
  Result<Mlp> m32 = Mlp::Make(c32), m64 = Mlp::Make(c64);
  ASSERT_TRUE(m32.ok() && m64.ok());
  std::vector<autograd::Variable*> params = m32->Params();
  for (autograd::Variable* p : m64->Params()) params.push_back(p);
  auto opt = Optimizer::Create(params, o);
  ASSERT_TRUE(opt.ok()) << opt.status().ToString();
  EXPECT_EQ((*opt)->overlap_stats().buckets, 2);
  for (int t = 1; t <= kSteps; ++t) {
    ASSERT_TRUE((*opt)->ZeroGrad().ok());
    ASSERT_TRUE(m32->ForwardBackward(t).ok());
    ASSERT_TRUE(m64->ForwardBackward(t).ok());
    ASSERT_TRUE((*opt)->Step().ok());
  }
  EXPECT_LE(MaxRelativeError(m32->ParamValues().value(), ReferenceTraining(c32, o, kSteps)), 1e-4);
  EXPECT_LE(MaxRelativeError(m64->ParamValues().value(), ReferenceTraining(c64, o, kSteps)), 1e-9);
}

// Gradient accumulation: two backward passes without ZeroGrad between them, in both
// modes, give the summed gradient (the fused buckets restart their round).
TEST(OptimizerTest, AccumulatedGradientsAgree) {
  const MlpConfig c = DataParallel(DType::kF64);
  Values results[2];
  for (int fused = 0; fused < 2; ++fused) {
    Result<Mlp> mlp = Mlp::Make(c);
    ASSERT_TRUE(mlp.ok());
    OptimizerOptions o = Sgd();
    o.fused = fused == 1;
    auto opt = Optimizer::Create(mlp->Params(), o);
    ASSERT_TRUE(opt.ok());
    for (int t = 1; t <= 2; ++t) {
      ASSERT_TRUE((*opt)->ZeroGrad().ok());
      ASSERT_TRUE(mlp->ForwardBackward(t).ok());
      ASSERT_TRUE(mlp->ForwardBackward(t + 10).ok());
      ASSERT_TRUE((*opt)->Step().ok());
    }
    results[fused] = mlp->ParamValues().value();
  }
  EXPECT_LE(MaxRelativeError(results[1], results[0]), 1e-12);
  EXPECT_GT(MaxRelativeError(results[0], InitialParams(c)), 1e-3);
}

// A parameter no backward reached is skipped (state and step count unchanged), as
// PyTorch skips a .grad of None; the others are updated.
TEST(OptimizerTest, ParametersWithoutGradientAreSkipped) {
  const MlpConfig c = DataParallel(DType::kF64);
  for (bool fused : {false, true}) {
    SCOPED_TRACE(fused ? "fused" : "per-tensor");
    Result<Mlp> mlp = Mlp::Make(c);
    ASSERT_TRUE(mlp.ok());
    // An extra parameter that the model never uses.
    auto extra_t = tensor::Full(Shape{3}, DType::kF64, 1.0, c.placement, NdSbp(Sbp::Broadcast()));
    ASSERT_TRUE(extra_t.ok());
    autograd::Variable extra = autograd::MakeLeaf(*extra_t).value();
    std::vector<autograd::Variable*> params = mlp->Params();
    params.insert(params.begin() + 1, &extra);
    OptimizerOptions o = Adam(Algorithm::kAdamW);
    o.fused = fused;
    auto opt = Optimizer::Create(params, o);
    ASSERT_TRUE(opt.ok()) << opt.status().ToString();
    for (int t = 1; t <= kSteps; ++t) {
      ASSERT_TRUE((*opt)->ZeroGrad().ok());
      ASSERT_TRUE(mlp->ForwardBackward(t).ok());
      ASSERT_TRUE((*opt)->Step().ok());
    }
    EXPECT_EQ((*opt)->step_count(1), 0);
    EXPECT_EQ((*opt)->step_count(0), kSteps);
    std::vector<double> e(3, -1);
    ASSERT_TRUE(tensor::ToHost(extra.value, e.data()).ok());
    // Unchanged: an update would at least have decayed it (AdamW's weight decay).
    EXPECT_EQ(e, std::vector<double>(3, 1.0));
    // The rest trained exactly as without the extra parameter.
    EXPECT_LE(MaxRelativeError(mlp->ParamValues().value(), ReferenceTraining(c, o, kSteps)), 1e-9);
  }
}

TEST(OptimizerTest, BadOptionsAreRejectedByName) {
  Result<Mlp> mlp = Mlp::Make(DataParallel(DType::kF32));
  ASSERT_TRUE(mlp.ok());
  auto message = [&](OptimizerOptions o) {
    auto r = Optimizer::Create(mlp->Params(), o);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    return r.status().message();
  };
  OptimizerOptions o;
  o.lr = -0.1;
  EXPECT_EQ(message(o), "OptimizerOptions: lr is -0.1; expected a finite value >= 0");
  o = Adam(Algorithm::kAdam);
  o.beta1 = 1;
  EXPECT_EQ(message(o), "OptimizerOptions: beta1 is 1; expected a value in [0, 1)");
  o.beta1 = 0.9;
  o.beta2 = -0.5;
  EXPECT_EQ(message(o), "OptimizerOptions: beta2 is -0.5; expected a value in [0, 1)");
  o.beta2 = 0.9;
  o.eps = -1;
  EXPECT_EQ(message(o), "OptimizerOptions: eps is -1; expected a finite value >= 0");
  o = Sgd();
  o.nesterov = true;
  EXPECT_EQ(message(o),
            "OptimizerOptions: nesterov is true with momentum 0.9 and dampening 0.1; Nesterov "
            "momentum needs momentum > 0 and dampening 0");
  o = Sgd();
  o.momentum = -1;
  EXPECT_EQ(message(o), "OptimizerOptions: momentum is -1; expected a finite value >= 0");
  o = Sgd();
  o.bucket_bytes = 0;
  EXPECT_EQ(message(o), "OptimizerOptions: bucket_bytes is 0; expected >= 1");
  o = Sgd();
  o.zero1 = true;
  EXPECT_EQ(message(o),
            "OptimizerOptions: zero1 is true with fused false; ZeRO-1 shards the fused buckets' "
            "state, so it needs fused = true");
  o = Sgd();
  o.progress_thread = true;
  EXPECT_EQ(message(o),
            "OptimizerOptions: progress_thread is true with fused false; only fused mode starts "
            "all-reduces during backward");
  o = Sgd();
  o.algorithm = static_cast<Algorithm>(7);
  EXPECT_EQ(message(o),
            "OptimizerOptions: algorithm is 7; expected 0 (sgd), 1 (adam) or 2 (adamw)");
}

// SetLr between steps, in both modes: two steps at 0.3 match the reference, then at
// lr 0 a step moves nothing (lr scales SGD's whole update, decay and momentum
// included); a bad rate is refused and changes nothing.
TEST(OptimizerTest, SetLrChangesTheNextSteps) {
  const MlpConfig c = DataParallel(DType::kF64);
  for (bool fused : {false, true}) {
    SCOPED_TRACE(fused ? "fused" : "per-tensor");
    OptimizerOptions o = Sgd();
    o.fused = fused;
    Result<Mlp> mlp = Mlp::Make(c);
    ASSERT_TRUE(mlp.ok());
    auto opt = Optimizer::Create(mlp->Params(), o);
    ASSERT_TRUE(opt.ok());
    for (int t = 1; t <= 2; ++t) {
      ASSERT_TRUE((*opt)->ZeroGrad().ok());
      ASSERT_TRUE(mlp->ForwardBackward(t).ok());
      ASSERT_TRUE((*opt)->Step().ok());
    }
    const Values after_two = mlp->ParamValues().value();
    EXPECT_LE(MaxRelativeError(after_two, ReferenceTraining(c, o, 2)), 1e-10);
    Status bad = (*opt)->SetLr(-1);
    EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(bad.message(), "Optimizer::SetLr: lr is -1; expected a finite value >= 0");
    EXPECT_EQ((*opt)->options().lr, o.lr);
    ASSERT_TRUE((*opt)->SetLr(0).ok());
    ASSERT_TRUE((*opt)->ZeroGrad().ok());
    ASSERT_TRUE(mlp->ForwardBackward(3).ok());
    ASSERT_TRUE((*opt)->Step().ok());
    EXPECT_EQ(mlp->ParamValues().value(), after_two);
  }
}

TEST(OptimizerTest, BadParametersAreRejectedByIndex) {
  Result<Mlp> mlp = Mlp::Make(DataParallel(DType::kF32));
  ASSERT_TRUE(mlp.ok());
  auto message = [&](std::vector<autograd::Variable*> params) {
    auto r = Optimizer::Create(params, OptimizerOptions{});
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    return r.status().message();
  };
  std::vector<autograd::Variable*> params = mlp->Params();
  params[2] = nullptr;
  EXPECT_EQ(message(params), "Optimizer: parameter 2 is null");
  autograd::Variable plain = autograd::Detach(mlp->params[0]);
  params = {&mlp->params[1], &plain};
  EXPECT_EQ(message(params), "Optimizer: parameter 1 ([4,6] f32 " +
                                 mlp->config.placement.ToString() +
                                 " B) does not require a gradient; only leaves that do are "
                                 "optimized");
  // The output of a recorded op (its record has a grad_fn): "not a leaf", not "does not
  // require a gradient".
  std::vector<autograd::Variable> outs;
  ASSERT_TRUE(
      autograd::Apply(*op::OpRegistry::Global().Find("relu").value(), &mlp->params[0], 1, {}, &outs)
          .ok());
  params = {&outs[0]};
  EXPECT_EQ(message(params), "Optimizer: parameter 0 ([4,6] f32 " +
                                 mlp->config.placement.ToString() +
                                 " B) is the result of an op, not a leaf; detach it first");
  params = {&mlp->params[1], &mlp->params[0], &mlp->params[1]};
  EXPECT_EQ(message(params),
            "Optimizer: parameter 2 is listed twice (the same Variable record appears earlier)");
}

}  // namespace
}  // namespace tessera::optim_test
