// Builds without CUDA (the default): every way to make or reach a tensor on a cuda
// placement fails with UNIMPLEMENTED saying Tessera was built without CUDA, on every
// rank, including ranks the placement does not hold, so no rank is left waiting in a
// collective. Run under mpirun with 1 and 2 ranks; --config=cuda builds skip it
// (tests/eager:cuda_eager_test covers them).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "capi/tensor_test_util.h"
#include "core/tensor/creation.h"
#include "core/tensor/cuda_device.h"
#include "core/tensor/global_cast.h"
#include "tessera/dlpack.h"
#include "tessera/tessera.h"
#include "tests/eager/world_util.h"

namespace tessera::eager {
namespace {

using tensor::Arange;
using tensor::CheckDeviceBuild;
using tensor::CopyForeignDeviceToHost;
using tensor::CudaDevice;
using tensor::FromLocal;
using tensor::FromLogical;
using tensor::Full;
using tensor::GlobalTensor;
using tensor::LocalCudaDevice;
using tensor::Ones;
using tensor::Rand;
using tensor::Randn;
using tensor::Tensor;
using tensor::ToGlobal;
using tensor::ToHost;
using tensor::Zeros;

using eager_test::RanksPlacement;
using eager_test::WorldRank;
using eager_test::WorldSize;

NdSbp S(const std::string& text) { return NdSbp::Parse(text).value(); }
Shape Sh(std::vector<int64_t> dims) { return Shape::Make(dims).value(); }

std::string NoCuda(const Placement& p) {
  return "eager tensors on " + p.ToString() +
         ": this Tessera was built without CUDA, so only cpu placements hold eager tensors "
         "(build with --config=cuda)";
}

void ExpectNoCuda(const Status& s, const Placement& p) {
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << s.ToString();
  EXPECT_EQ(s.message(), NoCuda(p));
}

// The whole world, and rank 0 alone (the other ranks are outside it).
std::vector<Placement> CudaPlacements() {
  return {RanksPlacement(0, WorldSize(), DeviceType::kCuda),
          RanksPlacement(0, 1, DeviceType::kCuda)};
}

// The world still agrees on collectives: a broadcast of a cpu tensor arrives.
void ExpectWorldInStep() {
  Tensor t = Arange(0, 4, 1, DType::kF32, RanksPlacement(0, 1), S("B")).value();
  std::vector<float> got(4, -1);
  ASSERT_TRUE(ToHost(t, got.data()).ok());
  EXPECT_EQ(got, (std::vector<float>{0, 1, 2, 3}));
}

TEST(NoCudaTest, CreationOnCudaPlacementsIsUnimplementedOnEveryRank) {
  const std::vector<float> data(6, 1.0f);
  for (const Placement& p : CudaPlacements()) {
    SCOPED_TRACE(p.ToString());
    ExpectNoCuda(FromLogical(data.data(), Sh({2, 3}), DType::kF32, p, S("S(0)")).status(), p);
    ExpectNoCuda(Full(Sh({2, 3}), DType::kF32, 2.0, p, S("B")).status(), p);
    ExpectNoCuda(Zeros(Sh({2, 3}), DType::kF32, p, S("P")).status(), p);
    ExpectNoCuda(Ones(Sh({2, 3}), DType::kI32, p, S("B")).status(), p);
    ExpectNoCuda(Arange(0, 5, 1, DType::kI64, p, S("S(0)")).status(), p);
    ExpectNoCuda(Rand(Sh({4}), DType::kF32, 1, p, S("B")).status(), p);
    ExpectNoCuda(Randn(Sh({4}), DType::kF64, 1, p, S("B")).status(), p);
    // Inferring the logical shape is a collective; it fails before it starts.
    ExpectNoCuda(FromLocal(data.data(), Sh({6}), DType::kF32, p, S("B"), nullptr).status(), p);
    const Shape logical = Sh({6});
    ExpectNoCuda(FromLocal(data.data(), Sh({6}), DType::kF32, p, S("B"), &logical).status(), p);
    ExpectWorldInStep();
  }
}

TEST(NoCudaTest, MovingToACudaPlacementIsUnimplementedOnEveryRank) {
  const Placement cpu = RanksPlacement(0, WorldSize());
  Tensor t = Ones(Sh({4, 2}), DType::kF32, cpu, S("S(0)")).value();
  for (const Placement& p : CudaPlacements()) {
    SCOPED_TRACE(p.ToString());
    ExpectNoCuda(ToGlobal(t, p, S("S(0)")).status(), p);
    ExpectNoCuda(ToGlobal(t, p, S("B")).status(), p);
    ExpectWorldInStep();
  }
}

TEST(NoCudaTest, TheDeviceLayerSaysWhatIsMissing) {
  Result<const CudaDevice*> device = LocalCudaDevice();
  EXPECT_EQ(device.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(device.status().message(),
            "the rank's CUDA device: this Tessera was built without CUDA (build with "
            "--config=cuda)");
  float out = 0;
  const Status s = CopyForeignDeviceToHost(0, &out, sizeof(out), &out);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(),
            "a copy from CUDA device 0's memory: this Tessera was built without CUDA (build with "
            "--config=cuda)");
  EXPECT_TRUE(CheckDeviceBuild(RanksPlacement(0, 1)).ok());
  ExpectNoCuda(CheckDeviceBuild(RanksPlacement(0, 1, DeviceType::kCuda)),
               RanksPlacement(0, 1, DeviceType::kCuda));
}

// Placeholders are metadata only: a capture may name a cuda placement (compiling it is
// the plan's business).
TEST(NoCudaTest, PlaceholdersOnCudaPlacementsNeedNoDevice) {
  const Placement p = RanksPlacement(0, 1, DeviceType::kCuda);
  const infer::TensorMeta meta = infer::TensorMeta::Make(Sh({2}), DType::kF32, p, S("B")).value();
  std::shared_ptr<GlobalTensor> t = GlobalTensor::Placeholder(meta, 1, 0);
  EXPECT_TRUE(t->is_placeholder());
  EXPECT_EQ(t->cuda_device(), nullptr);
}

TEST(NoCudaTest, TheCApiReportsTheMissingBuild) {
  using capi_test::ErrorHas;
  capi_test::PlacementPtr p = capi_test::Placement("cuda:[0]");
  capi_test::NdSbpPtr b = capi_test::NdSbp("B");
  tess_tensor* const sentinel = reinterpret_cast<tess_tensor*>(0x1);
  tess_tensor* out = sentinel;
  const int64_t shape[] = {2};
  EXPECT_EQ(tess_tensor_full(&out, shape, 1, TESS_DTYPE_F32, 1.0, p.get(), b.get()),
            TESS_UNIMPLEMENTED);
  EXPECT_TRUE(ErrorHas("tess_tensor_full: " + NoCuda(Placement::Parse("cuda:[0]").value())));
  EXPECT_EQ(out, sentinel);

  // A kDLCUDA import cannot read device memory; the deleter still runs.
  struct Counted {
    DLManagedTensorVersioned managed{};
    int deletes = 0;
  } counted;
  float data[2] = {1, 2};
  int64_t dims[1] = {2};
  counted.managed.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  counted.managed.dl_tensor =
      DLTensor{data, DLDevice{kDLCUDA, 0}, 1, DLDataType{kDLFloat, 32, 1}, dims, nullptr, 0};
  counted.managed.manager_ctx = &counted;
  counted.managed.deleter = [](DLManagedTensorVersioned* m) {
    ++static_cast<Counted*>(m->manager_ctx)->deletes;
  };
  capi_test::PlacementPtr cpu = capi_test::Placement("cpu:[0]");
  const int64_t logical[] = {2};
  EXPECT_EQ(tess_tensor_from_dlpack(&out, &counted.managed, cpu.get(), b.get(), logical),
            TESS_UNIMPLEMENTED);
  EXPECT_TRUE(
      ErrorHas("tess_tensor_from_dlpack: DLPack data: a copy from CUDA device 0's "
               "memory: this Tessera was built without CUDA"));
  EXPECT_EQ(counted.deletes, 1);
  EXPECT_EQ(out, sentinel);
}

}  // namespace
}  // namespace tessera::eager
