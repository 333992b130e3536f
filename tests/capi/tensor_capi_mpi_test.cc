// The C API's eager tensors under mpirun with 1..4 ranks (3 is the uneven case):
// from_host -> ops -> to_global -> to_host on 1-d placements of every SBP and, with 4
// ranks, on the 2-d placement [[0,1],[2,3]], plus from_local, DLPack of local pieces,
// sub-placements and explain. Everything goes through tessera.h; oracles are plain
// loops over the logical values each rank builds itself. Values are multiples of 1/4
// with small magnitudes, so float sums are exact in any order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/dlpack.h"
#include "tessera/tessera.h"
#include "tests/capi/world_test_util.h"

namespace tessera::capi_test {
namespace {

std::string WorldText() { return CpuOf(WorldRanks()); }

std::vector<float> Values(int64_t n, int salt) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7 + salt) % 23 - 11) * 0.25f;
  return v;
}

// (placement, nd-sbp) texts: every 1-d SBP on the world, and with 4 ranks the 2-d
// grid with mixed nd-sbps.
std::vector<std::pair<std::string, std::string>> Layouts() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* sbp : {"S(0)", "S(1)", "B", "P", "P(max)", "P(min)"}) {
    out.push_back({WorldText(), sbp});
  }
  if (WorldSize() == 4) {
    for (const char* sbp : {"(S(0), S(1))", "(S(1), S(0))", "(P, S(0))", "(B, P(max))",
                            "(S(0), P(min))", "(P, P)", "(B, B)"}) {
      out.push_back({"cpu:[[0,1],[2,3]]", sbp});
    }
  }
  return out;
}

// Broadcast over the placement's axes ("B" or "(B, B)").
std::string AllBroadcast(const std::string& placement) {
  return placement.find("[[") == std::string::npos ? "B" : "(B, B)";
}

// relu((x + y) * x) @ w, then summed over rows: [5,3] x [5,3] x [3,4] -> [4].
std::vector<float> ChainOracle(const std::vector<float>& x, const std::vector<float>& y,
                               const std::vector<float>& w) {
  std::vector<float> h(15);
  for (int i = 0; i < 15; ++i) h[i] = std::max((x[i] + y[i]) * x[i], 0.0f);
  std::vector<float> out(4, 0.0f);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 4; ++j) {
      float acc = 0;
      for (int p = 0; p < 3; ++p) acc += h[i * 3 + p] * w[p * 4 + j];
      out[j] += acc;
    }
  }
  return out;
}

TEST(TensorCapiMpiTest, FromHostOpsToGlobalToHost) {
  const std::vector<float> x = Values(15, 0), y = Values(15, 5), w = Values(12, 9);
  const std::vector<float> want = ChainOracle(x, y, w);
  for (const auto& [placement, sbp] : Layouts()) {
    SCOPED_TRACE(placement + " " + sbp);
    const std::string b = AllBroadcast(placement);
    TensorPtr tx = FromHost(x, {5, 3}, placement, sbp);
    // y and w in other layouts, so the interpreter must box.
    TensorPtr ty = FromHost(y, {5, 3}, placement, b);
    TensorPtr tw = FromHost(w, {3, 4}, placement, sbp == "S(0)" ? "S(1)" : b);
    ASSERT_TRUE(tx && ty && tw);
    tess_tensor *sum = nullptr, *prod = nullptr, *act = nullptr, *mm = nullptr, *red = nullptr;
    ASSERT_EQ(tess_add(&sum, tx.get(), ty.get()), TESS_OK) << LastError();
    TensorPtr o1(sum);
    ASSERT_EQ(tess_mul(&prod, sum, tx.get()), TESS_OK) << LastError();
    TensorPtr o2(prod);
    ASSERT_EQ(tess_relu(&act, prod), TESS_OK) << LastError();
    TensorPtr o3(act);
    ASSERT_EQ(tess_matmul(&mm, act, tw.get(), 0, 0), TESS_OK) << LastError();
    TensorPtr o4(mm);
    const int64_t axes[] = {0};
    ASSERT_EQ(tess_reduce_sum(&red, mm, axes, 1, 0), TESS_OK) << LastError();
    TensorPtr o5(red);
    EXPECT_EQ(ShapeOf(red), std::vector<int64_t>{4});
    // to_global onto the whole world as B, then to_host, on every rank.
    PlacementPtr world = Placement(WorldText());
    NdSbpPtr bcast = NdSbp("B");
    tess_tensor* moved = nullptr;
    ASSERT_EQ(tess_tensor_to_global(&moved, red, world.get(), bcast.get()), TESS_OK) << LastError();
    TensorPtr o6(moved);
    EXPECT_EQ(NdSbpText(moved), "B");
    EXPECT_EQ(ToHost<float>(moved), want);
    EXPECT_EQ(ToHost<float>(red), want);
    // B on the world: every rank's local piece is the whole value.
    std::vector<float> local(4, -1.0f);
    ASSERT_EQ(tess_tensor_copy_local(local.data(), sizeof(float) * 4, moved), TESS_OK);
    EXPECT_EQ(local, want);
  }
}

