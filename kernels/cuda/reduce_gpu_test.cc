// reduce_* on CUDA (row and column layouts) against the CPU kernels, on a GPU.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_test_util.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

using ReduceGpuTest = GpuTest;

struct ReduceCase {
  Shape x;
  std::vector<int64_t> axes;
};

std::vector<ReduceCase> ReduceCases() {
  std::vector<ReduceCase> cases;
  // The CPU tests' axis sets over small shapes, size-1 and empty axes included.
  for (const Shape& shape : {Shape{2, 3, 4}, Shape{3, 1, 5}, Shape{2, 0, 3}}) {
    for (const std::vector<int64_t>& axes : std::vector<std::vector<int64_t>>{
             {}, {0}, {1}, {2}, {-1}, {0, 2}, {1, 2}, {2, 0, 1}, {0, 1}, {-3}}) {
      cases.push_back({shape, axes});
    }
  }
  // Rows and columns bigger than a block, a grid, and 32-wide column groups.
  cases.push_back({Shape{}, {}});
  cases.push_back({Shape{1001, 1003}, {1}});
  cases.push_back({Shape{1001, 1003}, {0}});
  cases.push_back({Shape{3, 100'003}, {1}});
  cases.push_back({Shape{100'003, 3}, {0}});
  cases.push_back({Shape{20'000, 3}, {1}});
  cases.push_back({Shape{1'000'003}, {}});
  cases.push_back({Shape{17, 33, 65}, {0, 2}});
  cases.push_back({Shape{17, 33, 65}, {1}});
  return cases;
}

void CheckReduce(const char* op, const std::vector<DType>& dtypes, cudaStream_t stream) {
  std::mt19937 rng(23);
  for (DType dt : dtypes) {
    for (const ReduceCase& c : ReduceCases()) {
      for (bool keepdims : {false, true}) {
        SCOPED_TRACE(std::string(op) + " " + DTypeName(dt) + " " + c.x.ToString() + " axes " +
                     IntsString(c.axes) + (keepdims ? " keepdims" : ""));
        ExpectCudaMatchesCpu(
            op, {Random(c.x, dt, &rng, -50, 50)},
            {{"axes", AttrValue::Ints(c.axes)}, {"keepdims", AttrValue::Bool(keepdims)}}, stream);
      }
    }
  }
}

TEST_F(ReduceGpuTest, SumEveryDtypeAndAxisSet) { CheckReduce("reduce_sum", AllTypes(), stream_); }
TEST_F(ReduceGpuTest, MaxEveryDtypeAndAxisSet) { CheckReduce("reduce_max", AllTypes(), stream_); }
TEST_F(ReduceGpuTest, MinEveryDtypeAndAxisSet) { CheckReduce("reduce_min", AllTypes(), stream_); }
TEST_F(ReduceGpuTest, MeanFloatingTypes) { CheckReduce("reduce_mean", FloatTypes(), stream_); }

TEST_F(ReduceGpuTest, NaNPropagatesAndIntegerSumsWrap) {
  for (DType dt : FloatTypes()) {
    const HostTensor x = FromValues(Shape{3, 3}, dt, {1, kNaN, 2, -kInf, 0, 5, kInf, 3, -kInf});
    for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"}) {
      for (int64_t axis : {0, 1}) {
        SCOPED_TRACE(std::string(op) + " " + DTypeName(dt) + " axis " + std::to_string(axis));
        ExpectCudaMatchesCpu(op, {x}, {{"axes", AttrValue::Ints({axis})}}, stream_);
      }
    }
  }
  const HostTensor big = FromValues(Shape{3}, DType::kI32, {2147483647.0, 2147483647.0, 5});
  ExpectCudaMatchesCpu("reduce_sum", {big}, {}, stream_);
}

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
