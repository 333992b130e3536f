// tess_runtime_cuda_info in a world of one rank: its NULL out-params, its answer against the
// build (TESSERA_WITH_CUDA) and the CUDA runtime's own device count, and that a cuda
// placement behaves as it says: UNIMPLEMENTED without a CUDA build, UNAVAILABLE
// without a device, and a working round trip (host -> add -> host) with one.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#if defined(TESSERA_WITH_CUDA)
#include <cuda_runtime.h>
#endif

#include "capi/tensor_test_util.h"
#include "tessera/tessera.h"

namespace tessera::capi_test {
namespace {

constexpr int32_t kUntouched = -7;

// What the CUDA runtime itself says, asked directly: the oracle for device_count.
int32_t RuntimeDeviceCount() {
#if defined(TESSERA_WITH_CUDA)
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;  // no driver: a machine without a GPU
  }
  return count;
#else
  return 0;
#endif
}

#if defined(TESSERA_WITH_CUDA)
constexpr int32_t kBuiltWithCuda = 1;
#else
constexpr int32_t kBuiltWithCuda = 0;
#endif

// Declared first, so it runs before any test initialises the runtime.
// Finalizes the runtime a test initialized, after the last test: a process that
// initialized MPI and exits without finalizing fails its job under mpirun (as on a lent
// GPU machine, where every binary runs under mpirun).
class FinalizeRuntimeAtEnd : public ::testing::Environment {
 public:
  void TearDown() override { tess_runtime_finalize(); }
};
::testing::Environment* const kFinalizeAtEnd =
    ::testing::AddGlobalTestEnvironment(new FinalizeRuntimeAtEnd);

TEST(CudaInfoCapiTest, AnswersBeforeInitAndMatchesTheBuildAndTheRuntime) {
  int32_t rank = kUntouched;
  ASSERT_EQ(tess_runtime_world_rank(&rank), TESS_FAILED_PRECONDITION)
      << "the runtime is initialised";
  int32_t built = kUntouched;
  int32_t count = kUntouched;
  ASSERT_EQ(tess_runtime_cuda_info(&built, &count), TESS_OK) << LastError();
  EXPECT_EQ(built, kBuiltWithCuda);
  EXPECT_EQ(count, RuntimeDeviceCount());
}

TEST(CudaInfoCapiTest, NullOutParamsAreNamedAndNothingIsWritten) {
  int32_t built = kUntouched;
  int32_t count = kUntouched;
  EXPECT_EQ(tess_runtime_cuda_info(nullptr, &count), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_runtime_cuda_info: argument \"out_built_with_cuda\" is NULL");
  EXPECT_EQ(tess_last_error_code(), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(count, kUntouched);
  EXPECT_EQ(tess_runtime_cuda_info(&built, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_runtime_cuda_info: argument \"out_device_count\" is NULL");
  EXPECT_EQ(built, kUntouched);
  EXPECT_EQ(tess_runtime_cuda_info(nullptr, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_runtime_cuda_info: argument \"out_built_with_cuda\" is NULL");
}

TEST(CudaInfoCapiTest, CudaPlacementsBehaveAsItSays) {
  ASSERT_EQ(tess_runtime_init(), TESS_OK) << LastError();
  int32_t built = 0;
  int32_t count = 0;
  ASSERT_EQ(tess_runtime_cuda_info(&built, &count), TESS_OK) << LastError();
  const std::vector<int64_t> shape = {5, 3};
  std::vector<float> a(15), b(15);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(static_cast<int>(i * 7) % 23 - 11) * 0.25f;
    b[i] = static_cast<float>(static_cast<int>(i * 5) % 17 - 8) * 0.5f;
  }
  PlacementPtr cuda = Placement("cuda:[0]");
  NdSbpPtr s0 = NdSbp("S(0)");
  tess_tensor* raw = nullptr;
  const tess_status made = tess_tensor_from_host(&raw, a.data(), shape.data(), shape.size(),
                                                 TESS_DTYPE_F32, cuda.get(), s0.get());
  TensorPtr x(raw);
  if (built == 0) {
    EXPECT_EQ(made, TESS_UNIMPLEMENTED);
    EXPECT_EQ(LastError(),
              "tess_tensor_from_host: eager tensors on cuda:[0]: this Tessera was built without "
              "CUDA, so only cpu placements hold eager tensors (build with --config=cuda)");
    return;
  }
  if (count == 0) {
    EXPECT_EQ(made, TESS_UNAVAILABLE);
    EXPECT_NE(LastError().find("no CUDA device visible"), std::string::npos) << LastError();
    std::printf("no CUDA device visible: checked UNAVAILABLE; the round trip needs a GPU\n");
    return;
  }
  ASSERT_EQ(made, TESS_OK) << LastError();
  TensorPtr y = FromHost(b, shape, "cuda:[0]", "B");
  ASSERT_NE(y, nullptr);
  ASSERT_EQ(tess_add(&raw, x.get(), y.get()), TESS_OK) << LastError();
  TensorPtr sum(raw);
  std::vector<float> want(a.size());
  for (size_t i = 0; i < a.size(); ++i) want[i] = a[i] + b[i];
  EXPECT_EQ(ToHost<float>(sum.get()), want);
}

}  // namespace
}  // namespace tessera::capi_test