TEST(TensorCapiMpiTest, ToGlobalBetweenEveryPairOfLayouts) {
  const std::vector<float> logical = Values(15, 3);
  for (const auto& [p_in, s_in] : Layouts()) {
    TensorPtr t = FromHost(logical, {5, 3}, p_in, s_in);
    ASSERT_TRUE(t);
    for (const auto& [p_out, s_out] : Layouts()) {
      SCOPED_TRACE(p_in + " " + s_in + " -> " + p_out + " " + s_out);
      PlacementPtr p = Placement(p_out);
      NdSbpPtr s = NdSbp(s_out);
      tess_tensor* moved = nullptr;
      ASSERT_EQ(tess_tensor_to_global(&moved, t.get(), p.get(), s.get()), TESS_OK) << LastError();
      TensorPtr owned(moved);
      EXPECT_EQ(ToHost<float>(moved), logical);
    }
  }
}

TEST(TensorCapiMpiTest, LocalPiecesMatchTheLayout) {
  const std::vector<float> logical = Values(35, 1);
  const int rank = WorldRank();
  for (const auto& [placement, sbp] : Layouts()) {
    if (sbp.find('P') != std::string::npos) continue;  // partial pieces are not slices
    SCOPED_TRACE(placement + " " + sbp);
    TensorPtr t = FromHost(logical, {7, 5}, placement, sbp);
    ASSERT_TRUE(t);
    PlacementPtr p = Placement(placement);
    NdSbpPtr s = NdSbp(sbp);
    const int64_t shape[] = {7, 5};
    tess_layout* layout = nullptr;
    ASSERT_EQ(tess_layout_create(&layout, p.get(), s.get(), shape, 2, rank), TESS_OK);
    int64_t b0, e0, b1, e1;
    ASSERT_EQ(tess_layout_range(&b0, &e0, layout, 0), TESS_OK);
    ASSERT_EQ(tess_layout_range(&b1, &e1, layout, 1), TESS_OK);
    tess_layout_destroy(layout);
    std::vector<float> want;
    for (int64_t i = b0; i < e0; ++i) {
      for (int64_t j = b1; j < e1; ++j) want.push_back(logical[i * 5 + j]);
    }
    int64_t n = -1;
    ASSERT_EQ(tess_tensor_local_num_elements(&n, t.get()), TESS_OK);
    EXPECT_EQ(ShapeOf(t.get(), /*local=*/true), (std::vector<int64_t>{e0 - b0, e1 - b1}));
    EXPECT_EQ(n, static_cast<int64_t>(want.size()));
    std::vector<float> local(want.size());
    ASSERT_EQ(tess_tensor_copy_local(local.data(), local.size() * sizeof(float), t.get()), TESS_OK)
        << LastError();
    EXPECT_EQ(local, want);
    // The DLPack export is the same piece, without a copy.
    DLManagedTensorVersioned* m = nullptr;
    ASSERT_EQ(tess_tensor_to_dlpack(&m, t.get()), TESS_OK) << LastError();
    ASSERT_EQ(m->dl_tensor.ndim, 2);
    EXPECT_EQ(m->dl_tensor.shape[0], e0 - b0);
    EXPECT_EQ(m->dl_tensor.shape[1], e1 - b1);
    const float* data = static_cast<const float*>(m->dl_tensor.data);
    EXPECT_EQ(std::vector<float>(data, data + n), want);
    // ... and importing it as this rank's piece gives the same global tensor back.
    tess_tensor* back = nullptr;
    ASSERT_EQ(tess_tensor_from_dlpack(&back, m, p.get(), s.get(), nullptr), TESS_OK) << LastError();
    TensorPtr owned(back);
    EXPECT_EQ(ToHost<float>(back), logical);
  }
}

