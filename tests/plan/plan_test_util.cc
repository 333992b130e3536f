#include "tests/plan/plan_test_util.h"

#include <gtest/gtest.h>

#include <numeric>

#include "core/comm/mpi_world.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"
#include "tests/plan/mlp_program.h"

namespace tessera::plan_test {

int WorldSize() { return comm::WorldSize().value(); }
int WorldRank() { return comm::WorldRank().value(); }

Placement WorldPlacement() {
  std::vector<int32_t> ranks(static_cast<size_t>(WorldSize()));
  std::iota(ranks.begin(), ranks.end(), 0);
  return Placement::Make(DeviceType::kCpu, ranks, {WorldSize()}).value();
}

NdSbp Nd(const char* text) { return NdSbp::Parse(text).value(); }

std::vector<float> Host(const tensor::Tensor& t) {
  std::vector<float> v(static_cast<size_t>(t->shape().num_elements()));
  Status s = tensor::ToHost(t, v.data());
  EXPECT_TRUE(s.ok()) << s.ToString();
  return v;
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, const char* what,
                float tolerance) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tolerance) << what << " element " << i;
  }
}

std::vector<MlpCase> MlpCases() {
  const Placement p = WorldPlacement();
  std::vector<MlpCase> cases = {
      {"broadcast weights 1-d", MlpConfig{p, Broadcast(p), Broadcast(p)}, false},
      {"split weight pair 1-d", MlpConfig{p, Nd("S(1)"), Nd("S(0)")}, true},
  };
  if (WorldSize() == 4) {
    const Placement grid = Placement::Parse("cpu:[[0,1],[2,3]]").value();
    cases.push_back(
        {"broadcast weights 2-d", MlpConfig{grid, Broadcast(grid), Broadcast(grid)}, false});
    cases.push_back(
        {"split weight pair 2-d", MlpConfig{grid, Nd("(B, S(1))"), Nd("(B, S(0))")}, true});
  }
  return cases;
}

tensor::Tensor Data(const Shape& shape, uint64_t seed, const Placement& p, const NdSbp& nd) {
  return tensor::Randn(shape, DType::kF32, seed, p, nd).value();
}

std::vector<float> DenseLayer::Forward(const std::vector<float>& xv) const {
  std::vector<float> out(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = b[j];
      for (int64_t t = 0; t < k; ++t) acc += xv[i * k + t] * w[t * n + j];
      out[i * n + j] = acc > 0 ? acc : 0;
    }
  }
  return out;
}

Result<DenseLayer> MakeDenseLayer(const Placement& p, int64_t m, int64_t k, int64_t n) {
  DenseLayer d;
  d.m = m;
  d.k = k;
  d.n = n;
  d.w.resize(static_cast<size_t>(k * n));
  d.b.resize(static_cast<size_t>(n));
  for (size_t i = 0; i < d.w.size(); ++i) d.w[i] = 0.5f * static_cast<float>(i % 5) - 1.0f;
  for (size_t i = 0; i < d.b.size(); ++i) d.b[i] = 0.25f * static_cast<float>(i);
  TESS_ASSIGN_OR_RETURN(d.x, d.program.AddInput("x", Shape({m, k}), DType::kF32, p));
  TESS_ASSIGN_OR_RETURN(tensor::Tensor w,
                        tensor::FromLogical(d.w.data(), Shape({k, n}), DType::kF32, p, Nd("S(1)")));
  TESS_ASSIGN_OR_RETURN(tensor::Tensor b,
                        tensor::FromLogical(d.b.data(), Shape({n}), DType::kF32, p, Broadcast(p)));
  TESS_ASSIGN_OR_RETURN(plan::ValueId wi, d.program.AddVariable("w", w));
  TESS_ASSIGN_OR_RETURN(plan::ValueId bi, d.program.AddVariable("b", b));
  TESS_ASSIGN_OR_RETURN(std::vector<plan::ValueId> h, d.program.AddOp("matmul", {d.x, wi}));
  TESS_ASSIGN_OR_RETURN(h, d.program.AddOp("bias_add", {h[0], bi}));
  TESS_ASSIGN_OR_RETURN(h, d.program.AddOp("relu", {h[0]}));
  d.y = h[0];
  TESS_RETURN_IF_ERROR(d.program.MarkOutput(d.y));
  return d;
}

}  // namespace tessera::plan_test
