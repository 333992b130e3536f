// The backward-only ops on CUDA against the CPU kernels, on a GPU.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_test_util.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

using GradGpuTest = GpuTest;

TEST_F(GradGpuTest, ElementwisePairs) {
  std::mt19937 rng(101);
  for (const Shape& s : {Shape{7}, Shape{3, 5}, Shape{}, Shape{0, 4}, Shape{70'001}}) {
    for (DType dt : FloatTypes()) {
      SCOPED_TRACE(std::string(DTypeName(dt)) + " " + s.ToString());
      const HostTensor x = Random(s, dt, &rng, -3, 3);
      const HostTensor dy = Random(s, dt, &rng);
      ExpectCudaMatchesCpu("relu_grad", {x, dy}, {}, stream_);
      ExpectCudaMatchesCpu("gelu_grad", {x, dy}, {}, stream_);
      ExpectCudaMatchesCpu("equal_mask", {x, x}, {}, stream_);
      ExpectCudaMatchesCpu("equal_mask", {x, dy}, {}, stream_);
      ExpectCudaMatchesCpu("xlogy", {x, Random(s, dt, &rng, 0.1, 4)}, {}, stream_);
    }
  }
  // relu_grad also takes integers.
  ExpectCudaMatchesCpu(
      "relu_grad",
      {Random(Shape{9}, DType::kI32, &rng, -5, 5), Random(Shape{9}, DType::kI32, &rng, -5, 5)}, {},
      stream_);
}

TEST_F(GradGpuTest, SparseSoftmaxCrossEntropyGrad) {
  std::mt19937 rng(103);
  for (DType dt : FloatTypes()) {
    for (DType it : IndexTypes()) {
      for (const Shape& batch : {Shape{5}, Shape{2, 3}, Shape{}, Shape{0}}) {
        std::vector<int64_t> dims = batch.ToVector();
        dims.push_back(7);
        ExpectCudaMatchesCpu("sparse_softmax_cross_entropy_grad",
                             {Random(Shape::Make(dims).value(), dt, &rng, 0, 1),
                              Random(batch, it, &rng, 0, 6), Random(batch, dt, &rng)},
                             {}, stream_);
      }
    }
  }
}

TEST_F(GradGpuTest, GatherGradAddsRepeatedRows) {
  std::mt19937 rng(107);
  for (DType dt : FloatTypes()) {
    for (DType it : IndexTypes()) {
      // Indices [2, 3] at axis 1 of dout [4, 2, 3, 5], into 6 rows; few rows, so many
      // repeats.
      ExpectCudaMatchesCpu(
          "gather_grad", {Random(Shape{4, 2, 3, 5}, dt, &rng), Random(Shape{2, 3}, it, &rng, 0, 5)},
          {{"axis", AttrValue::Int(1)}, {"size", AttrValue::Int(6)}}, stream_);
      // An embedding's gradient: 20000 lookups into 50 rows of 33.
      ExpectCudaMatchesCpu(
          "gather_grad",
          {Random(Shape{20'000, 33}, dt, &rng), Random(Shape{20'000}, it, &rng, 0, 49)},
          {{"axis", AttrValue::Int(0)}, {"size", AttrValue::Int(50)}}, stream_);
    }
  }
}

TEST_F(GradGpuTest, SliceGradPadsWithZeros) {
  std::mt19937 rng(109);
  for (DType dt : FloatTypes()) {
    ExpectCudaMatchesCpu("slice_grad", {Random(Shape{2, 3}, dt, &rng)},
                         {{"shape", AttrValue::Ints({5, 7})},
                          {"start", AttrValue::Ints({1, 2})},
                          {"step", AttrValue::Ints({2, 2})}},
                         stream_);
    ExpectCudaMatchesCpu("slice_grad", {Random(Shape{3, 4, 2}, dt, &rng)},
                         {{"shape", AttrValue::Ints({-1, 9, 2})},
                          {"start", AttrValue::Ints({0, 1, 0})},
                          {"step", AttrValue::Ints({1, 2, 1})}},
                         stream_);
  }
}

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
