// Multi-rank tests of core/eager under mpirun with 1..4 ranks: creation (from a logical
// array, from locals, full, arange, rand), to_global across layouts and placements,
// to_host, and Apply on chains of ops whose SBPs must change. Oracles are plain loops
// over the logical values every rank builds itself; values are small integers (or
// multiples of 1/4), so float results are exact in any summation order.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "core/comm/mpi_world.h"
#include "core/eager/interpreter.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"
#include "tests/eager/loops.h"

namespace tessera::eager {
namespace {

using tensor::Arange;
using tensor::FromLocal;
using tensor::FromLogical;
using tensor::Full;
using tensor::Rand;
using tensor::Tensor;
using tensor::ToGlobal;
using tensor::ToHost;
using tensor::Zeros;

int WorldSize() { return comm::WorldSize().value(); }
int WorldRank() { return comm::WorldRank().value(); }

Placement WorldPlacement() {
  std::vector<int32_t> ranks(WorldSize());
  std::iota(ranks.begin(), ranks.end(), 0);
  return Placement::Make(DeviceType::kCpu, ranks, {static_cast<int64_t>(ranks.size())}).value();
}

Placement P(const std::string& text) { return Placement::Parse(text).value(); }
NdSbp S(const std::string& text) { return NdSbp::Parse(text).value(); }
Shape Sh(std::vector<int64_t> dims) { return Shape::Make(dims).value(); }

using eager_test::Iota;

std::vector<float> Host(const Tensor& t) {
  std::vector<float> out(t->shape().num_elements(), -12345.0f);
  Status s = ToHost(t, out.data());
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

// The layouts every test tries on the current world: 1-d over all ranks, and 2-d
// [[0,1],[2,3]] when the world has 4 ranks.
std::vector<std::pair<Placement, NdSbp>> Layouts2d() {
  Placement world = WorldPlacement();
  std::vector<std::pair<Placement, NdSbp>> out;
  for (const char* sbp : {"S(0)", "S(1)", "B", "P", "P(max)", "P(min)"}) {
    out.push_back({world, S(sbp)});
  }
  if (WorldSize() == 4) {
    Placement grid = P("cpu:[[0,1],[2,3]]");
    for (const char* sbp :
         {"(S(0), S(1))", "(S(1), S(1))", "(P, S(0))", "(B, P(max))", "(S(0), P(min))", "(P, P)"}) {
      out.push_back({grid, S(sbp)});
    }
  }
  if (WorldSize() >= 2) out.push_back({P("cpu:[1]"), S("B")});
  return out;
}

TEST(EagerTest, FromLogicalThenToHostGivesTheLogicalValueBack) {
  const Shape shape = Sh({5, 3});
  const std::vector<float> logical = Iota(15);
  for (const auto& [placement, sbp] : Layouts2d()) {
    SCOPED_TRACE(placement.ToString() + " " + sbp.ToString());
    Tensor t = FromLogical(logical.data(), shape, DType::kF32, placement, sbp).value();
    EXPECT_EQ(t->has_local(), placement.contains(WorldRank()));
    EXPECT_EQ(Host(t), logical);
  }
}

TEST(EagerTest, FullOnPartialLayoutsReducesToTheValue) {
  for (const auto& [placement, sbp] : Layouts2d()) {
    SCOPED_TRACE(placement.ToString() + " " + sbp.ToString());
    Tensor t = Full(Sh({4, 2}), DType::kF32, 2.5, placement, sbp).value();
    EXPECT_EQ(Host(t), std::vector<float>(8, 2.5f));
  }
}

TEST(EagerTest, RandIsTheSameLogicalTensorOnEveryLayout) {
  Tensor ref = Rand(Sh({7, 5}), DType::kF64, 11, P("cpu:[0]"), S("B")).value();
  std::vector<double> want(35);
  ASSERT_TRUE(ToHost(ref, want.data()).ok());
  for (const auto& [placement, sbp] : Layouts2d()) {
    SCOPED_TRACE(placement.ToString() + " " + sbp.ToString());
    Tensor t = Rand(Sh({7, 5}), DType::kF64, 11, placement, sbp).value();
    std::vector<double> got(35);
    ASSERT_TRUE(ToHost(t, got.data()).ok());
    EXPECT_EQ(got, want);
  }
  // Another seed gives another tensor.
  Tensor other = Rand(Sh({7, 5}), DType::kF64, 12, P("cpu:[0]"), S("B")).value();
  std::vector<double> got(35);
  ASSERT_TRUE(ToHost(other, got.data()).ok());
  EXPECT_NE(got, want);
}

TEST(EagerTest, ArangeHoldsStartPlusIndexTimesStep) {
  Tensor t = Arange(3, -8, -2, DType::kI64, WorldPlacement(), S("S(0)")).value();
  ASSERT_EQ(t->shape(), Sh({6}));
  std::vector<int64_t> got(6);
  ASSERT_TRUE(ToHost(t, got.data()).ok());
  EXPECT_EQ(got, (std::vector<int64_t>{3, 1, -1, -3, -5, -7}));
}

TEST(EagerTest, CreationRejectsBadArguments) {
  Placement world = WorldPlacement();
  Status s = Full(Sh({2}), DType::kI32, 0.5, world, S("B")).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("0.5"), std::string::npos) << s.message();
  s = Arange(0, 4, 0, DType::kF32, world, S("B")).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("step"), std::string::npos) << s.message();
  s = Arange(0, 4, 0.5, DType::kI32, world, S("B")).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  s = Rand(Sh({2}), DType::kI64, 1, world, S("B")).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("i64"), std::string::npos) << s.message();
  s = FromLogical(nullptr, Sh({2, 2}), DType::kF32, world, S("B")).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("NULL"), std::string::npos) << s.message();
  s = Zeros(Sh({2, 2}), DType::kF32, world, S("S(2)")).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