TEST(TensorCapiMpiTest, FromLocalInfersUnevenShards) {
  const int n = WorldSize();
  const int rank = WorldRank();
  // 3n+1 rows split S(0): rank 0 holds 4 rows, the others 3.
  const int64_t rows = 3 * n + 1;
  const int64_t mine = rank == 0 ? 4 : 3;
  const int64_t first = rank == 0 ? 0 : 4 + 3 * (rank - 1);
  const std::vector<float> logical = Values(rows * 2, 4);
  std::vector<float> local(logical.begin() + first * 2, logical.begin() + (first + mine) * 2);
  PlacementPtr world = Placement(WorldText());
  NdSbpPtr s0 = NdSbp("S(0)");
  const int64_t local_shape[] = {mine, 2};
  tess_tensor* t = nullptr;
  ASSERT_EQ(tess_tensor_from_local(&t, local.data(), local_shape, 2, TESS_DTYPE_F32, world.get(),
                                   s0.get(), nullptr),
            TESS_OK)
      << LastError();
  TensorPtr owned(t);
  EXPECT_EQ(ShapeOf(t), (std::vector<int64_t>{rows, 2}));
  EXPECT_EQ(ToHost<float>(t), logical);
  // P: the logical value is the sum of the locals.
  std::vector<float> part(6);
  for (int i = 0; i < 6; ++i) part[i] = static_cast<float>((rank + 1) * (i + 1));
  NdSbpPtr psum = NdSbp("P");
  const int64_t shape[] = {2, 3};
  ASSERT_EQ(tess_tensor_from_local(&t, part.data(), shape, 2, TESS_DTYPE_F32, world.get(),
                                   psum.get(), shape),
            TESS_OK)
      << LastError();
  TensorPtr partial(t);
  std::vector<float> want(6);
  for (int i = 0; i < 6; ++i) want[i] = static_cast<float>(n * (n + 1) / 2 * (i + 1));
  EXPECT_EQ(ToHost<float>(t), want);
}

// Local shapes that each fit but whose split dim sums past int64 (issue 16): every
// rank refuses the same way, none wraps around.
TEST(TensorCapiMpiTest, FromLocalRefusesALogicalDimThatOverflows) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs 2 ranks";
  PlacementPtr world = Placement(WorldText());
  NdSbpPtr s0 = NdSbp("S(0)");
  const int64_t local_shape[] = {int64_t{1} << 62, 0};  // no elements: data may be NULL
  tess_tensor* t = nullptr;
  EXPECT_EQ(tess_tensor_from_local(&t, nullptr, local_shape, 2, TESS_DTYPE_F32, world.get(),
                                   s0.get(), nullptr),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("the local dims along split dim 0 add up to more than int64 holds"))
      << LastError();
  EXPECT_EQ(t, nullptr);
}

TEST(TensorCapiMpiTest, SubPlacementLeavesOtherRanksWithMetadata) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs 2 ranks";
  const std::string last = "cpu:[" + std::to_string(WorldSize() - 1) + "]";
  const std::vector<float> x = Values(6, 2);
  TensorPtr t = FromHost(x, {2, 3}, last, "B");
  tess_tensor* out = nullptr;
  ASSERT_EQ(tess_neg(&out, t.get()), TESS_OK) << LastError();
  TensorPtr owned(out);
  int32_t has = -1;
  ASSERT_EQ(tess_tensor_has_local(&has, out), TESS_OK);
  EXPECT_EQ(has, WorldRank() == WorldSize() - 1 ? 1 : 0);
  std::vector<float> want;
  for (float v : x) want.push_back(-v);
  EXPECT_EQ(ToHost<float>(out), want);  // every rank, in or out
  // Ops on different placements are an error naming both, on every rank.
  TensorPtr world = FromHost(x, {2, 3}, WorldText(), "B");
  tess_tensor* bad = nullptr;
  EXPECT_EQ(tess_add(&bad, world.get(), t.get()), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas(WorldText()));
  EXPECT_TRUE(ErrorHas(last));
}

