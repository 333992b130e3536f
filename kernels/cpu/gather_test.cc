// gather and embedding against index-mapping loops; out-of-range indices.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_test_util.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// out[params idx before axis, indices idx, params idx after axis] =
// params[..., indices[indices idx], ...].
std::vector<double> GatherRef(const HostTensor& params, const HostTensor& indices, int axis,
                              const Shape& out) {
  const int ni = indices.shape().ndim();
  std::vector<double> ref;
  for (int64_t e = 0; e < out.num_elements(); ++e) {
    std::vector<int64_t> o = Unravel(e, out);
    std::vector<int64_t> ii(o.begin() + axis, o.begin() + axis + ni);
    std::vector<int64_t> p(o.begin(), o.begin() + axis);
    p.push_back(static_cast<int64_t>(indices.Get(Ravel(ii, indices.shape()))));
    p.insert(p.end(), o.begin() + axis + ni, o.end());
    ref.push_back(params.Get(Ravel(p, params.shape())));
  }
  return ref;
}

TEST(GatherKernelTest, EveryAxisIndexRankAndDtype) {
  std::mt19937 rng(67);
  const Shape ps{4, 3, 2};
  for (DType dt : AllTypes()) {
    for (DType it : IndexTypes()) {
      for (int axis = -3; axis < 3; ++axis) {
        const int ax = axis < 0 ? axis + 3 : axis;
        for (const Shape& is : {Shape{2}, Shape{2, 3}, Shape{}, Shape{0}}) {
          SCOPED_TRACE(std::string(DTypeName(dt)) + " indices " + DTypeName(it) + " " +
                       is.ToString() + " axis " + std::to_string(axis));
          HostTensor params = Random(ps, dt, &rng, -50, 50);
          HostTensor indices = Random(is, it, &rng, 0, static_cast<double>(ps.dim(ax) - 1));
          auto out = RunOp("gather", {params, indices}, {{"axis", AttrValue::Int(axis)}});
          ASSERT_TRUE(out.ok()) << out.status().ToString();
          ExpectValues((*out)[0], GatherRef(params, indices, ax, (*out)[0].shape()));
        }
      }
    }
  }
}

TEST(GatherKernelTest, DefaultAxisIsZeroAndRepeatsAreFine) {
  HostTensor params = FromValues(Shape{3, 2}, DType::kF32, {0, 1, 10, 11, 20, 21});
  HostTensor indices = FromValues(Shape{4}, DType::kI64, {2, 0, 2, 1});
  ExpectValues((*RunOp("gather", {params, indices}))[0], {20, 21, 0, 1, 20, 21, 10, 11});
}

TEST(GatherKernelTest, OutOfRangeIndicesAreNamed) {
  HostTensor params(Shape{4, 3}, DType::kF32);
  HostTensor out(Shape{2, 2, 3}, DType::kF32);
  EXPECT_EQ(
      ErrorOf("gather", {params, FromValues(Shape{2, 2}, DType::kI32, {0, 1, 4, 2})}, {}, {out}),
      "gather: indices[1,0] = 4 is outside [0, 4), axis 0 of \"params\" [4,3]");
  EXPECT_EQ(
      ErrorOf("gather", {params, FromValues(Shape{2, 2}, DType::kI64, {0, -1, 1, 2})}, {}, {out}),
      "gather: indices[0,1] = -1 is outside [0, 4), axis 0 of \"params\" [4,3]");
  EXPECT_EQ(ErrorOf("gather", {params, FromValues(Shape{2}, DType::kI64, {0, 3})},
                    {{"axis", AttrValue::Int(1)}}, {HostTensor(Shape{4, 2}, DType::kF32)}),
            "gather: indices[1] = 3 is outside [0, 3), axis 1 of \"params\" [4,3]");
  EXPECT_EQ(ErrorOf("gather", {params, HostTensor(Shape{2}, DType::kF32)}, {},
                    {HostTensor(Shape{2, 3}, DType::kF32)}),
            "gather: input \"indices\" has dtype f32; the cpu kernel supports i32, i64");
  EXPECT_EQ(ErrorOf("gather", {params, FromValues(Shape{2}, DType::kI32, {0, 1})}, {},
                    {HostTensor(Shape{2, 4}, DType::kF32)}),
            "gather: output \"out\" is [2,4] f32 but the inputs give [2,3] f32");
}

TEST(EmbeddingKernelTest, LooksUpRows) {
  std::mt19937 rng(71);
  for (DType dt : AllTypes()) {
    for (DType it : IndexTypes()) {
      for (const Shape& is : {Shape{2, 3}, Shape{5}, Shape{}, Shape{0, 2}}) {
        SCOPED_TRACE(std::string(DTypeName(dt)) + " indices " + DTypeName(it) + " " +
                     is.ToString());
        HostTensor weight = Random(Shape{10, 4}, dt, &rng, -50, 50);
        HostTensor indices = Random(is, it, &rng, 0, 9);
        auto out = RunOp("embedding", {weight, indices});
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        ExpectValues((*out)[0], GatherRef(weight, indices, 0, (*out)[0].shape()));
      }
    }
  }
}

TEST(EmbeddingKernelTest, ColumnShardAndBadIndices) {
  // weight split along D: a local [10, 0] shard still checks its indices.
  HostTensor shard(Shape{10, 0}, DType::kF32);
  HostTensor indices = FromValues(Shape{2}, DType::kI32, {3, 10});
  EXPECT_EQ(ErrorOf("embedding", {shard, indices}, {}, {HostTensor(Shape{2, 0}, DType::kF32)}),
            "embedding: indices[1] = 10 is outside [0, 10), the rows of \"weight\" [10,0]");
  EXPECT_EQ(ErrorOf("embedding", {HostTensor(Shape{10}, DType::kF32), indices}, {},
                    {HostTensor(Shape{2, 1}, DType::kF32)}),
            "embedding: input \"weight\" has shape [10]; expected 2 dims [V, D]");
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
