#include "core/boxing/local_ops.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "core/boxing/boxing_backend.h"

namespace tessera::boxing {
namespace {

Shape S(std::vector<int64_t> dims) { return Shape::Make(dims.data(), dims.size()).value(); }

TEST(HostLocalOpsTest, CopiesAndFillsHostMemoryAtOnce) {
  const LocalOps& ops = HostLocalOps();
  EXPECT_EQ(ops.device_type(), DeviceType::kCpu);
  std::vector<int32_t> src(12), dst(12, -1);
  for (int i = 0; i < 12; ++i) src[i] = 10 + i;
  ASSERT_TRUE(ops.CopyBytes(dst.data(), src.data(), 5 * sizeof(int32_t)).ok());
  for (int i = 0; i < 12; ++i) EXPECT_EQ(dst[i], i < 5 ? src[i] : -1) << i;
  ASSERT_TRUE(ops.CopyBytes(nullptr, nullptr, 0).ok());

  // Column 2 of the [3,4] src into column 0 of a [3,2] dst.
  std::vector<int32_t> cols(6, -1);
  const int64_t sb[2] = {0, 2}, db[2] = {0, 0};
  ASSERT_TRUE(
      ops.CopyBox(src.data(), S({3, 4}), sb, cols.data(), S({3, 2}), db, S({3, 1}), sizeof(int32_t))
          .ok());
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(cols[2 * r], src[4 * r + 2]) << r;
    EXPECT_EQ(cols[2 * r + 1], -1) << r;
  }

  std::vector<float> f(4, 1.0f);
  ASSERT_TRUE(ops.FillReductionIdentity(f.data(), 3, DType::kF32, comm::ReduceOp::kMin).ok());
  EXPECT_EQ(f, (std::vector<float>{std::numeric_limits<float>::infinity(),
                                   std::numeric_limits<float>::infinity(),
                                   std::numeric_limits<float>::infinity(), 1.0f}));
  EXPECT_TRUE(ops.Finish().ok());
}

TEST(HostBoxingBackendTest, HostOpsAndHostStaging) {
  BoxingBackend& backend = HostBoxingBackend();
  EXPECT_EQ(backend.device_type(), DeviceType::kCpu);
  Result<std::shared_ptr<const LocalOps>> ops = backend.OpsFor(nullptr);
  ASSERT_TRUE(ops.ok());
  EXPECT_EQ(ops->get(), &HostLocalOps());
  Result<memory::Allocator*> staging = backend.StagingAllocator();
  ASSERT_TRUE(staging.ok());
  EXPECT_EQ(*staging, nullptr);
}

TEST(CudaBoxingBackendTest, ThisBuildsAnswer) {
  Result<BoxingBackend*> backend = CudaBoxingBackend();
#ifdef TESSERA_WITH_CUDA
  ASSERT_TRUE(backend.ok()) << backend.status().ToString();
  EXPECT_EQ((*backend)->device_type(), DeviceType::kCuda);
#else
  EXPECT_EQ(backend.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(backend.status().message(),
            "Tessera was built without CUDA (build with --config=cuda)");
#endif
}

}  // namespace
}  // namespace tessera::boxing
