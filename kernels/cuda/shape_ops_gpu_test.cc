// transpose, reshape, concat and slice on CUDA against the CPU kernels, on a GPU.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_test_util.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

using ShapeOpsGpuTest = GpuTest;

TEST_F(ShapeOpsGpuTest, TransposeEveryPermutationAndSize) {
  std::mt19937 rng(53);
  struct Case {
    Shape x;
    std::vector<int64_t> perm;
  };
  std::vector<Case> cases = {
      {Shape{3, 4}, {1, 0}},
      {Shape{2, 1, 3, 1}, {3, 2, 1, 0}},
      {Shape{}, {}},
      {Shape{0, 3}, {1, 0}},
      {Shape{513, 1025}, {1, 0}},
      {Shape{5}, {0}},
      {Shape{2, 3, 4, 5, 2}, {4, 0, 3, 1, 2}},
  };
  for (const std::vector<int64_t>& perm : std::vector<std::vector<int64_t>>{
           {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}) {
    cases.push_back({Shape{2, 3, 4}, perm});
  }
  for (DType dt : AllTypes()) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(DTypeName(dt)) + " " + c.x.ToString() + " perm " +
                   IntsString(c.perm));
      ExpectCudaMatchesCpu("transpose", {Random(c.x, dt, &rng, -50, 50)},
                           {{"perm", AttrValue::Ints(c.perm)}}, stream_);
    }
  }
}

TEST_F(ShapeOpsGpuTest, ReshapeCopiesInRowMajorOrder) {
  std::mt19937 rng(57);
  for (DType dt : AllTypes()) {
    ExpectCudaMatchesCpu("reshape", {Random(Shape{3, 4}, dt, &rng, -50, 50)},
                         {{"shape", AttrValue::Ints({2, 6})}}, stream_);
    ExpectCudaMatchesCpu("reshape", {Random(Shape{2, 3, 4}, dt, &rng, -50, 50)},
                         {{"shape", AttrValue::Ints({-1})}}, stream_);
    ExpectCudaMatchesCpu("reshape", {Random(Shape{0, 3}, dt, &rng, -50, 50)},
                         {{"shape", AttrValue::Ints({3, 0})}}, stream_);
  }
}

TEST_F(ShapeOpsGpuTest, ConcatAlongEveryAxis) {
  std::mt19937 rng(59);
  struct Case {
    std::vector<Shape> ins;
    int64_t axis;
  };
  const std::vector<Case> cases = {
      {{Shape{2, 3}, Shape{4, 3}, Shape{1, 3}}, 0},
      {{Shape{2, 3}, Shape{2, 1}, Shape{2, 5}}, 1},
      {{Shape{2, 3, 2}, Shape{2, 3, 1}}, -1},
      {{Shape{2, 3, 2}, Shape{2, 0, 2}, Shape{2, 4, 2}}, 1},
      {{Shape{3, 2}}, 0},
      {{Shape{0, 2}, Shape{0, 3}}, 1},
      {{Shape{1000, 300}, Shape{1000, 1}, Shape{1000, 777}}, 1},
  };
  for (DType dt : AllTypes()) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(DTypeName(dt)) + " " + c.ins[0].ToString() + " x" +
                   std::to_string(c.ins.size()) + " axis " + std::to_string(c.axis));
      std::vector<HostTensor> ins;
      for (const Shape& s : c.ins) ins.push_back(Random(s, dt, &rng, -50, 50));
      ExpectCudaMatchesCpu("concat", ins, {{"axis", AttrValue::Int(c.axis)}}, stream_);
    }
  }
}

TEST_F(ShapeOpsGpuTest, SliceStepsNegativePositionsAndClamping) {
  std::mt19937 rng(61);
  struct Case {
    Shape x;
    std::vector<int64_t> start, stop, step;
  };
  const std::vector<Case> cases = {
      {Shape{5, 6}, {1, 0}, {4, 6}, {1, 1}},  // whole rows: one contiguous run
      {Shape{5, 6}, {0, 1}, {5, 6}, {2, 3}},
      {Shape{5, 6}, {-3, -100}, {-1, 100}, {1, 2}},
      {Shape{5, 6}, {4, 0}, {2, 6}, {1, 1}},
      {Shape{5, 6}, {7, 0}, {9, 6}, {1, 1}},
      {Shape{2, 3, 4}, {0, 1, 1}, {2, 3, 4}, {1, 1, 2}},
      {Shape{2, 3, 4}, {1, 0, 0}, {2, 3, 4}, {1, 1, 1}},
      {Shape{0, 3}, {0, 0}, {0, 3}, {1, 1}},
      {Shape{}, {}, {}, {}},
      {Shape{7}, {-7}, {7}, {7}},
      {Shape{1000, 1001}, {3, 5}, {999, 1000}, {2, 3}},
  };
  for (DType dt : AllTypes()) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(DTypeName(dt)) + " " + c.x.ToString() + " start " +
                   IntsString(c.start) + " stop " + IntsString(c.stop) + " step " +
                   IntsString(c.step));
      ExpectCudaMatchesCpu("slice", {Random(c.x, dt, &rng, -50, 50)},
                           {{"start", AttrValue::Ints(c.start)},
                            {"stop", AttrValue::Ints(c.stop)},
                            {"step", AttrValue::Ints(c.step)}},
                           stream_);
    }
  }
}

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
