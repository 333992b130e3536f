// Multi-rank tests of eager tensors on cuda placements (--config=cuda only), under
// mpirun with 1..4 ranks. Every rank drives local device local_rank % device count, so
// several ranks may share one GPU. Without a GPU the GPU cases print "SKIPPED: no CUDA
// device visible", and one case checks the error a cuda placement gives then.
//
// Oracles: plain loops over the logical values every rank builds itself, and, for a
// rank's piece (which a P layout does not fix from the logical value alone), the piece
// of the cpu placement with the same ranks (tests/eager:eager_test checks those against
// loops). Values are multiples of 1/4, so f32 sums are exact in any order.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/eager/interpreter.h"
#include "core/tensor/counter_rng.h"
#include "core/tensor/creation.h"
#include "core/tensor/cuda_device.h"
#include "core/tensor/global_cast.h"
#include "kernels/cuda/cuda_test_util.h"
#include "tests/eager/cuda_test_device.h"
#include "tests/eager/loops.h"
#include "tests/eager/world_util.h"

namespace tessera::eager {
namespace {

using tensor::Arange;
using tensor::CounterNormal;
using tensor::CounterUniform;
using tensor::CounterUniformF32;
using tensor::CudaDevice;
using tensor::FromLocal;
using tensor::FromLogical;
using tensor::Full;
using tensor::LocalCudaDevice;
using tensor::Ones;
using tensor::Rand;
using tensor::Randn;
using tensor::Tensor;
using tensor::ToGlobal;
using tensor::ToHost;
using tensor::Zeros;

using eager_test::ExpectedDevice;
using eager_test::Iota;
using eager_test::RanksPlacement;
using eager_test::WorldRank;
using eager_test::WorldSize;

Placement P(const std::string& text) { return Placement::Parse(text).value(); }
NdSbp S(const std::string& text) { return NdSbp::Parse(text).value(); }
Shape Sh(std::vector<int64_t> dims) { return Shape::Make(dims).value(); }

Placement CudaWorld() { return RanksPlacement(0, WorldSize(), DeviceType::kCuda); }
Placement CpuWorld() { return RanksPlacement(0, WorldSize()); }

// The placement with the same ranks and hierarchy on the other device type.
Placement OnDevice(const Placement& p, DeviceType device) {
  return Placement::Make(device, p.ranks(), p.hierarchy()).value();
}

template <typename T = float>
std::vector<T> Host(const Tensor& t) {
  std::vector<T> out(t->shape().num_elements(), T(-12345));
  Status s = ToHost(t, out.data());
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

// This rank's piece, read through CopyLocalToHost (empty off the placement).
std::vector<float> Piece(const Tensor& t) {
  std::vector<float> out(t->has_local() ? t->local_shape().num_elements() : 0, -12345.0f);
  Status s = t->CopyLocalToHost(out.data());
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

// The layouts every test tries, on cuda: 1-d over all ranks with every sbp, 2-d
// [[0,1],[2,3]] on 4 ranks, and a one-rank subset when the world has 2 or more.
std::vector<std::pair<Placement, NdSbp>> CudaLayouts() {
  const Placement world = CudaWorld();
  std::vector<std::pair<Placement, NdSbp>> out;
  for (const char* sbp : {"S(0)", "S(1)", "B", "P", "P(max)", "P(min)"}) {
    out.push_back({world, S(sbp)});
  }
  if (WorldSize() == 4) {
    const Placement grid = P("cuda:[[0,1],[2,3]]");
    for (const char* sbp : {"(S(0), S(1))", "(S(1), S(1))", "(P, S(0))", "(B, P(max))", "(P, P)"}) {
      out.push_back({grid, S(sbp)});
    }
  }
  if (WorldSize() >= 2) out.push_back({P("cuda:[1]"), S("B")});
  return out;
}

std::string Describe(const Placement& p, const NdSbp& s) {
  return p.ToString() + " " + s.ToString();
}

TEST(CudaEagerTest, WithoutAGpuCudaPlacementsAreUnavailableOnEveryRank) {
  if (kernels::cuda::VisibleGpus() > 0) GTEST_SKIP() << "a GPU is visible";
  Status s = Full(Sh({2}), DType::kF32, 1.0, CudaWorld(), S("B")).status();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_NE(s.message().find("no CUDA device visible"), std::string::npos) << s.message();
  // A move to a placement that holds only rank 0: rank 0 fails, the others learn of it
  // instead of waiting in the boxing.
  Tensor c = Ones(Sh({3}), DType::kF32, CpuWorld(), S("B")).value();
  s = ToGlobal(c, P("cuda:[0]"), S("B")).status();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  // The world is still in step.
  EXPECT_EQ(Host(c), std::vector<float>(3, 1.0f));
}

TEST(CudaEagerTest, PiecesLiveOnTheRanksDevice) {
  TESS_SKIP_WITHOUT_GPU();
  Tensor t = Full(Sh({5, 3}), DType::kF32, 1.5, CudaWorld(), S("S(0)")).value();
  ASSERT_TRUE(t->has_local());
  ASSERT_NE(t->cuda_device(), nullptr);
  EXPECT_EQ(t->cuda_device()->index, ExpectedDevice());
  cudaPointerAttributes attributes;
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, t->local_data()), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
  EXPECT_EQ(attributes.device, ExpectedDevice());
  const Result<const CudaDevice*> device = LocalCudaDevice();
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  EXPECT_EQ(*device, t->cuda_device());
  // cpu tensors stay on the host.
  Tensor c = Full(Sh({5, 3}), DType::kF32, 1.5, CpuWorld(), S("S(0)")).value();
  EXPECT_EQ(c->cuda_device(), nullptr);
}

TEST(CudaEagerTest, CreationGivesTheLogicalValueOnEveryLayout) {
  TESS_SKIP_WITHOUT_GPU();
  const Shape shape = Sh({5, 3});
  const std::vector<float> logical = Iota(15);
  for (const auto& [placement, sbp] : CudaLayouts()) {
    SCOPED_TRACE(Describe(placement, sbp));
    Tensor t = FromLogical(logical.data(), shape, DType::kF32, placement, sbp).value();
    EXPECT_EQ(t->has_local(), placement.contains(WorldRank()));
    EXPECT_EQ(Host(t), logical);
    EXPECT_EQ(Host(Full(shape, DType::kF32, 2.5, placement, sbp).value()),
              std::vector<float>(15, 2.5f));
    EXPECT_EQ(Host(Zeros(shape, DType::kF32, placement, sbp).value()),
              std::vector<float>(15, 0.0f));
    EXPECT_EQ(Host<int64_t>(Ones(shape, DType::kI64, placement, sbp).value()),
              std::vector<int64_t>(15, 1));
    std::vector<double> uniform(15), normal(15);
    std::vector<float> uniform32(15);
    for (int i = 0; i < 15; ++i) {
      uniform[i] = CounterUniform(7, i);
      uniform32[i] = static_cast<float>(CounterUniformF32(7, i));
      normal[i] = CounterNormal(7, i);
    }
    EXPECT_EQ(Host<double>(Rand(shape, DType::kF64, 7, placement, sbp).value()), uniform);
    EXPECT_EQ(Host(Rand(shape, DType::kF32, 7, placement, sbp).value()), uniform32);
    EXPECT_EQ(Host<double>(Randn(shape, DType::kF64, 7, placement, sbp).value()), normal);
  }
}

TEST(CudaEagerTest, ArangeHoldsStartPlusIndexTimesStep) {
  TESS_SKIP_WITHOUT_GPU();
  for (const char* sbp : {"S(0)", "B", "P", "P(max)"}) {
    SCOPED_TRACE(sbp);
    Tensor t = Arange(3, -8, -2, DType::kI32, CudaWorld(), S(sbp)).value();
    ASSERT_EQ(t->shape(), Sh({6}));
    std::vector<int32_t> want(6);
    for (int i = 0; i < 6; ++i) want[i] = 3 - 2 * i;
    EXPECT_EQ(Host<int32_t>(t), want);
  }
}

TEST(CudaEagerTest, FromLocalTakesShardsAndTheFirstBroadcastCopy) {
  TESS_SKIP_WITHOUT_GPU();
  const int n = WorldSize();
  const int rank = WorldRank();
  // 3n+1 rows: rank 0 holds four, the others three.
  const int64_t mine = rank == 0 ? 4 : 3;
  const int64_t first = rank == 0 ? 0 : 4 + 3 * (rank - 1);
  std::vector<float> local(mine * 2);
  for (int64_t i = 0; i < mine * 2; ++i) local[i] = static_cast<float>(first * 2 + i);
  Tensor t =
      FromLocal(local.data(), Sh({mine, 2}), DType::kF32, CudaWorld(), S("S(0)"), nullptr).value();
  ASSERT_EQ(t->shape(), Sh({3 * n + 1, 2}));
  std::vector<float> want((3 * n + 1) * 2);
  for (size_t i = 0; i < want.size(); ++i) want[i] = static_cast<float>(i);
  EXPECT_EQ(Host(t), want);
  EXPECT_EQ(Piece(t), local);

  std::vector<float> copy(3, static_cast<float>(rank + 1));
  const Shape logical = Sh({3});
  Tensor b = FromLocal(copy.data(), Sh({3}), DType::kF32, CudaWorld(), S("B"), &logical).value();
  EXPECT_EQ(Piece(b), std::vector<float>(3, 1.0f));  // every rank now holds rank 0's
  EXPECT_EQ(Host(b), std::vector<float>(3, 1.0f));
}

TEST(CudaEagerTest, PiecesMatchTheCpuPlacementsPieces) {
  TESS_SKIP_WITHOUT_GPU();
  const std::vector<float> logical = Iota(15);
  for (const auto& [placement, sbp] : CudaLayouts()) {
    SCOPED_TRACE(Describe(placement, sbp));
    const Placement cpu = OnDevice(placement, DeviceType::kCpu);
    Tensor d = FromLogical(logical.data(), Sh({5, 3}), DType::kF32, placement, sbp).value();
    Tensor h = FromLogical(logical.data(), Sh({5, 3}), DType::kF32, cpu, sbp).value();
    EXPECT_EQ(Piece(d), Piece(h));
    d = Full(Sh({5, 3}), DType::kF32, 0.75, placement, sbp).value();
    h = Full(Sh({5, 3}), DType::kF32, 0.75, cpu, sbp).value();
    EXPECT_EQ(Piece(d), Piece(h));
  }
}

TEST(CudaEagerTest, CpuCudaMovesWithTheSameLayoutCopyEachPiece) {
  TESS_SKIP_WITHOUT_GPU();
  const std::vector<float> logical = Iota(15);
  for (const auto& [placement, sbp] : CudaLayouts()) {
    SCOPED_TRACE(Describe(placement, sbp));
    const Placement cpu = OnDevice(placement, DeviceType::kCpu);
    Tensor h = FromLogical(logical.data(), Sh({5, 3}), DType::kF32, cpu, sbp).value();
    Tensor d = ToGlobal(h, placement, sbp).value();
    EXPECT_EQ(d->placement(), placement);
    EXPECT_EQ(d->nd_sbp(), sbp);
    // The pieces themselves (P pieces included), not just the logical value: nothing
    // was reduced or gathered on the way.
    EXPECT_EQ(Piece(d), Piece(h));
    Tensor back = ToGlobal(d, cpu, sbp).value();
    EXPECT_EQ(back->cuda_device(), nullptr);
    EXPECT_EQ(Piece(back), Piece(h));
    EXPECT_EQ(Host(back), logical);
  }
}

TEST(CudaEagerTest, LayoutChangesOnAndAcrossCudaPlacements) {
  TESS_SKIP_WITHOUT_GPU();
  const Shape shape = Sh({5, 3});
  const std::vector<float> logical = Iota(15);
  std::vector<std::pair<Placement, NdSbp>> targets = CudaLayouts();
  // cuda -> cpu and cpu -> cuda with a layout change.
  targets.push_back({CpuWorld(), S("B")});
  targets.push_back({CpuWorld(), S("S(1)")});
  targets.push_back({P("cpu:[0]"), S("P")});
  for (const auto& [p_in, s_in] : CudaLayouts()) {
    Tensor x = FromLogical(logical.data(), shape, DType::kF32, p_in, s_in).value();
    for (const auto& [p_out, s_out] : targets) {
      SCOPED_TRACE(Describe(p_in, s_in) + " -> " + Describe(p_out, s_out));
      Result<Tensor> y = ToGlobal(x, p_out, s_out);
      ASSERT_TRUE(y.ok()) << y.status().ToString();
      EXPECT_EQ((*y)->placement(), p_out);
      EXPECT_EQ((*y)->nd_sbp(), s_out);
      EXPECT_EQ(Host(*y), logical);
      // From the cpu side too.
      if (p_out.device_type() == DeviceType::kCpu) {
        Result<Tensor> z = ToGlobal(*y, p_in, s_in);
        ASSERT_TRUE(z.ok()) << z.status().ToString();
        EXPECT_EQ(Host(*z), logical);
      }
    }
  }
}

// y = relu(x @ w1 + b) @ w2 with x S(0) and the weights B, then w2 switched to S(0) and
// S(1): the second matmul's signature changes and the interpreter boxes on its own.
TEST(CudaEagerTest, OpChainsMatchLoops) {
  TESS_SKIP_WITHOUT_GPU();
  const int64_t n = 6, k = 4, h = 5, m = 3;
  const std::vector<float> x = Iota(n * k), w1 = Iota(k * h, 0.5f), w2 = Iota(h * m, 1.0f),
                           b = Iota(h, 0.25f);
  const std::vector<float> hidden =
      eager_test::ReluLoops(eager_test::MatmulLoops(x, w1, n, k, h, b));
  const std::vector<float> want = eager_test::MatmulLoops(hidden, w2, n, h, m);
  const Placement world = CudaWorld();
  Tensor tx = FromLogical(x.data(), Sh({n, k}), DType::kF32, world, S("S(0)")).value();
  Tensor tw1 = FromLogical(w1.data(), Sh({k, h}), DType::kF32, world, S("B")).value();
  Tensor tb = FromLogical(b.data(), Sh({h}), DType::kF32, world, S("B")).value();
  for (const char* w2_sbp : {"B", "S(0)", "S(1)"}) {
    SCOPED_TRACE(std::string("w2 ") + w2_sbp);
    Tensor tw2 = FromLogical(w2.data(), Sh({h, m}), DType::kF32, world, S(w2_sbp)).value();
    Tensor t = Apply("matmul", {tx, tw1}).value()[0];
    t = Apply("add", {t, tb}).value()[0];
    t = Apply("relu", {t}).value()[0];
    EXPECT_EQ(t->cuda_device(), tx->cuda_device());
    EXPECT_EQ(Host(t), hidden);
    t = Apply("matmul", {t, tw2}).value()[0];
    EXPECT_EQ(t->shape(), Sh({n, m}));
    EXPECT_EQ(Host(t), want);
  }
}

TEST(CudaEagerTest, ReductionsAndSoftmaxOverSplitAxesMatchLoops) {
  TESS_SKIP_WITHOUT_GPU();
  const std::vector<float> x = Iota(4 * 7);
  Tensor t = FromLogical(x.data(), Sh({4, 7}), DType::kF32, CudaWorld(), S("S(1)")).value();
  Tensor sum = Apply("reduce_sum", {t}, op::AttrMap{{"axes", op::AttrValue::Ints({1})}}).value()[0];
  if (WorldSize() > 1) {
    EXPECT_EQ(sum->nd_sbp(), S("P"));
  }
  EXPECT_EQ(Host(sum), eager_test::RowSumLoops(x, 4, 7));

  // softmax along the split axis: the interpreter gathers the axis first.
  Tensor soft = Apply("softmax", {t}, op::AttrMap{{"axis", op::AttrValue::Int(1)}}).value()[0];
  const std::vector<float> got = Host(soft);
  for (int i = 0; i < 4; ++i) {
    double top = x[i * 7], total = 0;
    for (int j = 0; j < 7; ++j) top = std::max<double>(top, x[i * 7 + j]);
    for (int j = 0; j < 7; ++j) total += std::exp(x[i * 7 + j] - top);
    for (int j = 0; j < 7; ++j) {
      EXPECT_NEAR(got[i * 7 + j], std::exp(x[i * 7 + j] - top) / total, 1e-6) << i << "," << j;
    }
  }
}

TEST(CudaEagerTest, ADataErrorOfAQueuedKernelSurfacesAtToHostOnEveryRank) {
  TESS_SKIP_WITHOUT_GPU();
  const std::vector<float> params = Iota(8);
  const std::vector<int64_t> bad = {1, 7, 0};
  Tensor tp = FromLogical(params.data(), Sh({4, 2}), DType::kF32, CudaWorld(), S("B")).value();
  Tensor ti = FromLogical(bad.data(), Sh({3}), DType::kI64, CudaWorld(), S("B")).value();
  // Queued, not waited for: the call itself succeeds.
  Tensor out = Apply("gather", {tp, ti}).value()[0];
  std::vector<float> host(6);
  Status s = ToHost(out, host.data());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_EQ(s.message().rfind("gather: ", 0), 0u) << s.message();
  EXPECT_NE(s.message().find("= 7 is outside [0, 4)"), std::string::npos) << s.message();
  // Reported once: the stream is clean again.
  const std::vector<int64_t> good = {3, 0};
  Tensor tg = FromLogical(good.data(), Sh({2}), DType::kI64, CudaWorld(), S("B")).value();
  Tensor ok = Apply("gather", {tp, tg}).value()[0];
  EXPECT_EQ(Host(ok), (std::vector<float>{params[6], params[7], params[0], params[1]}));
}

TEST(CudaEagerTest, OpsOnCpuAndCudaTensorsNameBothPlacements) {
  TESS_SKIP_WITHOUT_GPU();
  Tensor a = Zeros(Sh({2}), DType::kF32, CudaWorld(), S("B")).value();
  Tensor b = Zeros(Sh({2}), DType::kF32, CpuWorld(), S("B")).value();
  Status s = Apply("add", {a, b}).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find(CudaWorld().ToString()), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(CpuWorld().ToString()), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tessera::eager
