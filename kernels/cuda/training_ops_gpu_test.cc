// The ops added for training (issue 17, item 8) on CUDA against the CPU kernels, on a
// GPU: expand and the reshapes, comparisons and where (bool), argmax, cumsum, var, std,
// nll_loss and cross_entropy.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_test_util.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

using TrainingOpsGpuTest = GpuTest;

std::vector<DType> AllWithBool() {
  std::vector<DType> v = AllTypes();
  v.push_back(DType::kBool);
  return v;
}

TEST_F(TrainingOpsGpuTest, ExpandAndReshapes) {
  std::mt19937 rng(61);
  for (DType dt : AllWithBool()) {
    SCOPED_TRACE(DTypeName(dt));
    const HostTensor x = Random(Shape{3, 1, 5}, dt, &rng, -9, 9);
    ExpectCudaMatchesCpu("expand", {x}, {{"shape", AttrValue::Ints({2, 3, 4, 5})}}, stream_);
    ExpectCudaMatchesCpu("expand", {Random(Shape{1}, dt, &rng, -9, 9)},
                         {{"shape", AttrValue::Ints({700, 300})}}, stream_);
    ExpectCudaMatchesCpu("squeeze", {x}, {}, stream_);
    ExpectCudaMatchesCpu("unsqueeze", {x}, {{"axis", AttrValue::Int(-1)}}, stream_);
    ExpectCudaMatchesCpu("flatten", {x}, {{"start_axis", AttrValue::Int(1)}}, stream_);
  }
}

TEST_F(TrainingOpsGpuTest, ComparisonsAndWhereEveryDtype) {
  std::mt19937 rng(67);
  for (DType dt : AllWithBool()) {
    for (const char* op :
         {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}) {
      SCOPED_TRACE(std::string(op) + " " + DTypeName(dt));
      ExpectCudaMatchesCpu(
          op, {Random(Shape{4, 1, 6}, dt, &rng, -2, 2), Random(Shape{5, 1}, dt, &rng, -2, 2)}, {},
          stream_);
    }
    SCOPED_TRACE(std::string("where ") + DTypeName(dt));
    ExpectCudaMatchesCpu("where",
                         {Random(Shape{4, 1, 6}, DType::kBool, &rng), Random(Shape{5, 1}, dt, &rng),
                          Random(Shape{6}, dt, &rng)},
                         {}, stream_);
  }
  for (DType dt : FloatTypes()) {
    const HostTensor x = FromValues(Shape{3}, dt, {kNaN, 1, kNaN});
    const HostTensor y = FromValues(Shape{3}, dt, {kNaN, kNaN, 2});
    for (const char* op : {"equal", "not_equal", "less_equal"}) {
      ExpectCudaMatchesCpu(op, {x, y}, {}, stream_);
    }
  }
}

TEST_F(TrainingOpsGpuTest, ArgmaxCumsumVarStd) {
  std::mt19937 rng(71);
  for (DType dt : AllTypes()) {
    for (int64_t axis : {0, 1, -1}) {
      SCOPED_TRACE(std::string(DTypeName(dt)) + " axis " + std::to_string(axis));
      const HostTensor x = Random(Shape{5, 7, 3}, dt, &rng, -3, 3);
      ExpectCudaMatchesCpu("argmax", {x}, {{"axis", AttrValue::Int(axis)}}, stream_);
      ExpectCudaMatchesCpu("cumsum", {x}, {{"axis", AttrValue::Int(axis)}}, stream_);
    }
  }
  for (DType dt : FloatTypes()) {
    ExpectCudaMatchesCpu("argmax", {FromValues(Shape{2, 3}, dt, {1, kNaN, kNaN, 2, 5, 5})}, {},
                         stream_);
    for (const std::vector<int64_t>& axes : std::vector<std::vector<int64_t>>{{}, {1}, {0, 2}}) {
      for (int64_t correction : {0, 1, 40}) {
        SCOPED_TRACE(std::string(DTypeName(dt)) + " axes " + IntsString(axes));
        const AttrMap attrs{{"axes", AttrValue::Ints(axes)},
                            {"correction", AttrValue::Int(correction)}};
        const HostTensor x = Random(Shape{5, 7, 3}, dt, &rng, -3, 3);
        ExpectCudaMatchesCpu("var", {x}, attrs, stream_);
        ExpectCudaMatchesCpu("std", {x}, attrs, stream_);
      }
    }
  }
}

TEST_F(TrainingOpsGpuTest, LossesEveryReduction) {
  std::mt19937 rng(73);
  for (DType dt : FloatTypes()) {
    for (DType it : IndexTypes()) {
      for (int64_t rows : {0, 1, 300}) {
        for (int64_t reduction : {0, 1, 2}) {
          SCOPED_TRACE(std::string(DTypeName(dt)) + " " + DTypeName(it) + " rows " +
                       std::to_string(rows) + " reduction " + std::to_string(reduction));
          const AttrMap attrs{{"reduction", AttrValue::Int(reduction)}};
          const std::vector<HostTensor> in = {Random(Shape{rows, 9}, dt, &rng, -3, 3),
                                              Random(Shape{rows}, it, &rng, 0, 8)};
          ExpectCudaMatchesCpu("nll_loss", in, attrs, stream_);
          ExpectCudaMatchesCpu("cross_entropy", in, attrs, stream_);
        }
      }
    }
  }
}

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
