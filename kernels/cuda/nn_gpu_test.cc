// layer_norm and bias_add on CUDA against the CPU kernels, on a GPU.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_test_util.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

using NnGpuTest = GpuTest;

TEST_F(NnGpuTest, LayerNormEveryNormAndParamsAxis) {
  std::mt19937 rng(37);
  struct Case {
    Shape x;
    int64_t norm, params;
    double epsilon;
  };
  const std::vector<Case> cases = {
      {Shape{3, 4}, -1, -1, 1e-5},    {Shape{2, 3, 4}, 1, 1, 1e-5},
      {Shape{2, 3, 4}, 1, 2, 1e-3},   {Shape{2, 3, 4}, 2, 1, 1e-5},
      {Shape{2, 3, 4}, 0, 0, 0.5},    {Shape{4, 0}, 1, 1, 1e-5},
      {Shape{64, 1000}, 1, 1, 1e-5},  {Shape{5, 70'000}, -1, -1, 1e-6},
      {Shape{20'000, 3}, 1, 1, 1e-5}, {Shape{7}, 0, 0, 1e-5},
  };
  for (DType dt : FloatTypes()) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(DTypeName(dt)) + " " + c.x.ToString() + " norm " +
                   std::to_string(c.norm) + " params " + std::to_string(c.params));
      const int p = static_cast<int>(c.params < 0 ? c.params + c.x.ndim() : c.params);
      const Shape ps = Shape::Make(c.x.data() + p, static_cast<size_t>(c.x.ndim() - p)).value();
      ExpectCudaMatchesCpu(
          "layer_norm",
          {Random(c.x, dt, &rng, -3, 5), Random(ps, dt, &rng, 0.5, 2), Random(ps, dt, &rng, -1, 1)},
          {{"begin_norm_axis", AttrValue::Int(c.norm)},
           {"begin_params_axis", AttrValue::Int(c.params)},
           {"epsilon", AttrValue::Float(c.epsilon)}},
          stream_);
    }
  }
}

TEST_F(NnGpuTest, BiasAddEveryAxisAndDtype) {
  std::mt19937 rng(41);
  struct Case {
    Shape a;
    int64_t axis;
  };
  const std::vector<Case> cases = {
      {Shape{3, 4}, 1}, {Shape{3, 4}, 0},       {Shape{2, 3, 4}, 1}, {Shape{2, 3, 4}, -1},
      {Shape{5}, 0},    {Shape{1001, 1003}, 1}, {Shape{0, 4}, 1},    {Shape{2, 0, 4}, 2},
  };
  for (DType dt : AllTypes()) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(DTypeName(dt)) + " " + c.a.ToString() + " axis " +
                   std::to_string(c.axis));
      const int axis = static_cast<int>(c.axis < 0 ? c.axis + c.a.ndim() : c.axis);
      ExpectCudaMatchesCpu(
          "bias_add",
          {Random(c.a, dt, &rng, -20, 20), Random(Shape{c.a.dim(axis)}, dt, &rng, -20, 20)},
          {{"axis", AttrValue::Int(c.axis)}}, stream_);
    }
  }
}

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
