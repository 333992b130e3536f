#include "core/plan/register_desc.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

namespace tessera::plan {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

RegisterDesc Desc(MemCase mem_case, Shape shape, DType dtype, int copies) {
  RegisterDesc desc;
  desc.name = "t";
  desc.mem_case = mem_case;
  desc.shape = shape;
  desc.dtype = dtype;
  desc.register_num = copies;
  desc.lifetime = Lifetime{0, 3};
  return desc;
}

int64_t RoundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

TEST(MemCaseTest, NamesOrderAndChecks) {
  EXPECT_EQ(MemCase::Host().ToString(), "cpu");
  EXPECT_EQ(MemCase::Cuda(3).ToString(), "cuda:3");
  EXPECT_TRUE(MemCase::Host() < MemCase::Cuda(0));
  EXPECT_TRUE(MemCase::Cuda(0) < MemCase::Cuda(1));
  EXPECT_TRUE(MemCase::Host().is_host());
  EXPECT_FALSE(MemCase::Cuda(0).is_host());
  EXPECT_TRUE(CheckMemCase(MemCase::Cuda(7), "w").ok());
  EXPECT_EQ(CheckMemCase(MemCase{DeviceType::kCpu, 1}, "w").message(),
            "w: host memory case has device index 1; host memory has index 0");
  EXPECT_EQ(CheckMemCase(MemCase::Cuda(-2), "w").message(),
            "w: memory case cuda:-2 has a negative device index");
  EXPECT_EQ(CheckMemCase(MemCase{static_cast<DeviceType>(9), 0}, "w").message(),
            "w: memory case has device type 9; expected cpu (0) or cuda (1)");
}

TEST(RegisterLayoutTest, HeadersAndBodiesAreSizedApart) {
  // [3,5] f32: 60 data bytes; header 2 dims * 8 = 16 -> 64; body 60 -> 512.
  Result<RegisterLayout> l =
      ComputeRegisterLayout(Desc(MemCase::Host(), {3, 5}, DType::kF32, 1), 0, "T");
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_EQ(l->data_bytes, 60);
  EXPECT_EQ(l->header_bytes, 64);
  EXPECT_EQ(l->body_bytes, 512);
  EXPECT_EQ(l->total_bytes, 576);
  EXPECT_EQ(l->block_bytes, 512);
  EXPECT_EQ(l->header_area_bytes, 64);

  // [1000] f64 x 3 copies: body 8000 -> 8192; total (64 + 8192) * 3 = 24768, of which the
  // block holds the three bodies and the header area the three headers.
  l = ComputeRegisterLayout(Desc(MemCase::Host(), {1000}, DType::kF64, 3), 0, "T");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->body_bytes, 8192);
  EXPECT_EQ(l->total_bytes, 24768);
  EXPECT_EQ(l->block_bytes, 3 * 8192);
  EXPECT_EQ(l->header_area_bytes, 3 * 64);

  // The same on a device: [7,9,2] i64 x 2: data 1008 -> body 1024; header 24 -> 64.
  l = ComputeRegisterLayout(Desc(MemCase::Cuda(1), {7, 9, 2}, DType::kI64, 2), 0, "T");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->body_bytes, 1024);
  EXPECT_EQ(l->header_bytes, 64);
  EXPECT_EQ(l->total_bytes, (64 + 1024) * 2);
  EXPECT_EQ(l->block_bytes, 2048);
  EXPECT_EQ(l->header_area_bytes, 128);
}

TEST(RegisterLayoutTest, ScalarsAndZeroSizeRegisters) {
  // A scalar has no dims: a 0-byte header, a 4 -> 512-byte body.
  Result<RegisterLayout> l =
      ComputeRegisterLayout(Desc(MemCase::Host(), {}, DType::kF32, 1), 0, "T");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->header_bytes, 0);
  EXPECT_EQ(l->block_bytes, 512);
  // Zero elements: the header only, on host and on a device.
  for (MemCase mc : {MemCase::Host(), MemCase::Cuda(0)}) {
    l = ComputeRegisterLayout(Desc(mc, {0, 7}, DType::kF32, 2), 0, "T");
    ASSERT_TRUE(l.ok());
    EXPECT_EQ(l->body_bytes, 0);
    EXPECT_EQ(l->block_bytes, 0);
    EXPECT_EQ(l->header_area_bytes, 128);
    EXPECT_EQ(l->total_bytes, 128);
  }
  // Eight dims fill a 64-byte header exactly.
  l = ComputeRegisterLayout(Desc(MemCase::Host(), {1, 1, 1, 1, 1, 1, 1, 2}, DType::kF32, 1), 0,
                            "T");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->header_bytes, 64);
}