TEST(EagerTest, FromLocalInfersTheLogicalShapeOfUnevenShards) {
  const int n = WorldSize();
  const int rank = WorldRank();
  // 3n+1 rows: the balanced split gives rank 0 four rows and the others three.
  const int64_t rows = 3 * n + 1;
  const int64_t mine = rank == 0 ? 4 : 3;
  std::vector<float> local(mine * 2);
  const int64_t first = rank == 0 ? 0 : 4 + 3 * (rank - 1);
  for (int64_t i = 0; i < mine * 2; ++i) local[i] = static_cast<float>(first * 2 + i);
  Tensor t =
      FromLocal(local.data(), Sh({mine, 2}), DType::kF32, WorldPlacement(), S("S(0)"), nullptr)
          .value();
  ASSERT_EQ(t->shape(), Sh({rows, 2}));
  std::vector<float> want(rows * 2);
  std::iota(want.begin(), want.end(), 0.0f);
  EXPECT_EQ(Host(t), want);
}

TEST(EagerTest, FromLocalBroadcastTakesTheFirstRanksCopy) {
  std::vector<float> local(3, static_cast<float>(WorldRank() + 1));
  Tensor t =
      FromLocal(local.data(), Sh({3}), DType::kF32, WorldPlacement(), S("B"), nullptr).value();
  EXPECT_EQ(Host(t), std::vector<float>(3, 1.0f));
}

TEST(EagerTest, FromLocalRejectsShardsThatAreNotTheBalancedSplit) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs 2 ranks";
  // Rank 0 passes 1 row, the others 3: not a balanced split of 3n-2 rows.
  const int64_t mine = WorldRank() == 0 ? 1 : 3;
  std::vector<float> local(mine, 0.0f);
  Status s = FromLocal(local.data(), Sh({mine}), DType::kF32, WorldPlacement(), S("S(0)"), nullptr)
                 .status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("balanced split"), std::string::npos) << s.message();
  // Explicit logical shape: each rank checks its own piece, and the placement agrees on
  // the outcome, so every rank (not only rank 0) returns rank 0's error.
  const Shape logical = Sh({3 * WorldSize()});
  s = FromLocal(local.data(), Sh({mine}), DType::kF32, WorldPlacement(), S("S(0)"), &logical)
          .status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("from_local: rank 0's local shape [1] is not its part [3] of "
                             "logical shape [" +
                             std::to_string(3 * WorldSize()) + "]"),
            std::string::npos)
      << s.message();
}

