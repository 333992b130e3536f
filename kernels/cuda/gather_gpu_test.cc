// gather and embedding on CUDA against the CPU kernels, on a GPU (out-of-range indices:
// data_error_test.cc).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_test_util.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

using GatherGpuTest = GpuTest;

// Random params of rank 1 to 4 (extents 1 to 4), every axis, random index shapes of
// rank 0 to 3 (extents 0 to 3).
TEST_F(GatherGpuTest, RandomShapesEveryAxisAndDtype) {
  std::mt19937 rng(67);
  std::uniform_int_distribution<int> rank(1, 4), extent(1, 4), index_rank(0, 3), count(0, 3);
  for (int i = 0; i < 12; ++i) {
    std::vector<int64_t> pd(static_cast<size_t>(rank(rng)));
    for (int64_t& d : pd) d = extent(rng);
    std::vector<int64_t> id(static_cast<size_t>(index_rank(rng)));
    for (int64_t& d : id) d = count(rng);
    const Shape ps = Shape::Make(pd).value(), is = Shape::Make(id).value();
    for (int axis = -ps.ndim(); axis < ps.ndim(); ++axis) {
      const int ax = axis < 0 ? axis + ps.ndim() : axis;
      for (DType dt : AllTypes()) {
        for (DType it : IndexTypes()) {
          SCOPED_TRACE(std::string(DTypeName(dt)) + " params " + ps.ToString() + " indices " +
                       DTypeName(it) + " " + is.ToString() + " axis " + std::to_string(axis));
          ExpectCudaMatchesCpu("gather",
                               {Random(ps, dt, &rng, -50, 50),
                                Random(is, it, &rng, 0, static_cast<double>(ps.dim(ax) - 1))},
                               {{"axis", AttrValue::Int(axis)}}, stream_);
        }
      }
    }
  }
  // Many indices into a wide table.
  ExpectCudaMatchesCpu(
      "gather",
      {Random(Shape{1000, 513}, DType::kF32, &rng), Random(Shape{3001}, DType::kI64, &rng, 0, 999)},
      {}, stream_);
}

TEST_F(GatherGpuTest, EmbeddingLooksUpRows) {
  std::mt19937 rng(71);
  for (DType dt : AllTypes()) {
    for (DType it : IndexTypes()) {
      for (const Shape& is : {Shape{5}, Shape{2, 3}, Shape{}, Shape{0, 2}, Shape{20'000}}) {
        SCOPED_TRACE(std::string(DTypeName(dt)) + " indices " + DTypeName(it) + " " +
                     is.ToString());
        ExpectCudaMatchesCpu("embedding",
                             {Random(Shape{10, 7}, dt, &rng, -50, 50), Random(is, it, &rng, 0, 9)},
                             {}, stream_);
      }
    }
  }
  // A column shard of the table: [V, 0] still has V rows to index.
  ExpectCudaMatchesCpu(
      "embedding",
      {Random(Shape{10, 0}, DType::kF32, &rng), Random(Shape{3}, DType::kI32, &rng, 0, 9)}, {},
      stream_);
}

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
