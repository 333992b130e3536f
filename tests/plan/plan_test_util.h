// Helpers the plan tests share: the world as a 1-d placement, nd-sbp parsing, gathering a
// tensor to the host and element-wise comparison with a tolerance.
#ifndef TESSERA_TESTS_PLAN_PLAN_TEST_UTIL_H_
#define TESSERA_TESTS_PLAN_PLAN_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/plan/program.h"
#include "core/sbp/sbp.h"
#include "core/tensor/global_tensor.h"
#include "tests/plan/mlp_program.h"

namespace tessera::plan_test {

int WorldSize();
int WorldRank();
// cpu:[0, ..., size-1].
Placement WorldPlacement();
NdSbp Nd(const char* text);

// The logical value of an f32 tensor (every rank calls it: it gathers).
std::vector<float> Host(const tensor::Tensor& t);
// Fails the current test at the first element further than `tolerance` from `want`.
void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, const char* what,
                float tolerance = 1e-5f);

// The MLP layouts the plan tests try, on the world's cpu placement: broadcast weights, and
// a split weight pair that forces boxing; with 4 ranks both again on [[0,1],[2,3]].
struct MlpCase {
  std::string name;
  MlpConfig config;
  bool expect_boxing = false;
};
std::vector<MlpCase> MlpCases();

// A random f32 tensor.
tensor::Tensor Data(const Shape& shape, uint64_t seed, const Placement& p, const NdSbp& nd);

// y = relu(x w + b) with a plain-loop oracle: x [m, k] the data input (S(0)), w [k, n] a
// variable split S(1) (so on more than one rank the plan boxes x to B before the matmul),
// b [n] broadcast. w and b hold fixed small values.
struct DenseLayer {
  int64_t m = 0, k = 0, n = 0;
  std::vector<float> w, b;
  plan::Program program;
  plan::ValueId x = -1;
  plan::ValueId y = -1;

  // The logical y for the logical x ([m, k] row-major), by plain loops.
  std::vector<float> Forward(const std::vector<float>& x) const;
};
Result<DenseLayer> MakeDenseLayer(const Placement& placement, int64_t m, int64_t k, int64_t n);

}  // namespace tessera::plan_test

#endif  // TESSERA_TESTS_PLAN_PLAN_TEST_UTIL_H_
