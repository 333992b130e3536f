// tess_boxing_run and tess_boxing_plan_* in a world of one rank: every piece is the whole
// tensor, so a boxing must hand back exactly its input (the oracle); plans are
// checked on placements of several ranks, which need no world. Bad inputs check the
// code, the whole message and that nothing was written. Multi-rank boxing:
// tests/capi/boxing_capi_mpi_test.cc.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/tessera.h"

namespace tessera::capi_test {
namespace {

struct PlanDestroy {
  void operator()(tess_boxing_plan* p) const { tess_boxing_plan_destroy(p); }
};
using PlanPtr = std::unique_ptr<tess_boxing_plan, PlanDestroy>;

tess_boxing_plan* const kSentinel = reinterpret_cast<tess_boxing_plan*>(0x1);

// Runs before any test initialises the runtime (gtest keeps definition order).
TEST(BoxBeforeInitTest, NeedsTheRuntime) {
  PlacementPtr p = Placement("cpu:[0]");
  NdSbpPtr s = NdSbp("S(0)");
  const int64_t shape[] = {2};
  float in[2] = {1, 2}, out[2] = {0, 0};
  EXPECT_EQ(tess_boxing_run(out, sizeof(out), in, sizeof(in), shape, 1, TESS_DTYPE_F32, p.get(),
                            s.get(), p.get(), s.get()),
            TESS_FAILED_PRECONDITION);
  EXPECT_EQ(LastError(),
            "tess_boxing_run: the runtime is not initialised: call tess_runtime_init first");
  // Planning needs no world.
  tess_boxing_plan* plan = nullptr;
  EXPECT_EQ(
      tess_boxing_plan_create(&plan, shape, 1, TESS_DTYPE_F32, p.get(), s.get(), p.get(), s.get()),
      TESS_OK)
      << LastError();
  tess_boxing_plan_destroy(plan);
}

class BoxCapiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(tess_runtime_init(), TESS_OK) << LastError(); }

  // Boxes `in` (a [5,7] tensor) from (src_p, src) to (dst_p, dst) and returns the
  // output piece; a failure records the message.
  template <typename T>
  std::vector<T> Box(const std::vector<T>& in, const std::string& src_p, const std::string& src,
                     const std::string& dst_p, const std::string& dst) {
    PlacementPtr from = Placement(src_p), to = Placement(dst_p);
    NdSbpPtr s = NdSbp(src), d = NdSbp(dst);
    std::vector<T> out(in.size(), T(-99));
    EXPECT_EQ(tess_boxing_run(out.data(), out.size() * sizeof(T), in.data(), in.size() * sizeof(T),
                              kShape, 2, DTypeOf<T>::value, from.get(), s.get(), to.get(), d.get()),
              TESS_OK)
        << src_p << " " << src << " -> " << dst_p << " " << dst << ": " << LastError();
    return out;
  }

  static constexpr int64_t kShape[2] = {5, 7};
  static constexpr size_t kElements = 35;
  static constexpr size_t kBytes = kElements * sizeof(float);

  PlacementPtr p_ = Placement("cpu:[0]");
  PlacementPtr grid_ = Placement("cpu:[[0]]");
  NdSbpPtr s0_ = NdSbp("S(0)");
  NdSbpPtr b_ = NdSbp("B");
};

template <typename T>
std::vector<T> Values(size_t n) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(static_cast<int>((i * 7) % 23) - 11);
  return v;
}

TEST_F(BoxCapiTest, OneRankHandsBackItsInputForEveryPairAndDType) {
  const char* one_d[] = {"S(0)", "S(1)", "B", "P", "P(max)", "P(min)"};
  const std::vector<float> f = Values<float>(kElements);
  for (const char* src : one_d) {
    for (const char* dst : one_d) {
      EXPECT_EQ(Box(f, "cpu:[0]", src, "cpu:[0]", dst), f) << src << " -> " << dst;
    }
  }
  EXPECT_EQ(Box(Values<double>(kElements), "cpu:[0]", "S(1)", "cpu:[[0]]", "(B, S(0))"),
            Values<double>(kElements));
  EXPECT_EQ(Box(Values<int32_t>(kElements), "cpu:[[0]]", "(P, S(1))", "cpu:[0]", "S(0)"),
            Values<int32_t>(kElements));
  EXPECT_EQ(Box(Values<int64_t>(kElements), "cpu:[[0]]", "(S(0), S(1))", "cpu:[[0]]", "(B, P)"),
            Values<int64_t>(kElements));
}

