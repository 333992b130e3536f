// Parallel training by SBP alone (issue 17, item 4): the same MLP (tests/optim/mlp.h)
// trained data parallel, tensor parallel (Megatron's MLP) and both at once on a 2-d
// hierarchy, each against the same model trained on the one-rank placement cpu:[0]
// (every rank runs that reference SPMD; ranks outside it hold metadata only). Only the
// parameters' and the batch's nd-sbps differ between the runs; inference inserts the
// collectives. The per-step loss curves and the final parameters must agree to the
// order of float sums, with AdamW per tensor and fused, in f64 and f32; the f64
// reference itself is checked against the plain-double training of mlp.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "core/comm/mpi_world.h"
#include "core/optim/optimizer.h"
#include "tests/optim/mlp.h"

namespace tessera::optim_test {
namespace {

constexpr int kSteps = 4;

struct Style {
  std::string name;
  MlpConfig config;
  int data_axis = -1;    // the hierarchy axis the batch is split on, -1 for none
  int tensor_axis = -1;  // the hierarchy axis the hidden layer is split on, -1 for none
};

NdSbp Parse(const char* text) { return NdSbp::Parse(text).value(); }

MlpConfig Layout(DType dtype, std::vector<int64_t> hierarchy, const char* data,
                 std::vector<const char*> params) {
  std::vector<int32_t> ranks(comm::WorldSize().value());
  std::iota(ranks.begin(), ranks.end(), 0);
  MlpConfig c(Placement::Make(DeviceType::kCpu, ranks, hierarchy).value());
  c.dtype = dtype;
  c.data_sbp = Parse(data);
  for (const char* p : params) c.param_sbps.push_back(Parse(p));
  return c;
}

// The three styles at the world's size n (2-d: [2,2] at 4 ranks, else [n,1] and [1,n]).
std::vector<Style> Styles(DType dtype) {
  const int64_t n = comm::WorldSize().value();
  std::vector<Style> styles;
  styles.push_back({"data parallel", Layout(dtype, {n}, "S(0)", {"B", "B", "B", "B"}), 0, -1});
  styles.push_back(
      {"tensor parallel", Layout(dtype, {n}, "B", {"S(1)", "S(0)", "S(0)", "B"}), -1, 0});
  std::vector<std::vector<int64_t>> grids;
  if (n == 4) {
    grids = {{2, 2}};
  } else {
    grids = {{n, 1}, {1, n}};
  }
  for (const std::vector<int64_t>& g : grids) {
    styles.push_back(
        {"2-d [" + std::to_string(g[0]) + "," + std::to_string(g[1]) + "]",
         Layout(dtype, g, "(S(0), B)", {"(B, S(1))", "(B, S(0))", "(B, S(0))", "(B, B)"}), 0, 1});
  }
  return styles;
}

MlpConfig OneRank(DType dtype) {
  MlpConfig c(Placement::Make(DeviceType::kCpu, {0}, {1}).value());
  c.dtype = dtype;
  c.data_sbp = Parse("B");
  c.param_sbps.assign(4, Parse("B"));
  return c;
}

optim::OptimizerOptions AdamW(bool fused) {
  optim::OptimizerOptions o;
  o.algorithm = optim::Algorithm::kAdamW;
  o.lr = 0.05;
  o.weight_decay = 0.01;
  o.fused = fused;
  o.bucket_bytes = 200;  // several buckets
  return o;
}

struct Run {
  std::vector<StepRecord> steps;
  Values params;
  std::vector<NdSbp> grad_sbps;  // per tensor: the first backward's gradients
  int64_t allreduces_in_backward = 0;
};

Result<Run> Train(const MlpConfig& c, const optim::OptimizerOptions& o) {
  TESS_ASSIGN_OR_RETURN(Mlp mlp, Mlp::Make(c));
  TESS_ASSIGN_OR_RETURN(std::unique_ptr<optim::Optimizer> opt,
                        optim::Optimizer::Create(mlp.Params(), o));
  Run run;
  for (int t = 1; t <= kSteps; ++t) {
    TESS_RETURN_IF_ERROR(opt->ZeroGrad());
    StepRecord r;
    TESS_RETURN_IF_ERROR(mlp.ForwardBackward(t, &r));
    if (t == 1 && !o.fused) {  // fused mode moves gradients into its buckets
      for (const autograd::Variable& p : mlp.params)
        run.grad_sbps.push_back(p.meta->grad->nd_sbp());
    }
    TESS_RETURN_IF_ERROR(opt->Step());
    run.steps.push_back(r);
  }
  TESS_ASSIGN_OR_RETURN(run.params, mlp.ParamValues());
  run.allreduces_in_backward = opt->overlap_stats().started_in_backward;
  return run;
}

double MaxLossDifference(const Run& a, const Run& b) {
  double worst = 0;
  for (int t = 0; t < kSteps; ++t) {
    const double x = a.steps[t].loss, y = b.steps[t].loss;
    worst = std::max(worst, std::abs(x - y) / std::max(1.0, std::abs(y)));
  }
  return worst;
}

// The collectives inference chose, checked where the axis has more than one rank.
void ExpectCollectives(const Style& s, const Run& run) {
  const std::vector<int64_t>& h = s.config.placement.hierarchy();
  const StepRecord& r = run.steps[0];
  for (int axis = 0; axis < static_cast<int>(h.size()); ++axis) {
    if (h[axis] == 1) continue;
    SCOPED_TRACE("hierarchy axis " + std::to_string(axis));
    if (axis == s.tensor_axis) {
      // matmul(h S(1), W2 S(0)) is a partial sum of the logits, which the loss op
      // takes whole (an all-reduce to B) or by rows (a reduce-scatter to S(0), the
      // labels then sliced locally).
      EXPECT_EQ(r.matmul2_sbp[axis], Sbp::PartialSum()) << r.matmul2_sbp.ToString();
      EXPECT_FALSE(r.loss_input_sbp[axis].is_partial()) << r.loss_input_sbp.ToString();
    }
    for (size_t k = 0; k < run.grad_sbps.size(); ++k) {
      SCOPED_TRACE("gradient " + std::to_string(k) + ": " + run.grad_sbps[k].ToString());
      // Over the data axis every gradient is a partial sum (of the ranks' rows), which
      // the optimizer all-reduces over that axis' ranks. (Over the tensor axis it
      // depends on the rank count: the backward of the row-split loss may compute a
      // sharded weight's gradient as P too, and the optimizer then reduces it.)
      if (axis == s.data_axis) {
        EXPECT_EQ(run.grad_sbps[k][axis], Sbp::PartialSum());
      }
    }
    if (axis == s.data_axis) {
      // Split batch: the logits stay split by rows, and no boxing feeds the loss.
      EXPECT_EQ(r.matmul2_sbp[axis], Sbp::Split(0)) << r.matmul2_sbp.ToString();
      EXPECT_EQ(r.loss_input_sbp[axis], Sbp::Split(0)) << r.loss_input_sbp.ToString();
    }
  }
}

std::string GradText(const Run& run) {
  std::string s;
  for (const NdSbp& g : run.grad_sbps) s += (s.empty() ? "" : " ") + g.ToString();
  return s.empty() ? "(in buckets)" : s;
}

void CompareStyles(DType dtype, double tolerance) {
  const int n = comm::WorldSize().value();
  for (bool fused : {false, true}) {
    const optim::OptimizerOptions o = AdamW(fused);
    Result<Run> want = Train(OneRank(dtype), o);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    if (dtype == DType::kF64) {
      // The reference against plain-double arithmetic (independent of Tessera).
      EXPECT_LE(MaxRelativeError(want->params, ReferenceTraining(OneRank(dtype), o, kSteps)),
                1e-12);
    }
    // Training moved: the curves compared below are not constant.
    EXPECT_GT(MaxRelativeError(want->params, InitialParams(OneRank(dtype))), 1e-3);
    EXPECT_NE(want->steps.front().loss, want->steps.back().loss);
    for (const Style& s : Styles(dtype)) {
      SCOPED_TRACE(s.name + (fused ? ", fused" : ", per tensor") + ", " + DTypeName(dtype));
      Result<Run> got = Train(s.config, o);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      const double loss_diff = MaxLossDifference(*got, *want);
      const double param_diff = MaxRelativeError(got->params, want->params);
      EXPECT_LE(loss_diff, tolerance);
      EXPECT_LE(param_diff, tolerance);
      ExpectCollectives(s, *got);
      // With the batch split over more than one rank, the weight gradients come out
      // partial over those ranks and the fused buckets all-reduce them during backward.
      // (Tensor parallelism alone has some too: the loss op takes the logits by rows,
      // so b2's gradient, a sum over rows, is partial.)
      const std::vector<int64_t>& h = s.config.placement.hierarchy();
      if (fused && s.data_axis >= 0 && h[s.data_axis] > 1) {
        EXPECT_GT(got->allreduces_in_backward, 0);
      }
      if (comm::WorldRank().value() == 0) {
        printf(
            "[styles] ranks=%d style=%s %s %s: max loss diff %.3g, max param diff %.3g; "
            "logits %s -> loss op %s; gradients %s\n",
            n, s.name.c_str(), fused ? "fused" : "per-tensor", DTypeName(dtype), loss_diff,
            param_diff, got->steps[0].matmul2_sbp.ToString().c_str(),
            got->steps[0].loss_input_sbp.ToString().c_str(), GradText(*got).c_str());
      }
    }
  }
}

TEST(ParallelStylesTest, F64CurvesMatchTheOneRankRun) { CompareStyles(DType::kF64, 1e-9); }

TEST(ParallelStylesTest, F32CurvesMatchTheOneRankRun) { CompareStyles(DType::kF32, 1e-5); }

}  // namespace
}  // namespace tessera::optim_test
