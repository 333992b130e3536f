// tess_tensor_*: creation, metadata, data out and to_global in a world of one rank.
// Oracles are plain loops; bad inputs check the code, the message and that the
// out-param is untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/tessera.h"

namespace tessera::capi_test {
namespace {

tess_tensor* const kSentinel = reinterpret_cast<tess_tensor*>(0x1);

class TensorCapiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(tess_runtime_init(), TESS_OK) << LastError(); }

  PlacementPtr p_ = Placement("cpu:[0]");
  NdSbpPtr s0_ = NdSbp("S(0)");
  NdSbpPtr b_ = NdSbp("B");
};

std::vector<float> Iota(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7) % 11) - 5.0f;
  return v;
}

TEST_F(TensorCapiTest, FromHostRoundTripsEveryDType) {
  const std::vector<int64_t> shape = {4, 6};
  const std::vector<float> f = Iota(24);
  TensorPtr a = FromHost(f, shape, "cpu:[0]", "S(0)");
  EXPECT_EQ(ToHost<float>(a.get()), f);
  std::vector<double> d(f.begin(), f.end());
  EXPECT_EQ(ToHost<double>(FromHost(d, shape, "cpu:[0]", "B").get()), d);
  std::vector<int32_t> i(f.begin(), f.end());
  EXPECT_EQ(ToHost<int32_t>(FromHost(i, shape, "cpu:[[0]]", "(S(1), P)").get()), i);
  std::vector<int64_t> l(f.begin(), f.end());
  EXPECT_EQ(ToHost<int64_t>(FromHost(l, shape, "cpu:[0]", "P(max)").get()), l);
}

TEST_F(TensorCapiTest, ScalarAndEmptyTensors) {
  const float value = 2.5f;
  tess_tensor* t = nullptr;
  ASSERT_EQ(tess_tensor_from_host(&t, &value, nullptr, 0, TESS_DTYPE_F32, p_.get(), b_.get()),
            TESS_OK)
      << LastError();
  TensorPtr scalar(t);
  EXPECT_EQ(ShapeOf(t), std::vector<int64_t>{});
  EXPECT_EQ(ToHost<float>(t), std::vector<float>{2.5f});
  EXPECT_STREQ(tess_tensor_string(t), "[] f32 cpu:[0] B");

  const int64_t empty_shape[] = {0, 3};
  ASSERT_EQ(tess_tensor_from_host(&t, nullptr, empty_shape, 2, TESS_DTYPE_F32, p_.get(), s0_.get()),
            TESS_OK)
      << LastError();
  TensorPtr empty(t);
  int64_t n = -1;
  ASSERT_EQ(tess_tensor_num_elements(&n, t), TESS_OK);
  EXPECT_EQ(n, 0);
  EXPECT_EQ(tess_tensor_to_host(nullptr, 0, t), TESS_OK) << LastError();
  EXPECT_EQ(tess_tensor_copy_local(nullptr, 0, t), TESS_OK) << LastError();
}