TEST_F(BoxCapiTest, SameLayoutInPlaceIsANoOp) {
  std::vector<float> v = Values<float>(kElements);
  ASSERT_EQ(tess_boxing_run(v.data(), kBytes, v.data(), kBytes, kShape, 2, TESS_DTYPE_F32, p_.get(),
                            s0_.get(), p_.get(), s0_.get()),
            TESS_OK)
      << LastError();
  EXPECT_EQ(v, Values<float>(kElements));
}

TEST_F(BoxCapiTest, EmptyAndScalarTensors) {
  const int64_t empty[] = {0, 3};
  EXPECT_EQ(tess_boxing_run(nullptr, 0, nullptr, 0, empty, 2, TESS_DTYPE_F32, p_.get(), s0_.get(),
                            p_.get(), b_.get()),
            TESS_OK)
      << LastError();
  const double in = 2.5;
  double out = 0;
  EXPECT_EQ(tess_boxing_run(&out, sizeof(out), &in, sizeof(in), nullptr, 0, TESS_DTYPE_F64,
                            p_.get(), b_.get(), grid_.get(), NdSbp("(P, B)").get()),
            TESS_OK)
      << LastError();
  EXPECT_EQ(out, 2.5);
}

TEST_F(BoxCapiTest, RepeatedBoxingsKeepWorking) {
  // The second and later calls take the cached plan and the thread's staging.
  const std::vector<int32_t> v = Values<int32_t>(kElements);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Box(v, "cpu:[0]", "S(0)", "cpu:[0]", "S(1)"), v);
}

