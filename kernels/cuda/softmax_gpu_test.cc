// softmax, log_softmax and sparse_softmax_cross_entropy on CUDA against the CPU
// kernels, on a GPU.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_test_util.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

using SoftmaxGpuTest = GpuTest;

TEST_F(SoftmaxGpuTest, EveryAxisRowsAndColumns) {
  std::mt19937 rng(29);
  struct Case {
    Shape x;
    int64_t axis;
  };
  const std::vector<Case> cases = {
      {Shape{3, 4}, -1},   {Shape{3, 4}, 0},       {Shape{2, 3, 4}, 1},   {Shape{2, 3, 4}, 0},
      {Shape{2, 0, 4}, 1}, {Shape{7}, 0},          {Shape{5, 3000}, -1},  {Shape{3000, 5}, 0},
      {Shape{1, 1}, 1},    {Shape{2, 70, 130}, 1}, {Shape{20'000, 3}, 1},
  };
  for (const char* op : {"softmax", "log_softmax"}) {
    for (DType dt : FloatTypes()) {
      for (const Case& c : cases) {
        SCOPED_TRACE(std::string(op) + " " + DTypeName(dt) + " " + c.x.ToString() + " axis " +
                     std::to_string(c.axis));
        ExpectCudaMatchesCpu(op, {Random(c.x, dt, &rng, -20, 20)},
                             {{"axis", AttrValue::Int(c.axis)}}, stream_);
      }
    }
  }
}

TEST_F(SoftmaxGpuTest, LargeLogitsAndNonFiniteRows) {
  for (DType dt : FloatTypes()) {
    // Rows: large logits; a NaN; +inf; only -inf; -inf beside finite values.
    const HostTensor x =
        FromValues(Shape{5, 3}, dt,
                   {1000, 999, -1000, 1, kNaN, 2, kInf, 0, 1, -kInf, -kInf, -kInf, -kInf, 0, 1});
    for (const char* op : {"softmax", "log_softmax"}) {
      for (int64_t axis : {0, 1}) {
        SCOPED_TRACE(std::string(op) + " " + DTypeName(dt) + " axis " + std::to_string(axis));
        ExpectCudaMatchesCpu(op, {x}, {{"axis", AttrValue::Int(axis)}}, stream_);
      }
    }
  }
}

TEST_F(SoftmaxGpuTest, SparseCrossEntropyProbAndLoss) {
  std::mt19937 rng(31);
  for (DType dt : FloatTypes()) {
    for (DType it : IndexTypes()) {
      for (const Shape& pred :
           {Shape{3, 4}, Shape{2, 3, 5}, Shape{0, 4}, Shape{7}, Shape{1000, 1000}, Shape{5, 1}}) {
        SCOPED_TRACE(std::string(DTypeName(dt)) + " labels " + DTypeName(it) + " " +
                     pred.ToString());
        const Shape batch = Shape::Make(pred.data(), static_cast<size_t>(pred.ndim() - 1)).value();
        const HostTensor labels =
            Random(batch, it, &rng, 0, static_cast<double>(pred.dim(pred.ndim() - 1) - 1));
        ExpectCudaMatchesCpu("sparse_softmax_cross_entropy",
                             {Random(pred, dt, &rng, -20, 20), labels}, {}, stream_);
      }
    }
  }
  // A vanishing probability still gives a finite loss.
  for (DType dt : FloatTypes()) {
    ExpectCudaMatchesCpu(
        "sparse_softmax_cross_entropy",
        {FromValues(Shape{1, 2}, dt, {1000, -1000}), FromValues(Shape{1}, DType::kI32, {1})}, {},
        stream_);
  }
}

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
