// Multi-rank tests of BoxOnDevice (boxing of CUDA device memory over NCCL), run under
// mpirun with 1..4 ranks: every 1-d pair over {S(0), S(1), S(2), B, P, P(max), P(min)}
// in every dtype on even and uneven shapes, 2-d pairs on cuda:[[0,1],[2,3]], reshards
// between placements of different ranks and hierarchies, and argument errors.
//
// The GPU cases need one GPU per rank (NCCL refuses two ranks of one communicator on one
// device); elsewhere every rank prints why it skips them. Error paths that need no GPU,
// and the "no device" agreement (no rank left waiting), run everywhere. Oracle: as for
// Box on host memory (box_check.h): pieces derived from a closed form, boxed on the
// device, copied back and gathered, and the logical tensor rebuilt by plain loops.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/boxing/boxing.h"
#include "core/boxing/boxing_workspace.h"
#include "core/comm/mpi_world.h"
#include "core/comm/nccl/gpu_skip.h"
#include "core/comm/nccl/local_device.h"
#include "core/device/device.h"
#include "core/memory/device_caching_allocator.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"
#include "tests/boxing/box_check.h"

namespace tessera::boxing {
namespace {

using oracle::CheckBoxing;

int32_t Size() { return comm::WorldSize().value(); }
int Devices() { return device::DeviceCount().value(); }
Placement P(const std::string& text) { return Placement::Parse(text).value(); }
NdSbp Nd(const std::string& text) { return NdSbp::Parse(text).value(); }
std::string Str(int64_t v) { return std::to_string(v); }

// BoxOnDevice on layouts checked here from values, as a caller holding no BoxingLayouts
// would (BoxOnDevice's own messages keep its name; only an unfit nd-sbp names the test).
Status BoxValuesOnDevice(const void* in, void* out, const Shape& shape, DType dtype,
                         const Placement& src_p, const NdSbp& src, const Placement& dst_p,
                         const NdSbp& dst, BoxingWorkspace* workspace = nullptr) {
  Result<BoxingLayouts> layouts =
      BoxingLayouts::Make("device_boxing_test", shape, dtype, src_p, src, dst_p, dst);
  if (!layouts.ok()) return layouts.status();
  return BoxOnDevice(BoxingRequest{std::move(layouts).value(), in, out, workspace});
}

struct CudaFree {
  void operator()(void* p) const { cudaFree(p); }
};

// A device copy of `host` (NULL when empty, as callers pass for empty pieces).
template <typename T>
std::unique_ptr<T, CudaFree> ToDevice(const std::vector<T>& host) {
  if (host.empty()) return nullptr;
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, host.size() * sizeof(T)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
            cudaSuccess);
  return std::unique_ptr<T, CudaFree>(static_cast<T*>(p));
}

// BoxOnDevice from host vectors: the input is uploaded (complete before the call, as
// BoxOnDevice requires), the output (with its sentinel) uploaded, boxed into and read
// back.
template <typename T>
std::string DeviceBoxAndCheck(const Shape& shape, const Placement& src_p, const NdSbp& src,
                              const Placement& dst_p, const NdSbp& dst,
                              BoxingWorkspace* workspace) {
  return CheckBoxing<T>(
      shape, src_p, src, dst_p, dst, [&](const std::vector<T>& input, std::vector<T>& output) {
        auto in = ToDevice(input);
        auto out = ToDevice(output);
        const Status status = BoxValuesOnDevice(in.get(), out.get(), shape, DTypeOf<T>::value,
                                                src_p, src, dst_p, dst, workspace);
        EXPECT_EQ(
            cudaMemcpy(output.data(), out.get(), output.size() * sizeof(T), cudaMemcpyDeviceToHost),
            cudaSuccess);
        return status;
      });
}

std::string Describe(const Shape& shape, const Placement& src_p, const NdSbp& src,
                     const Placement& dst_p, const NdSbp& dst) {
  return shape.ToString() + " " + src_p.ToString() + " " + src.ToString() + " -> " +
         dst_p.ToString() + " " + dst.ToString();
}

std::string CudaWorld() { return "cuda:0-" + Str(Size() - 1); }

// ---- Without a GPU, or before any device work ------------------------------------

TEST(BoxOnDeviceErrorsTest, PlacementsOfTheWrongDevice) {
  const Shape shape{4, 3};
  float x = 0;
  Status s = BoxValuesOnDevice(&x, &x, shape, DType::kF32, P("cpu:[0]"), Nd("S(0)"), P("cpu:[0]"),
                               Nd("B"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "BoxOnDevice: both placements are on cpu (src cpu:[0], dst cpu:[0]); Box boxes host "
            "memory");
  s = BoxValuesOnDevice(&x, &x, shape, DType::kF32, P("cuda:[0]"), Nd("S(0)"), P("cpu:[0]"),
                        Nd("B"));
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(),
            "BoxOnDevice: boxing between device types cuda and cpu (src cuda:[0], dst cpu:[0]) "
            "is not implemented; to_global stages such moves through host memory");
  s = BoxValuesOnDevice(&x, &x, shape, static_cast<DType>(42), P("cuda:[0]"), Nd("S(0)"),
                        P("cuda:[0]"), Nd("B"));
  // Refused by the layouts (with a GPU) or by BoxOnDevice (without): either names it.
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find(
                "dtype value 42 is not supported (supported: f32, f64, f16, bf16, i32, i64, bool)"),
            std::string::npos)
      << s.ToString();
  s = BoxValuesOnDevice(&x, &x, shape, DType::kF32, P("cuda:[0]"), Nd("S(2)"), P("cuda:[0]"),
                        Nd("B"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  const Placement beyond = P("cuda:[0," + Str(Size()) + "]");
  s = BoxValuesOnDevice(nullptr, nullptr, shape, DType::kF32, beyond, Nd("B"), beyond, Nd("S(0)"));
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "BoxOnDevice: src placement " + beyond.ToString() + " names rank " +
                             Str(Size()) + " but the world has " + Str(Size()) + " ranks");
  // Box (host memory) keeps refusing cuda placements.
  s = Box(&x, &x, shape, DType::kF32, P("cuda:[0]"), Nd("S(0)"), P("cuda:[0]"), Nd("B"));
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
}

TEST(BoxOnDeviceErrorsTest, WithoutADeviceEveryRankFailsAndNoneWaits) {
  if (Devices() > 0) GTEST_SKIP() << "a CUDA device is visible";
  const Placement world = P(CudaWorld());
  std::vector<float> in(12), out(12);
  for (int attempt = 0; attempt < 2; ++attempt) {
    // A plan with no steps (a local copy): this rank's device is asked for locally.
    Status s = BoxValuesOnDevice(in.data(), out.data(), Shape{4, 3}, DType::kF32, world, Nd("B"),
                                 world, Nd("B"));
    EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
    EXPECT_EQ(s.message(), "no CUDA device visible");
    // A collective: NCCL's creation agrees across the group, so every rank returns.
    s = BoxValuesOnDevice(in.data(), out.data(), Shape{4 * Size(), 3}, DType::kF32, world,
                          Nd("S(0)"), world, Nd("B"));
    EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
    EXPECT_EQ(s.message(), "NcclCommunicator::Create: no CUDA device visible");
  }
}

// ---- On the GPU ------------------------------------------------------------------

class DeviceBoxingTest : public testing::Test {
 protected:
  void SetUp() override {
    const std::string reason = comm::NcclGpuSkipReason(Size());
    if (!reason.empty()) {
      std::printf("SKIPPED: %s\n", reason.c_str());
      GTEST_SKIP() << reason;
    }
    // The test's own cudaMalloc / cudaMemcpy go to the device BoxOnDevice uses.
    const int device = comm::DefaultDevice().value();
    ASSERT_EQ(cudaSetDevice(device), cudaSuccess);
    allocator_ = memory::DeviceCachingAllocator(device).value();
  }