TEST(EagerTest, ToGlobalMovesBetweenEveryPairOfLayouts) {
  const Shape shape = Sh({5, 3});
  const std::vector<float> logical = Iota(15);
  for (const auto& [p_in, s_in] : Layouts2d()) {
    Tensor x = FromLogical(logical.data(), shape, DType::kF32, p_in, s_in).value();
    for (const auto& [p_out, s_out] : Layouts2d()) {
      SCOPED_TRACE(p_in.ToString() + " " + s_in.ToString() + " -> " + p_out.ToString() + " " +
                   s_out.ToString());
      Result<Tensor> y = ToGlobal(x, p_out, s_out);
      ASSERT_TRUE(y.ok()) << y.status().ToString();
      EXPECT_EQ((*y)->placement(), p_out);
      EXPECT_EQ((*y)->nd_sbp(), s_out);
      EXPECT_EQ(Host(*y), logical);
    }
  }
}

// y = relu(x @ w1) @ w2 with x S(0) and both weights B, then w2 switched to S(0): the
// second matmul's signature changes and the interpreter boxes on its own.
TEST(EagerTest, MatmulChainMatchesLoops) {
  const int64_t n = 6, k = 4, h = 5, m = 3;
  std::vector<float> x = Iota(n * k), w1 = Iota(k * h, 0.5f), w2 = Iota(h * m, 1.0f);
  const std::vector<float> hidden = eager_test::ReluLoops(eager_test::MatmulLoops(x, w1, n, k, h));
  const std::vector<float> want = eager_test::MatmulLoops(hidden, w2, n, h, m);
  Placement world = WorldPlacement();
  Tensor tx = FromLogical(x.data(), Sh({n, k}), DType::kF32, world, S("S(0)")).value();
  Tensor tw1 = FromLogical(w1.data(), Sh({k, h}), DType::kF32, world, S("B")).value();
  for (const char* w2_sbp : {"B", "S(0)", "S(1)"}) {
    SCOPED_TRACE(std::string("w2 ") + w2_sbp);
    Tensor tw2 = FromLogical(w2.data(), Sh({h, m}), DType::kF32, world, S(w2_sbp)).value();
    Tensor t = Apply("matmul", {tx, tw1}).value()[0];
    t = Apply("relu", {t}).value()[0];
    t = Apply("matmul", {t, tw2}).value()[0];
    EXPECT_EQ(t->shape(), Sh({n, m}));
    EXPECT_EQ(Host(t), want);
  }
}

TEST(EagerTest, ReduceSumOverASplitAxisGivesAPartialThatGathersRight) {
  const std::vector<float> x = Iota(4 * 7);
  Tensor t = FromLogical(x.data(), Sh({4, 7}), DType::kF32, WorldPlacement(), S("S(1)")).value();
  Tensor sum = Apply("reduce_sum", {t}, op::AttrMap{{"axes", op::AttrValue::Ints({1})}}).value()[0];
  if (WorldSize() > 1) {
    EXPECT_EQ(sum->nd_sbp(), S("P"));
  }
  EXPECT_EQ(Host(sum), eager_test::RowSumLoops(x, 4, 7));
}

TEST(EagerTest, OpsOnASubsetPlacementLeaveOtherRanksWithMetadata) {
  const std::vector<float> x = Iota(6);
  Tensor t = FromLogical(x.data(), Sh({6}), DType::kF32, P("cpu:[0]"), S("B")).value();
  Tensor y = Apply("add", {t, t}).value()[0];
  EXPECT_EQ(y->has_local(), WorldRank() == 0);
  std::vector<float> want(6);
  for (int i = 0; i < 6; ++i) want[i] = 2 * x[i];
  EXPECT_EQ(Host(y), want);
}

TEST(EagerTest, OpsOnDifferentPlacementsNameBoth) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs 2 ranks";
  Tensor a = Zeros(Sh({2}), DType::kF32, P("cpu:[0]"), S("B")).value();
  Tensor b = Zeros(Sh({2}), DType::kF32, P("cpu:[1]"), S("B")).value();
  Status s = Apply("add", {a, b}).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("cpu:[0]"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("cpu:[1]"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("to_global"), std::string::npos) << s.message();
}

TEST(EagerTest, ApplyRejectsBadCalls) {
  Tensor a = Zeros(Sh({2}), DType::kF32, WorldPlacement(), S("B")).value();
  EXPECT_EQ(Apply("no_such_op", {a}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Apply("add", {a}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Apply("add", {a, nullptr}).status().code(), StatusCode::kInvalidArgument);
  Tensor b = Zeros(Sh({3}), DType::kF32, WorldPlacement(), S("B")).value();
  Status s = Apply("add", {a, b}).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("[3]"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tessera::eager