TEST_F(TensorCapiTest, FromHostBadInput) {
  const std::vector<float> data = Iota(6);
  const int64_t shape[] = {2, 3};
  tess_tensor* out = kSentinel;
  EXPECT_EQ(
      tess_tensor_from_host(nullptr, data.data(), shape, 2, TESS_DTYPE_F32, p_.get(), s0_.get()),
      TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_from_host: argument \"out\" is NULL");
  EXPECT_EQ(
      tess_tensor_from_host(&out, data.data(), nullptr, 2, TESS_DTYPE_F32, p_.get(), s0_.get()),
      TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_from_host: argument \"shape\" is NULL");
  EXPECT_EQ(tess_tensor_from_host(&out, data.data(), shape, 2, TESS_DTYPE_F32, nullptr, s0_.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_from_host: argument \"placement\" is NULL");
  EXPECT_EQ(tess_tensor_from_host(&out, data.data(), shape, 2, TESS_DTYPE_F32, p_.get(), nullptr),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_from_host: argument \"nd_sbp\" is NULL");
  EXPECT_EQ(tess_tensor_from_host(&out, data.data(), shape, 2, 17, p_.get(), s0_.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_tensor_from_host: dtype 17 is not a known dtype (f32 0, f64 1, i32 2, i64 3, "
            "f16 4, bf16 5, bool 6)");
  const int64_t negative[] = {2, -3};
  EXPECT_EQ(
      tess_tensor_from_host(&out, data.data(), negative, 2, TESS_DTYPE_F32, p_.get(), s0_.get()),
      TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_from_host: shape: shape dim 1 is -3; dims must be >= 0");
  const int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(tess_tensor_from_host(&out, data.data(), nine, 9, TESS_DTYPE_F32, p_.get(), s0_.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("shape has 9 dims; at most 8 are supported"));
  EXPECT_EQ(tess_tensor_from_host(&out, nullptr, shape, 2, TESS_DTYPE_F32, p_.get(), s0_.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("host buffer is NULL but the tensor [2,3] f32 cpu:[0] S(0) has 6 elements"));
  NdSbpPtr s2 = NdSbp("S(2)");
  EXPECT_EQ(tess_tensor_from_host(&out, data.data(), shape, 2, TESS_DTYPE_F32, p_.get(), s2.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("S(2)"));
  NdSbpPtr two_axes = NdSbp("(S(0), B)");
  EXPECT_EQ(
      tess_tensor_from_host(&out, data.data(), shape, 2, TESS_DTYPE_F32, p_.get(), two_axes.get()),
      TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("(S(0), B)"));
#if !defined(TESSERA_WITH_CUDA)
  // With CUDA, cuda placements work (tests/eager:cuda_eager_test).
  PlacementPtr cuda = Placement("cuda:[0]");
  EXPECT_EQ(
      tess_tensor_from_host(&out, data.data(), shape, 2, TESS_DTYPE_F32, cuda.get(), s0_.get()),
      TESS_UNIMPLEMENTED);
  EXPECT_TRUE(ErrorHas("built without CUDA, so only cpu placements hold eager tensors"));
#endif
  EXPECT_EQ(out, kSentinel);
}

TEST_F(TensorCapiTest, FromLocalWithAndWithoutLogicalShape) {
  const std::vector<float> data = Iota(6);
  const int64_t shape[] = {3, 2};
  tess_tensor* t = nullptr;
  ASSERT_EQ(tess_tensor_from_local(&t, data.data(), shape, 2, TESS_DTYPE_F32, p_.get(), s0_.get(),
                                   nullptr),
            TESS_OK)
      << LastError();
  TensorPtr inferred(t);
  EXPECT_EQ(ShapeOf(t), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(ToHost<float>(t), data);
  ASSERT_EQ(
      tess_tensor_from_local(&t, data.data(), shape, 2, TESS_DTYPE_F32, p_.get(), s0_.get(), shape),
      TESS_OK)
      << LastError();
  TensorPtr given(t);
  EXPECT_EQ(ToHost<float>(t), data);

  tess_tensor* out = kSentinel;
  const int64_t other[] = {4, 2};
  EXPECT_EQ(tess_tensor_from_local(&out, data.data(), shape, 2, TESS_DTYPE_F32, p_.get(), s0_.get(),
                                   other),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(
      ErrorHas("tess_tensor_from_local: from_local: rank 0's local shape [3,2] is "
               "not its part [4,2] of logical shape [4,2]"));
  const int64_t negative[] = {-4, 2};
  EXPECT_EQ(tess_tensor_from_local(&out, data.data(), shape, 2, TESS_DTYPE_F32, p_.get(), s0_.get(),
                                   negative),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_tensor_from_local: logical_shape: shape dim 0 is -4; dims must be >= 0");
  EXPECT_EQ(tess_tensor_from_local(&out, data.data(), negative, 2, TESS_DTYPE_F32, p_.get(),
                                   s0_.get(), nullptr),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("local_shape: shape dim 0 is -4"));
  EXPECT_EQ(tess_tensor_from_local(&out, data.data(), shape, 2, -1, p_.get(), s0_.get(), nullptr),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("dtype -1 is not a known dtype"));
  EXPECT_EQ(tess_tensor_from_local(&out, data.data(), nullptr, 2, TESS_DTYPE_F32, p_.get(),
                                   s0_.get(), nullptr),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_from_local: argument \"local_shape\" is NULL");
  EXPECT_EQ(
      tess_tensor_from_local(&out, nullptr, shape, 2, TESS_DTYPE_F32, p_.get(), s0_.get(), nullptr),
      TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("local buffer is NULL"));
  EXPECT_EQ(out, kSentinel);
}

TEST_F(TensorCapiTest, FullArangeRand) {
  const int64_t shape[] = {3, 5};
  tess_tensor* t = nullptr;
  ASSERT_EQ(tess_tensor_full(&t, shape, 2, TESS_DTYPE_I64, -7, p_.get(), s0_.get()), TESS_OK)
      << LastError();
  TensorPtr full(t);
  EXPECT_EQ(ToHost<int64_t>(t), std::vector<int64_t>(15, -7));

  ASSERT_EQ(tess_tensor_arange(&t, 2, 11, 3, TESS_DTYPE_I32, p_.get(), b_.get()), TESS_OK)
      << LastError();
  TensorPtr ints(t);
  EXPECT_EQ(ToHost<int32_t>(t), (std::vector<int32_t>{2, 5, 8}));
  ASSERT_EQ(tess_tensor_arange(&t, 1, 0, -0.25, TESS_DTYPE_F64, p_.get(), s0_.get()), TESS_OK)
      << LastError();
  TensorPtr down(t);
  EXPECT_EQ(ToHost<double>(t), (std::vector<double>{1, 0.75, 0.5, 0.25}));

  // The logical value depends on (shape, dtype, seed) only, never on the layout.
  ASSERT_EQ(tess_tensor_rand(&t, shape, 2, TESS_DTYPE_F32, 42, p_.get(), s0_.get()), TESS_OK)
      << LastError();
  TensorPtr r1(t);
  PlacementPtr grid = Placement("cpu:[[0]]");
  NdSbpPtr grid_sbp = NdSbp("(B, S(1))");
  ASSERT_EQ(tess_tensor_rand(&t, shape, 2, TESS_DTYPE_F32, 42, grid.get(), grid_sbp.get()), TESS_OK)
      << LastError();
  TensorPtr r2(t);
  ASSERT_EQ(tess_tensor_rand(&t, shape, 2, TESS_DTYPE_F32, 43, p_.get(), s0_.get()), TESS_OK);
  TensorPtr r3(t);
  const std::vector<float> u = ToHost<float>(r1.get());
  EXPECT_EQ(u, ToHost<float>(r2.get()));
  EXPECT_NE(u, ToHost<float>(r3.get()));
  for (float v : u) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
  ASSERT_EQ(tess_tensor_randn(&t, shape, 2, TESS_DTYPE_F64, 42, p_.get(), s0_.get()), TESS_OK)
      << LastError();
  TensorPtr n1(t);
  const std::vector<double> n = ToHost<double>(t);
  bool negative = false;
  for (double v : n) {
    EXPECT_TRUE(std::isfinite(v));
    negative |= v < 0;
  }
  EXPECT_TRUE(negative) << "15 standard normal values, none negative";

  tess_tensor* out = kSentinel;
  EXPECT_EQ(tess_tensor_full(&out, shape, 2, TESS_DTYPE_I32, 0.5, p_.get(), s0_.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_full: full: value 0.5 is not representable as i32");
  EXPECT_EQ(tess_tensor_full(&out, nullptr, 2, TESS_DTYPE_I32, 0, p_.get(), s0_.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_tensor_arange(&out, 0, 1, 0, TESS_DTYPE_F32, p_.get(), s0_.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(
      ErrorHas("tess_tensor_arange: arange: start, stop and step must be finite and step "
               "non-zero"));
  EXPECT_EQ(tess_tensor_arange(&out, 0.5, 3, 1, TESS_DTYPE_I64, p_.get(), s0_.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("i64 needs integral start and step"));
  EXPECT_EQ(tess_tensor_arange(&out, 0, 3, 1, 99, p_.get(), s0_.get()), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("dtype 99 is not a known dtype"));
  EXPECT_EQ(tess_tensor_rand(&out, shape, 2, TESS_DTYPE_I32, 1, p_.get(), s0_.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_tensor_rand: rand: dtype i32 is not a floating type (f32, f64, f16 or bf16)");
  EXPECT_EQ(tess_tensor_randn(&out, shape, 2, TESS_DTYPE_I64, 1, p_.get(), s0_.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("tess_tensor_randn: randn: dtype i64"));
  EXPECT_EQ(tess_tensor_randn(nullptr, shape, 2, TESS_DTYPE_F32, 1, p_.get(), s0_.get()),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_tensor_arange(&out, 0, 3, 1, TESS_DTYPE_F32, p_.get(), nullptr),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(out, kSentinel);
  tess_tensor_destroy(nullptr);
}

TEST_F(TensorCapiTest, Metadata) {
  TensorPtr t = FromHost(Iota(30), {5, 6}, "cpu:[[0]]", "(S(1), S(0))");
  int64_t n = 0;
  ASSERT_EQ(tess_tensor_num_elements(&n, t.get()), TESS_OK);
  EXPECT_EQ(n, 30);
  tess_dtype dtype = -1;
  ASSERT_EQ(tess_tensor_dtype(&dtype, t.get()), TESS_OK);
  EXPECT_EQ(dtype, TESS_DTYPE_F32);
  tess_placement* p = nullptr;
  ASSERT_EQ(tess_tensor_placement(&p, t.get()), TESS_OK);
  PlacementPtr placement(p);
  EXPECT_STREQ(tess_placement_string(p), "cpu:[[0]]");
  EXPECT_EQ(NdSbpText(t.get()), "(S(1), S(0))");
  int32_t has = -1;
  ASSERT_EQ(tess_tensor_has_local(&has, t.get()), TESS_OK);
  EXPECT_EQ(has, 1);
  ASSERT_EQ(tess_tensor_local_num_elements(&n, t.get()), TESS_OK);
  EXPECT_EQ(n, 30);
  EXPECT_STREQ(tess_tensor_string(t.get()), "[5,6] f32 cpu:[[0]] (S(1), S(0))");
  EXPECT_EQ(tess_tensor_string(t.get()), tess_tensor_string(t.get()));  // made once
  EXPECT_STREQ(tess_tensor_string(nullptr), "");

  // The borrowed shapes: one call each, valid while the tensor lives.
  const int64_t* dims = nullptr;
  size_t ndim = 0;
  ASSERT_EQ(tess_tensor_shape(&dims, &ndim, t.get()), TESS_OK) << LastError();
  ASSERT_EQ(ndim, 2u);
  EXPECT_EQ(dims[0], 5);
  EXPECT_EQ(dims[1], 6);
  ASSERT_EQ(tess_tensor_local_shape(&dims, &ndim, t.get()), TESS_OK) << LastError();
  ASSERT_EQ(ndim, 2u);
  EXPECT_EQ(dims[0], 5);
  EXPECT_EQ(dims[1], 6);
  EXPECT_EQ(tess_tensor_shape(nullptr, &ndim, t.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_shape: argument \"out_dims\" is NULL");
  EXPECT_EQ(tess_tensor_shape(&dims, nullptr, t.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_shape: argument \"out_ndim\" is NULL");
  EXPECT_EQ(tess_tensor_shape(&dims, &ndim, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_shape: argument \"tensor\" is NULL");
  EXPECT_EQ(tess_tensor_local_shape(nullptr, &ndim, t.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_local_shape: argument \"out_dims\" is NULL");
  EXPECT_EQ(tess_tensor_local_shape(&dims, nullptr, t.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_local_shape: argument \"out_ndim\" is NULL");
  EXPECT_EQ(tess_tensor_local_shape(&dims, &ndim, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_local_shape: argument \"tensor\" is NULL");
  // A 0-d tensor: 0 dims, and a pointer that is still not NULL.
  TensorPtr scalar = FromHost(std::vector<float>{3.0f}, {}, "cpu:[0]", "B");
  dims = nullptr;
  ASSERT_EQ(tess_tensor_shape(&dims, &ndim, scalar.get()), TESS_OK) << LastError();
  EXPECT_EQ(ndim, 0u);
  EXPECT_NE(dims, nullptr);

  EXPECT_EQ(tess_tensor_num_elements(nullptr, t.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_tensor_dtype(&dtype, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_tensor_placement(nullptr, t.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_tensor_nd_sbp(nullptr, t.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_tensor_has_local(&has, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_tensor_local_num_elements(nullptr, t.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_local_num_elements: argument \"out\" is NULL");
}

TEST_F(TensorCapiTest, RankOutsideThePlacementHoldsMetadataOnly) {
  // In a world of one rank, rank 1 does not exist, so this rank is outside.
  PlacementPtr other = Placement("cpu:[1]");
  const int64_t shape[] = {4};
  tess_tensor* t = nullptr;
  ASSERT_EQ(tess_tensor_full(&t, shape, 1, TESS_DTYPE_F32, 1, other.get(), b_.get()), TESS_OK)
      << LastError();
  TensorPtr outside(t);
  int32_t has = -1;
  ASSERT_EQ(tess_tensor_has_local(&has, t), TESS_OK);
  EXPECT_EQ(has, 0);
  size_t ndim = 77;
  int64_t n = 77;
  const int64_t* dims = nullptr;
  EXPECT_EQ(tess_tensor_local_shape(&dims, &ndim, t), TESS_FAILED_PRECONDITION);
  EXPECT_EQ(LastError(),
            "tess_tensor_local_shape: rank 0 holds no local piece of [4] f32 cpu:[1] B: the "
            "placement does not hold it");
  EXPECT_EQ(dims, nullptr);
  EXPECT_EQ(ndim, 77u);
  ASSERT_EQ(tess_tensor_shape(&dims, &ndim, t), TESS_OK) << LastError();
  EXPECT_EQ(ndim, 1u);
  EXPECT_EQ(dims[0], 4);
  EXPECT_EQ(tess_tensor_local_num_elements(&n, t), TESS_FAILED_PRECONDITION);
  EXPECT_EQ(n, 77);
  float buffer[4];
  EXPECT_EQ(tess_tensor_copy_local(buffer, sizeof(buffer), t), TESS_FAILED_PRECONDITION);
  EXPECT_TRUE(ErrorHas("tess_tensor_copy_local: rank 0 holds no local piece"));
}

TEST_F(TensorCapiTest, ToHostAndCopyLocalCheckTheBuffer) {
  const std::vector<float> data = Iota(6);
  TensorPtr t = FromHost(data, {2, 3}, "cpu:[0]", "S(1)");
  std::vector<float> local(6, -1.0f);
  ASSERT_EQ(tess_tensor_copy_local(local.data(), 24, t.get()), TESS_OK) << LastError();
  EXPECT_EQ(local, data);
  std::vector<float> small(2, -1.0f);
  EXPECT_EQ(tess_tensor_to_host(small.data(), 8, t.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_to_host: out has 8 bytes but 6 f32 elements need 24");
  EXPECT_EQ(tess_tensor_copy_local(small.data(), 23, t.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_copy_local: out has 23 bytes but 6 f32 elements need 24");
  EXPECT_EQ(small, std::vector<float>(2, -1.0f));
  EXPECT_EQ(tess_tensor_to_host(nullptr, 24, t.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_tensor_to_host: argument \"out\" is NULL but [2,3] f32 cpu:[0] S(1) has 6 "
            "elements");
  EXPECT_EQ(tess_tensor_copy_local(nullptr, 24, t.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_tensor_to_host(local.data(), 24, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_to_host: argument \"tensor\" is NULL");
  EXPECT_EQ(tess_tensor_copy_local(local.data(), 24, nullptr), TESS_INVALID_ARGUMENT);
  // A larger buffer is fine; the bytes past the value stay as they were.
  std::vector<float> large(8, -1.0f);
  ASSERT_EQ(tess_tensor_to_host(large.data(), 32, t.get()), TESS_OK);
  EXPECT_EQ(std::vector<float>(large.begin(), large.begin() + 6), data);
  EXPECT_EQ(large[6], -1.0f);
}

TEST_F(TensorCapiTest, ToGlobalKeepsTheValue) {
  const std::vector<float> data = Iota(12);
  TensorPtr t = FromHost(data, {3, 4}, "cpu:[0]", "S(0)");
  PlacementPtr grid = Placement("cpu:[[0]]");
  NdSbpPtr sbp = NdSbp("(S(1), P)");
  tess_tensor* moved = nullptr;
  ASSERT_EQ(tess_tensor_to_global(&moved, t.get(), grid.get(), sbp.get()), TESS_OK) << LastError();
  TensorPtr m(moved);
  EXPECT_STREQ(tess_tensor_string(moved), "[3,4] f32 cpu:[[0]] (S(1), P)");
  EXPECT_EQ(ToHost<float>(moved), data);
  // The original is unchanged (tensors are immutable).
  EXPECT_EQ(NdSbpText(t.get()), "S(0)");

  tess_tensor* out = kSentinel;
  NdSbpPtr bad = NdSbp("S(2)");
  EXPECT_EQ(tess_tensor_to_global(&out, t.get(), p_.get(), bad.get()), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("tess_tensor_to_global: "));
  EXPECT_TRUE(ErrorHas("S(2)"));
  EXPECT_EQ(tess_tensor_to_global(&out, nullptr, p_.get(), b_.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_to_global: argument \"tensor\" is NULL");
  EXPECT_EQ(tess_tensor_to_global(&out, t.get(), nullptr, b_.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_tensor_to_global(&out, t.get(), p_.get(), nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_tensor_to_global(nullptr, t.get(), p_.get(), b_.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(out, kSentinel);
}

TEST_F(TensorCapiTest, HandlesOutliveEachOther) {
  // A tensor from to_global may share the core tensor; destroying either handle
  // first leaves the other valid.
  const std::vector<float> data = Iota(4);
  TensorPtr t = FromHost(data, {4}, "cpu:[0]", "S(0)");
  tess_tensor* same = nullptr;
  ASSERT_EQ(tess_tensor_to_global(&same, t.get(), p_.get(), s0_.get()), TESS_OK);
  t.reset();
  EXPECT_EQ(ToHost<float>(same), data);
  tess_tensor_destroy(same);
}

}  // namespace
}  // namespace tessera::capi_test