// Against the formulas computed here with plain arithmetic, for random shapes.
TEST(RegisterLayoutTest, RandomShapesMatchTheFormulas) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 500; ++trial) {
    const int ndim = static_cast<int>(rng() % 5);
    std::vector<int64_t> dims(ndim);
    int64_t elements = 1;
    for (int64_t& d : dims) elements *= (d = static_cast<int64_t>(rng() % 50));
    const DType dtype = static_cast<DType>(rng() % 4);
    const int copies = 1 + static_cast<int>(rng() % 4);
    const MemCase mc = rng() % 2 == 0 ? MemCase::Host() : MemCase::Cuda(0);
    Result<RegisterLayout> l =
        ComputeRegisterLayout(Desc(mc, *Shape::Make(dims), dtype, copies), 0, "T");
    ASSERT_TRUE(l.ok());
    const int64_t data = elements * static_cast<int64_t>(DTypeSize(dtype));
    const int64_t header = RoundUp(8 * ndim, 64);
    const int64_t body = RoundUp(data, 512);
    EXPECT_EQ(l->data_bytes, data);
    EXPECT_EQ(l->total_bytes, (header + body) * copies);
    EXPECT_EQ(l->block_bytes, body * copies);
    EXPECT_EQ(l->header_area_bytes, header * copies);
    EXPECT_EQ(l->block_bytes % 512, 0);
    EXPECT_EQ(l->header_area_bytes % 64, 0);
  }
}

TEST(RegisterLayoutTest, BadDescriptorsNameTheRegister) {
  auto error = [](const RegisterDesc& desc) {
    Result<RegisterLayout> l = ComputeRegisterLayout(desc, 4, "PlanMemory");
    EXPECT_FALSE(l.ok());
    return l.status();
  };
  RegisterDesc d = Desc(MemCase::Host(), {2}, DType::kF32, 0);
  Status s = error(d);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "PlanMemory: register \"t\" (#4): register_num is 0; it must be >= 1");
  d.register_num = 1;
  d.lifetime = Lifetime{5, 2};
  EXPECT_EQ(error(d).message(),
            "PlanMemory: register \"t\" (#4): lifetime [5,2] ends (step 2) before it starts "
            "(step 5)");
  d.lifetime = Lifetime{0, 1};
  d.mem_case = MemCase::Cuda(-1);
  EXPECT_EQ(error(d).code(), StatusCode::kInvalidArgument);
  d.mem_case = MemCase::Host();
  d.dtype = static_cast<DType>(42);
  EXPECT_EQ(error(d).message(), "PlanMemory: register \"t\" (#4): dtype 42 is not a DType");
  d.dtype = DType::kF32;
  d.shape = Shape({2, 3});
  d.shape.set_dim(1, -3);  // Shape's unchecked setter can make one
  EXPECT_EQ(error(d).code(), StatusCode::kInvalidArgument);
}

TEST(RegisterLayoutTest, SizeOverflowsAreOutOfRange) {
  auto error = [](Shape shape, DType dtype, int copies) {
    Result<RegisterLayout> l =
        ComputeRegisterLayout(Desc(MemCase::Host(), shape, dtype, copies), 0, "P");
    EXPECT_FALSE(l.ok());
    EXPECT_EQ(l.status().code(), StatusCode::kOutOfRange);
    return l.status().message();
  };
  // Element count 2^62 * 4 = 2^64.
  EXPECT_EQ(error({int64_t{1} << 62, 4}, DType::kF32, 1),
            "P: register \"t\" (#0): element count of shape [4611686018427387904,4] overflows "
            "int64: 4611686018427387904 * 4");
  // 2^61 f64 elements = 2^64 bytes.
  EXPECT_NE(error({int64_t{1} << 61}, DType::kF64, 1).find("byte size"), std::string::npos);
  // 2^61 - 1 f32 elements = 2^63 - 4 bytes, which does not round up to 512.
  EXPECT_NE(error({(int64_t{1} << 61) - 1}, DType::kF32, 1).find("body size"), std::string::npos);
  // 2^60 f32 = 2^62 bytes per body, two bodies = 2^63.
  EXPECT_NE(error({int64_t{1} << 60}, DType::kF32, 2).find("bodies with register_num 2"),
            std::string::npos);
}

TEST(CheckedArithmeticTest, OverflowIsReported) {
  EXPECT_EQ(*CheckedAlignUp(513, 512, "x"), 1024);
  EXPECT_EQ(*CheckedAlignUp(0, 512, "x"), 0);
  EXPECT_EQ(CheckedAlignUp(kMax - 10, 512, "x").status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(*CheckedMul(3, 5, "x"), 15);
  EXPECT_EQ(CheckedMul(kMax / 2 + 1, 2, "the thing").status().message(),
            "the thing overflows int64: 4611686018427387904 * 2");
  EXPECT_EQ(*CheckedAdd(3, 5, "x"), 8);
  EXPECT_EQ(CheckedAdd(kMax, 1, "x").status().code(), StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace tessera::plan