  memory::Allocator* allocator_ = nullptr;
};

const char* const kOneD[] = {"S(0)", "S(1)", "S(2)", "B", "P", "P(max)", "P(min)"};

// Every 1-d pair on the first `ranks` ranks.
template <typename T>
void OneDPairs(int32_t ranks, BoxingWorkspace* workspace) {
  const Placement placement = P("cuda:0-" + Str(ranks - 1));
  // Uneven on every dim for 2, 3 and 4 ranks; dims of 1 and 0 (empty pieces).
  for (const Shape& shape : {Shape{5, 7, 3}, Shape{2, 1, 3}, Shape{0, 3, 4}}) {
    for (const char* s : kOneD) {
      for (const char* d : kOneD) {
        EXPECT_EQ(DeviceBoxAndCheck<T>(shape, placement, Nd(s), placement, Nd(d), workspace), "")
            << DTypeName(DTypeOf<T>::value) << " "
            << Describe(shape, placement, Nd(s), placement, Nd(d));
      }
    }
  }
}

TEST_F(DeviceBoxingTest, EveryOneDPairInEveryDType) {
  BoxingWorkspace workspace(allocator_);
  OneDPairs<float>(Size(), &workspace);
  OneDPairs<double>(Size(), nullptr);  // staging per call
  OneDPairs<int32_t>(Size(), &workspace);
  OneDPairs<int64_t>(Size(), &workspace);
}

TEST_F(DeviceBoxingTest, OneRankPlacementInALargerWorld) {
  // Every world has rank 0; the other ranks are outside and return at once.
  BoxingWorkspace workspace(allocator_);
  OneDPairs<float>(1, &workspace);
}

TEST_F(DeviceBoxingTest, LargeStridedPieces) {
  // Large enough for many rows per copy and for the 2-d / 3-d copies' pitches.
  const Placement placement = P(CudaWorld());
  BoxingWorkspace workspace(allocator_);
  const Shape shape{37, 129, 65};
  for (const char* s : {"S(2)", "P", "B"}) {
    for (const char* d : {"S(1)", "S(2)", "B", "P(max)"}) {
      EXPECT_EQ(DeviceBoxAndCheck<float>(shape, placement, Nd(s), placement, Nd(d), &workspace), "")
          << Describe(shape, placement, Nd(s), placement, Nd(d));
    }
  }
}

TEST_F(DeviceBoxingTest, TwoDPairsOnTwoByTwo) {
  if (Size() < 4) GTEST_SKIP() << "needs 4 ranks";
  const Placement grid = P("cuda:[[0,1],[2,3]]");
  const char* const nds[] = {"(S(0), S(1))", "(S(1), S(1))", "(B, S(2))", "(P, S(0))",
                             "(B, B)",       "(P(max), B)",  "(S(0), P)", "(P(min), P(min))",
                             "(P, P)",       "(S(2), B)"};
  BoxingWorkspace workspace(allocator_);
  for (const Shape& shape : {Shape{5, 7, 3}, Shape{300, 31, 2}}) {
    for (const char* s : nds) {
      for (const char* d : nds) {
        EXPECT_EQ(DeviceBoxAndCheck<float>(shape, grid, Nd(s), grid, Nd(d), &workspace), "")
            << Describe(shape, grid, Nd(s), grid, Nd(d));
        EXPECT_EQ(DeviceBoxAndCheck<int64_t>(shape, grid, Nd(s), grid, Nd(d), &workspace), "")
            << Describe(shape, grid, Nd(s), grid, Nd(d));
      }
    }
  }
}

TEST_F(DeviceBoxingTest, ReshardsAcrossRankSetsAndHierarchies) {
  struct Case {
    int min_ranks;
    const char* src;
    const char* dst;
  };
  const Case cases[] = {
      {2, "cuda:[0]", "cuda:[1]"},
      {3, "cuda:[0,1]", "cuda:[1,2]"},
      {3, "cuda:[2,0]", "cuda:[0,1,2]"},
      {4, "cuda:[0,1]", "cuda:[2,3]"},
      {4, "cuda:[3,1]", "cuda:[0,1,2,3]"},
      {4, "cuda:[[0,1],[2,3]]", "cuda:[0,1,2]"},
      {4, "cuda:[0,1,2]", "cuda:[[0,1],[2,3]]"},
  };
  const char* const one_d[] = {"S(0)", "S(1)", "B", "P", "P(max)"};
  const char* const two_d[] = {"(S(0), S(1))", "(B, S(2))", "(P, S(0))", "(P(min), B)"};
  BoxingWorkspace workspace(allocator_);
  for (const Case& c : cases) {
    if (Size() < c.min_ranks) continue;
    const Placement src_p = P(c.src), dst_p = P(c.dst);
    std::vector<const char*> srcs, dsts;
    for (const char* t : one_d) (src_p.num_axes() == 1 ? srcs : dsts).push_back(t);
    for (const char* t : two_d) (src_p.num_axes() == 2 ? srcs : dsts).push_back(t);
    if (src_p.num_axes() == dst_p.num_axes()) dsts = srcs;
    for (const char* s : srcs) {
      for (const char* d : dsts) {
        EXPECT_EQ(DeviceBoxAndCheck<float>(Shape{5, 7, 3}, src_p, Nd(s), dst_p, Nd(d), &workspace),
                  "")
            << Describe(Shape{5, 7, 3}, src_p, Nd(s), dst_p, Nd(d));
      }
    }
  }
}

TEST_F(DeviceBoxingTest, AHostWorkspaceIsRefused) {
  const Placement world = P(CudaWorld());
  const Shape shape{2 * Size(), 3};
  std::vector<float> zeros(shape.num_elements(), 0.0f);
  auto in = ToDevice(zeros);
  auto out = ToDevice(zeros);
  BoxingWorkspace host;
  Status s = BoxValuesOnDevice(in.get(), out.get(), shape, DType::kF32, world, Nd("B"), world,
                               Nd("P"), &host);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "BoxOnDevice: the workspace's staging is cpu memory but the pieces of " +
                             world.ToString() + " are cuda memory");
}

}  // namespace
}  // namespace tessera::boxing