TEST_F(BoxCapiTest, NullArgumentsAreNamed) {
  float in[35] = {}, out[35] = {};
  NdSbpPtr& s = s0_;
  struct Case {
    const int64_t* shape;
    const tess_placement* sp;
    const tess_nd_sbp* src;
    const tess_placement* dp;
    const tess_nd_sbp* dst;
    const char* name;
  };
  const Case cases[] = {
      {nullptr, p_.get(), s.get(), p_.get(), s.get(), "shape"},
      {kShape, nullptr, s.get(), p_.get(), s.get(), "src_placement"},
      {kShape, p_.get(), nullptr, p_.get(), s.get(), "src"},
      {kShape, p_.get(), s.get(), nullptr, s.get(), "dst_placement"},
      {kShape, p_.get(), s.get(), p_.get(), nullptr, "dst"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(tess_boxing_run(out, kBytes, in, kBytes, c.shape, 2, TESS_DTYPE_F32, c.sp, c.src,
                              c.dp, c.dst),
              TESS_INVALID_ARGUMENT);
    EXPECT_EQ(LastError(), std::string("tess_boxing_run: argument \"") + c.name + "\" is NULL");
    tess_boxing_plan* plan = kSentinel;
    EXPECT_EQ(tess_boxing_plan_create(&plan, c.shape, 2, TESS_DTYPE_F32, c.sp, c.src, c.dp, c.dst),
              TESS_INVALID_ARGUMENT);
    EXPECT_EQ(LastError(),
              std::string("tess_boxing_plan_create: argument \"") + c.name + "\" is NULL");
    EXPECT_EQ(plan, kSentinel);
  }
  EXPECT_EQ(tess_boxing_plan_create(nullptr, kShape, 2, TESS_DTYPE_F32, p_.get(), s.get(), p_.get(),
                                    s.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_boxing_plan_create: argument \"out\" is NULL");
  // A NULL buffer whose piece has elements.
  EXPECT_EQ(tess_boxing_run(out, kBytes, nullptr, kBytes, kShape, 2, TESS_DTYPE_F32, p_.get(),
                            s.get(), p_.get(), b_.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_boxing_run: Box: in_local is NULL but this rank's S(0) piece holds 35 elements");
  EXPECT_EQ(tess_boxing_run(nullptr, kBytes, in, kBytes, kShape, 2, TESS_DTYPE_F32, p_.get(),
                            s.get(), p_.get(), b_.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_boxing_run: Box: out_local is NULL but this rank's B piece holds 35 elements");
}

// Each bad call must fail with `code` and exactly `message`, and write nothing.
void ExpectBoxFails(tess_status code, const std::string& message, const int64_t* shape, size_t ndim,
                    tess_dtype dtype, const std::string& src_p, const std::string& src,
                    const std::string& dst_p, const std::string& dst, size_t in_bytes,
                    size_t out_bytes) {
  PlacementPtr from = Placement(src_p), to = Placement(dst_p);
  NdSbpPtr s = NdSbp(src), d = NdSbp(dst);
  std::vector<unsigned char> in(in_bytes + 8, 1), out(out_bytes + 8, 7);
  EXPECT_EQ(tess_boxing_run(out.data(), out_bytes, in.data(), in_bytes, shape, ndim, dtype,
                            from.get(), s.get(), to.get(), d.get()),
            code)
      << message;
  EXPECT_EQ(LastError(), message);
  EXPECT_EQ(out, std::vector<unsigned char>(out_bytes + 8, 7)) << "out was written: " << message;
}

TEST_F(BoxCapiTest, BadShapesAndDTypes) {
  const int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  ExpectBoxFails(TESS_INVALID_ARGUMENT,
                 "tess_boxing_run: shape: shape has 9 dims; at most 8 are supported", nine, 9,
                 TESS_DTYPE_F32, "cpu:[0]", "B", "cpu:[0]", "B", 4, 4);
  const int64_t negative[] = {5, -2};
  ExpectBoxFails(TESS_INVALID_ARGUMENT,
                 "tess_boxing_run: shape: shape dim 1 is -2; dims must be >= 0", negative, 2,
                 TESS_DTYPE_F32, "cpu:[0]", "B", "cpu:[0]", "B", 0, 0);
  ExpectBoxFails(
      TESS_INVALID_ARGUMENT,
      "tess_boxing_run: dtype 9 is not a known dtype (f32 0, f64 1, i32 2, i64 3, f16 4, "
      "bf16 5, bool 6)",
      kShape, 2, 9, "cpu:[0]", "B", "cpu:[0]", "B", kBytes, kBytes);
}

TEST_F(BoxCapiTest, ByteCountsMustBeThePieces) {
  ExpectBoxFails(
      TESS_INVALID_ARGUMENT,
      "tess_boxing_run: in_bytes is 136 but rank 0's src piece (S(0) on cpu:[0]) holds 35 "
      "f32 elements, 140 bytes",
      kShape, 2, TESS_DTYPE_F32, "cpu:[0]", "S(0)", "cpu:[0]", "B", 136, kBytes);
  // Too big is as wrong as too small: a piece has one size.
  ExpectBoxFails(
      TESS_INVALID_ARGUMENT,
      "tess_boxing_run: out_bytes is 560 but rank 0's dst piece ((B, S(1)) on cpu:[[0]]) "
      "holds 35 f64 elements, 280 bytes",
      kShape, 2, TESS_DTYPE_F64, "cpu:[0]", "S(0)", "cpu:[[0]]", "(B, S(1))", 280, 560);
  // Rank 0 is not in cpu:[1] (a placement the world lacks is caught by Box later).
  ExpectBoxFails(
      TESS_INVALID_ARGUMENT,
      "tess_boxing_run: out_bytes is 140 but rank 0 is not in the dst placement cpu:[1], so "
      "it holds 0 bytes",
      kShape, 2, TESS_DTYPE_F32, "cpu:[0]", "S(0)", "cpu:[1]", "B", kBytes, kBytes);
}

TEST_F(BoxCapiTest, NdSbpsMustFitPlacementAndShape) {
  ExpectBoxFails(
      TESS_INVALID_ARGUMENT,
      "tess_boxing_run: src nd-sbp S(2) splits tensor axis 2 but the tensor of shape [5,7] "
      "has 2 axes",
      kShape, 2, TESS_DTYPE_F32, "cpu:[0]", "S(2)", "cpu:[0]", "B", kBytes, kBytes);
  ExpectBoxFails(
      TESS_INVALID_ARGUMENT,
      "tess_boxing_run: dst nd-sbp (S(0), B) has 2 axes but placement cpu:[0] has a 1-axis "
      "hierarchy",
      kShape, 2, TESS_DTYPE_F32, "cpu:[0]", "B", "cpu:[0]", "(S(0), B)", kBytes, kBytes);
}

TEST_F(BoxCapiTest, PlacementsMustFitTheWorldAndDevice) {
  // Rank 0 holds 3 of the 5 rows of S(0) on cpu:[0,1].
  ExpectBoxFails(
      TESS_OUT_OF_RANGE,
      "tess_boxing_run: Box: src placement cpu:[0,1] names rank 1 but the world has 1 ranks",
      kShape, 2, TESS_DTYPE_F32, "cpu:[0,1]", "S(0)", "cpu:[0]", "B", 84, kBytes);
  ExpectBoxFails(
      TESS_UNIMPLEMENTED,
      "tess_boxing_run: Box: the pieces of cuda placements (src cuda:[0], dst cuda:[0]) are "
      "device memory and this call moves host memory; cuda tensors' to_global boxes "
      "them on the devices",
      kShape, 2, TESS_DTYPE_F32, "cuda:[0]", "S(0)", "cuda:[0]", "B", kBytes, kBytes);
}

// Steps of S(0) -> B over two ranks: one all-gather along axis 0.
TEST_F(BoxCapiTest, PlanOfAnAllGather) {
  PlacementPtr two = Placement("cpu:[0,1]");
  tess_boxing_plan* raw = nullptr;
  ASSERT_EQ(tess_boxing_plan_create(&raw, kShape, 2, TESS_DTYPE_F32, two.get(), s0_.get(),
                                    two.get(), b_.get()),
            TESS_OK)
      << LastError();
  PlanPtr plan(raw);
  size_t steps = 0;
  ASSERT_EQ(tess_boxing_plan_num_steps(&steps, plan.get()), TESS_OK);
  EXPECT_EQ(steps, 1u);
  const std::string text = tess_boxing_plan_string(plan.get());
  EXPECT_EQ(text.rfind("boxing f32[5,7]: cpu:[0,1] S(0) -> cpu:[0,1] B\n", 0), 0u) << text;
  const std::string step = tess_boxing_plan_step_string(plan.get(), 0);
  EXPECT_EQ(step.rfind("axis 0: S(0) -> B  all-gather", 0), 0u) << step;
  EXPECT_NE(text.find("\n1. " + step + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("total: 1 step, cost "), std::string::npos) << text;
  EXPECT_STREQ(tess_boxing_plan_step_string(plan.get(), 1), "");
  EXPECT_STREQ(tess_boxing_plan_step_string(nullptr, 0), "");
  double cost = 0;
  ASSERT_EQ(tess_boxing_plan_cost(&cost, plan.get()), TESS_OK);
  EXPECT_GT(cost, 0);
}

TEST_F(BoxCapiTest, PlanAcrossPlacementsOfAGrid) {
  PlacementPtr grid = Placement("cpu:[[0,1],[2,3]]"), pair = Placement("cpu:[4,5]");
  NdSbpPtr src = NdSbp("(S(0), P)");
  tess_boxing_plan* raw = nullptr;
  ASSERT_EQ(tess_boxing_plan_create(&raw, kShape, 2, TESS_DTYPE_I64, grid.get(), src.get(),
                                    pair.get(), s0_.get()),
            TESS_OK)
      << LastError();
  PlanPtr plan(raw);
  size_t steps = 0;
  ASSERT_EQ(tess_boxing_plan_num_steps(&steps, plan.get()), TESS_OK);
  // The partial axis must be reduced before data can cross to other ranks.
  ASSERT_GE(steps, 2u);
  const std::string text = tess_boxing_plan_string(plan.get());
  EXPECT_EQ(text.rfind("boxing i64[5,7]: cpu:[[0,1],[2,3]] (S(0), P) -> cpu:[4,5] S(0)\n", 0), 0u)
      << text;
  bool reshard = false;
  for (size_t i = 0; i < steps; ++i) {
    const std::string step = tess_boxing_plan_step_string(plan.get(), i);
    EXPECT_NE(text.find(std::to_string(i + 1) + ". " + step + "\n"), std::string::npos) << step;
    reshard = reshard || step.rfind("reshard ", 0) == 0;
  }
  EXPECT_TRUE(reshard) << "no step moves the data between the placements:\n" << text;
  EXPECT_NE(text.find("total: " + std::to_string(steps) + " steps, cost "), std::string::npos);
}

TEST_F(BoxCapiTest, PlanOfNothingToDo) {
  tess_boxing_plan* raw = nullptr;
  ASSERT_EQ(tess_boxing_plan_create(&raw, kShape, 2, TESS_DTYPE_F32, p_.get(), s0_.get(), p_.get(),
                                    s0_.get()),
            TESS_OK)
      << LastError();
  PlanPtr plan(raw);
  size_t steps = 9;
  ASSERT_EQ(tess_boxing_plan_num_steps(&steps, plan.get()), TESS_OK);
  EXPECT_EQ(steps, 0u);
  double cost = -1;
  ASSERT_EQ(tess_boxing_plan_cost(&cost, plan.get()), TESS_OK);
  EXPECT_EQ(cost, 0);
  EXPECT_NE(std::string(tess_boxing_plan_string(plan.get())).find("nothing to do"),
            std::string::npos);
}

// The plan tess_tensor_to_global runs for cuda tensors: the same steps as on cpu; only
// a move between device types has none.
TEST_F(BoxCapiTest, PlanOnCudaPlacements) {
  PlacementPtr cuda = Placement("cuda:[0,1]"), cpu = Placement("cpu:[0,1]");
  tess_boxing_plan* raw = nullptr;
  ASSERT_EQ(tess_boxing_plan_create(&raw, kShape, 2, TESS_DTYPE_F32, cuda.get(), s0_.get(),
                                    cuda.get(), b_.get()),
            TESS_OK)
      << LastError();
  PlanPtr plan(raw);
  const std::string text = tess_boxing_plan_string(plan.get());
  EXPECT_EQ(text.rfind("boxing f32[5,7]: cuda:[0,1] S(0) -> cuda:[0,1] B\n", 0), 0u) << text;
  EXPECT_EQ(std::string(tess_boxing_plan_step_string(plan.get(), 0))
                .rfind("axis 0: S(0) -> B  all-gather", 0),
            0u);
  tess_boxing_plan* mixed = kSentinel;
  EXPECT_EQ(tess_boxing_plan_create(&mixed, kShape, 2, TESS_DTYPE_F32, cpu.get(), s0_.get(),
                                    cuda.get(), b_.get()),
            TESS_UNIMPLEMENTED);
  EXPECT_EQ(LastError(),
            "tess_boxing_plan_create: PlanBoxing: boxing between device types cpu and cuda (src "
            "cpu:[0,1], "
            "dst cuda:[0,1]) is not implemented; to_global stages such moves through host memory");
  EXPECT_EQ(mixed, kSentinel);
}

TEST_F(BoxCapiTest, PlanRejectsWhatBoxRejects) {
  tess_boxing_plan* plan = kSentinel;
  NdSbpPtr s2 = NdSbp("S(2)");
  EXPECT_EQ(tess_boxing_plan_create(&plan, kShape, 2, TESS_DTYPE_F32, p_.get(), s2.get(), p_.get(),
                                    b_.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_boxing_plan_create: src nd-sbp S(2) splits tensor axis 2 but the tensor of "
            "shape [5,7] has 2 axes");
  // bf16 boxes like any other dtype (its pieces are 2 bytes an element).
  EXPECT_EQ(tess_boxing_plan_create(&plan, kShape, 2, TESS_DTYPE_BF16, p_.get(), s0_.get(),
                                    p_.get(), b_.get()),
            TESS_OK);
  tess_boxing_plan_destroy(plan);
  plan = kSentinel;
  EXPECT_EQ(tess_boxing_plan_create(&plan, kShape, 2, -1, p_.get(), s0_.get(), p_.get(), b_.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_boxing_plan_create: dtype -1 is not a known dtype (f32 0, f64 1, i32 2, i64 3, "
            "f16 4, bf16 5, bool 6)");
  EXPECT_EQ(plan, kSentinel);
}

TEST_F(BoxCapiTest, PlanGettersRejectNull) {
  size_t steps = 0;
  double cost = 0;
  EXPECT_EQ(tess_boxing_plan_num_steps(&steps, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_boxing_plan_num_steps: argument \"plan\" is NULL");
  EXPECT_EQ(tess_boxing_plan_cost(&cost, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_boxing_plan_cost: argument \"plan\" is NULL");
  EXPECT_STREQ(tess_boxing_plan_string(nullptr), "");
  tess_boxing_plan_destroy(nullptr);
}

}  // namespace
}  // namespace tessera::capi_test