TEST(TensorCapiMpiTest, ApplyWithConstraintAndExplain) {
  const std::vector<float> x = Values(12, 6), y = Values(12, 8);
  TensorPtr tx = FromHost(x, {4, 3}, WorldText(), "S(0)");
  TensorPtr ty = FromHost(y, {4, 3}, WorldText(), "S(1)");
  tess_op_call* c = nullptr;
  ASSERT_EQ(tess_op_call_create(&c, "maximum"), TESS_OK);
  OpCallPtr call(c);
  NdSbpPtr b = NdSbp("B");
  ASSERT_EQ(tess_op_call_constrain_output(c, 0, b.get()), TESS_OK);
  const tess_tensor* inputs[] = {tx.get(), ty.get()};
  tess_tensor* out = nullptr;
  size_t n = 0;
  ASSERT_EQ(tess_op_call_apply(&out, 1, &n, c, inputs, 2), TESS_OK) << LastError();
  TensorPtr owned(out);
  EXPECT_EQ(NdSbpText(out), "B");
  std::vector<float> want(12);
  for (int i = 0; i < 12; ++i) want[i] = std::max(x[i], y[i]);
  EXPECT_EQ(ToHost<float>(out), want);
  tess_explanation* e = nullptr;
  ASSERT_EQ(tess_explanation_last(&e), TESS_OK) << LastError();
  ExplanationPtr ex(e);
  const std::string text = tess_explanation_text(e);
  EXPECT_NE(text.find("maximum"), std::string::npos) << text;
  if (WorldSize() > 1) {
    // y arrives as S(1) but the chosen signature needs it otherwise.
    EXPECT_NE(text.find("S(1) -> "), std::string::npos) << text;
  }
}

TEST(TensorCapiMpiTest, SoftmaxAndReductionsOnTheGrid) {
  if (WorldSize() != 4) GTEST_SKIP() << "needs 4 ranks for [[0,1],[2,3]]";
  std::vector<double> x(6 * 5);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i % 7) * 0.5 - 1;
  TensorPtr t = FromHost(x, {6, 5}, "cpu:[[0,1],[2,3]]", "(S(0), S(1))");
  tess_tensor* sm = nullptr;
  ASSERT_EQ(tess_softmax(&sm, t.get(), 1), TESS_OK) << LastError();
  TensorPtr o1(sm);
  const std::vector<double> got = ToHost<double>(sm);
  for (int i = 0; i < 6; ++i) {
    double sum = 0;
    for (int j = 0; j < 5; ++j) sum += std::exp(x[i * 5 + j]);
    for (int j = 0; j < 5; ++j) EXPECT_NEAR(got[i * 5 + j], std::exp(x[i * 5 + j]) / sum, 1e-12);
  }
  tess_tensor* mx = nullptr;
  ASSERT_EQ(tess_reduce_max(&mx, t.get(), nullptr, 0, 1), TESS_OK) << LastError();
  TensorPtr o2(mx);
  EXPECT_EQ(ShapeOf(mx), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(ToHost<double>(mx), std::vector<double>{*std::max_element(x.begin(), x.end())});
  const int64_t axes[] = {1};
  tess_tensor* mean = nullptr;
  ASSERT_EQ(tess_reduce_mean(&mean, t.get(), axes, 1, 0), TESS_OK) << LastError();
  TensorPtr o3(mean);
  std::vector<double> want(6, 0.0);
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 5; ++j) want[i] += x[i * 5 + j];
    want[i] /= 5;
  }
  const std::vector<double> means = ToHost<double>(mean);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(means[i], want[i], 1e-12);
}

}  // namespace
}  // namespace tessera::capi_test
