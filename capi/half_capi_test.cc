// f16 and bf16 through the C API in a world of one rank: host buffers of raw 2-byte
// bits in and out (tess_tensor_from_host / to_host), an op, full, arange, randn and
// DLPack. Expected bits are written out by hand from the formats' definitions
// (f16: sign, 5 exponent bits biased 15, 10 mantissa bits; bf16: f32's top 16 bits).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/dlpack.h"
#include "tessera/tessera.h"

namespace tessera::capi_test {
namespace {

using Bits = std::vector<uint16_t>;

class HalfCapiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(tess_runtime_init(), TESS_OK) << LastError(); }

  TensorPtr FromBits(const Bits& bits, tess_dtype dtype) {
    const int64_t shape[] = {static_cast<int64_t>(bits.size())};
    tess_tensor* t = nullptr;
    EXPECT_EQ(tess_tensor_from_host(&t, bits.data(), shape, 1, dtype, p_.get(), s0_.get()), TESS_OK)
        << LastError();
    return TensorPtr(t);
  }

  static Bits ToBits(const tess_tensor* t) {
    int64_t n = 0;
    EXPECT_EQ(tess_tensor_num_elements(&n, t), TESS_OK) << LastError();
    Bits out(static_cast<size_t>(n));
    EXPECT_EQ(tess_tensor_to_host(out.data(), out.size() * 2, t), TESS_OK) << LastError();
    return out;
  }

  PlacementPtr p_ = Placement("cpu:[0]");
  NdSbpPtr s0_ = NdSbp("S(0)");
};

// 1, 2, 0.5, 3 and their doubles 2, 4, 1, 6.
const Bits kF16 = {0x3c00, 0x4000, 0x3800, 0x4200};
const Bits kF16Doubled = {0x4000, 0x4400, 0x3c00, 0x4600};
const Bits kBF16 = {0x3f80, 0x4000, 0x3f00, 0x4040};
const Bits kBF16Doubled = {0x4000, 0x4080, 0x3f80, 0x40c0};

TEST_F(HalfCapiTest, HostBitsRoundTripAndAdd) {
  for (auto [dtype, in, doubled] : {std::tuple{TESS_DTYPE_F16, kF16, kF16Doubled},
                                    std::tuple{TESS_DTYPE_BF16, kBF16, kBF16Doubled}}) {
    SCOPED_TRACE(tess_dtype_name(dtype));
    TensorPtr x = FromBits(in, dtype);
    tess_dtype got = -1;
    ASSERT_EQ(tess_tensor_dtype(&got, x.get()), TESS_OK);
    EXPECT_EQ(got, dtype);
    EXPECT_EQ(ToBits(x.get()), in);
    tess_tensor* sum = nullptr;
    ASSERT_EQ(tess_add(&sum, x.get(), x.get()), TESS_OK) << LastError();
    TensorPtr owned(sum);
    EXPECT_EQ(ToBits(sum), doubled);
    // 2 bytes an element: 4 elements need 8 bytes, 7 are too few.
    Bits short_out(4);
    EXPECT_EQ(tess_tensor_to_host(short_out.data(), 7, x.get()), TESS_INVALID_ARGUMENT);
  }
}

TEST_F(HalfCapiTest, FullArangeAndRandn) {
  const int64_t shape[] = {3};
  tess_tensor* t = nullptr;
  // 1/3 rounds to nearest even: f16 0x3555 (0.333251953125), bf16 0x3eab (0.333984375).
  ASSERT_EQ(tess_tensor_full(&t, shape, 1, TESS_DTYPE_F16, 1.0 / 3, p_.get(), s0_.get()), TESS_OK)
      << LastError();
  EXPECT_EQ(ToBits(TensorPtr(t).get()), (Bits{0x3555, 0x3555, 0x3555}));
  ASSERT_EQ(tess_tensor_full(&t, shape, 1, TESS_DTYPE_BF16, 1.0 / 3, p_.get(), s0_.get()), TESS_OK);
  EXPECT_EQ(ToBits(TensorPtr(t).get()), (Bits{0x3eab, 0x3eab, 0x3eab}));
  // Past f16's largest finite value (65504): inf.
  ASSERT_EQ(tess_tensor_full(&t, shape, 1, TESS_DTYPE_F16, 1e6, p_.get(), s0_.get()), TESS_OK);
  EXPECT_EQ(ToBits(TensorPtr(t).get()), (Bits{0x7c00, 0x7c00, 0x7c00}));
  ASSERT_EQ(tess_tensor_arange(&t, 0, 4, 1, TESS_DTYPE_F16, p_.get(), s0_.get()), TESS_OK);
  EXPECT_EQ(ToBits(TensorPtr(t).get()), (Bits{0x0000, 0x3c00, 0x4000, 0x4200}));
  ASSERT_EQ(tess_tensor_arange(&t, 0, 4, 1, TESS_DTYPE_BF16, p_.get(), s0_.get()), TESS_OK);
  EXPECT_EQ(ToBits(TensorPtr(t).get()), (Bits{0x0000, 0x3f80, 0x4000, 0x4040}));
  // rand stays in [0, 1) (capped below 1 rather than rounding up to it); randn gives
  // finite values, not all equal (the generator itself is tested in f32).
  const int64_t lots[] = {4096};
  ASSERT_EQ(tess_tensor_rand(&t, lots, 1, TESS_DTYPE_F16, 3, p_.get(), s0_.get()), TESS_OK)
      << LastError();
  for (uint16_t b : ToBits(TensorPtr(t).get())) ASSERT_LT(b, 0x3c00) << std::hex << b;  // < 1.0
  const int64_t many[] = {64};
  ASSERT_EQ(tess_tensor_randn(&t, many, 1, TESS_DTYPE_BF16, 7, p_.get(), s0_.get()), TESS_OK)
      << LastError();
  const Bits r = ToBits(TensorPtr(t).get());
  int distinct = 0;
  for (uint16_t b : r) {
    EXPECT_NE(b & 0x7f80, 0x7f80) << "inf or NaN";
    distinct += b != r[0];
  }
  EXPECT_GT(distinct, 0);
}

TEST_F(HalfCapiTest, DLPackCodes) {
  for (auto [dtype, code, in] : {std::tuple{TESS_DTYPE_F16, uint8_t{kDLFloat}, kF16},
                                 std::tuple{TESS_DTYPE_BF16, uint8_t{kDLBfloat}, kBF16}}) {
    SCOPED_TRACE(tess_dtype_name(dtype));
    TensorPtr x = FromBits(in, dtype);
    DLManagedTensorVersioned* m = nullptr;
    ASSERT_EQ(tess_tensor_to_dlpack(&m, x.get()), TESS_OK) << LastError();
    EXPECT_EQ(m->dl_tensor.dtype.code, code);
    EXPECT_EQ(m->dl_tensor.dtype.bits, 16);
    EXPECT_EQ(m->dl_tensor.dtype.lanes, 1);
    Bits seen(4);
    std::memcpy(seen.data(), m->dl_tensor.data, 8);
    EXPECT_EQ(seen, in);
    // And back in: the same dtype and bits.
    tess_tensor* back = nullptr;
    ASSERT_EQ(tess_tensor_from_dlpack(&back, m, p_.get(), s0_.get(), nullptr), TESS_OK)
        << LastError();
    TensorPtr owned(back);
    tess_dtype got = -1;
    ASSERT_EQ(tess_tensor_dtype(&got, back), TESS_OK);
    EXPECT_EQ(got, dtype);
    EXPECT_EQ(ToBits(back), in);
  }
}

}  // namespace
}  // namespace tessera::capi_test
