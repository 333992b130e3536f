// The C API on cuda placements (--config=cuda only; part of cuda_eager_test_bin, run
// under mpirun with 1..4 ranks): tensor functions, copy_local, and DLPack export
// (kDLCUDA with the rank's device) and import of device memory (copied), checked
// against plain loops and against the cpu placement with the same ranks.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "capi/tensor_test_util.h"
#include "kernels/cuda/cuda_test_util.h"
#include "tessera/dlpack.h"
#include "tessera/tessera.h"
#include "tests/eager/cuda_test_device.h"

namespace tessera::capi_test {
namespace {

int32_t Rank() {
  int32_t rank = 0;
  EXPECT_EQ(tess_runtime_world_rank(&rank), TESS_OK) << LastError();
  return rank;
}

int32_t Size() {
  int32_t size = 0;
  EXPECT_EQ(tess_runtime_world_size(&size), TESS_OK) << LastError();
  return size;
}

// "cuda:0-<n-1>" (or cpu).
std::string World(const char* device) {
  return std::string(device) + ":0-" + std::to_string(Size() - 1);
}

using eager_test::ExpectedDevice;

std::vector<float> Values(int64_t n) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 5) % 17 - 8) * 0.5f;
  return v;
}

std::vector<float> CopyLocal(const tess_tensor* t) {
  int64_t n = 0;
  EXPECT_EQ(tess_tensor_local_num_elements(&n, t), TESS_OK) << LastError();
  std::vector<float> out(static_cast<size_t>(n), -1.0f);
  EXPECT_EQ(tess_tensor_copy_local(out.data(), out.size() * sizeof(float), t), TESS_OK)
      << LastError();
  return out;
}

// A kDLCUDA producer over device memory the test owns; the deleter only counts.
struct DeviceProducer {
  DLManagedTensorVersioned managed{};
  void* device = nullptr;
  std::vector<int64_t> shape, strides;
  int deletes = 0;

  static void Delete(DLManagedTensorVersioned* self) {
    ++static_cast<DeviceProducer*>(self->manager_ctx)->deletes;
  }
  // `storage` copied to the device; the tensor is (shape, strides) from element
  // `origin` of it.
  DeviceProducer(const std::vector<float>& storage, std::vector<int64_t> dims,
                 std::vector<int64_t> st, int64_t origin, int device_id)
      : shape(std::move(dims)), strides(std::move(st)) {
    // On `device_id` itself: Tessera restores the thread's current device after each
    // call, so the thread may still be on device 0.
    int previous = 0;
    EXPECT_EQ(cudaGetDevice(&previous), cudaSuccess);
    EXPECT_EQ(cudaSetDevice(device_id), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&device, storage.size() * sizeof(float)), cudaSuccess);
    EXPECT_EQ(cudaSetDevice(previous), cudaSuccess);
    EXPECT_EQ(
        cudaMemcpy(device, storage.data(), storage.size() * sizeof(float), cudaMemcpyHostToDevice),
        cudaSuccess);
    managed.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    DLTensor& dl = managed.dl_tensor;
    dl.data = device;
    dl.byte_offset = static_cast<uint64_t>(origin) * sizeof(float);
    dl.device = DLDevice{kDLCUDA, device_id};
    dl.ndim = static_cast<int32_t>(shape.size());
    dl.dtype = DLDataType{kDLFloat, 32, 1};
    dl.shape = shape.data();
    dl.strides = strides.empty() ? nullptr : strides.data();
    managed.manager_ctx = this;
    managed.deleter = &DeviceProducer::Delete;
  }
  ~DeviceProducer() { cudaFree(device); }
};

TEST(CudaCapiTest, TensorFunctionsWorkOnCudaPlacements) {
  TESS_SKIP_WITHOUT_GPU();
  const int64_t rows = 2 * Size() + 1;
  const std::vector<float> a = Values(rows * 3);
  TensorPtr x = FromHost(a, {rows, 3}, World("cuda"), "S(0)");
  ASSERT_NE(x, nullptr);
  PlacementPtr p = Placement(World("cuda"));
  NdSbpPtr b = NdSbp("B");
  const int64_t shape[] = {rows, 3};
  tess_tensor* raw = nullptr;
  ASSERT_EQ(tess_tensor_full(&raw, shape, 2, TESS_DTYPE_F32, 1.5, p.get(), b.get()), TESS_OK)
      << LastError();
  TensorPtr y(raw);
  ASSERT_EQ(tess_add(&raw, x.get(), y.get()), TESS_OK) << LastError();
  TensorPtr sum(raw);
  ASSERT_EQ(tess_relu(&raw, sum.get()), TESS_OK) << LastError();
  TensorPtr relu(raw);
  std::vector<float> want(a.size());
  for (size_t i = 0; i < a.size(); ++i) want[i] = a[i] + 1.5f > 0 ? a[i] + 1.5f : 0.0f;
  EXPECT_EQ(ToHost<float>(relu.get()), want);
  std::string ranks = "cuda:[0";
  for (int r = 1; r < Size(); ++r) ranks += "," + std::to_string(r);
  // On one rank every SBP is the same local tensor and inference labels outputs B
  // (core/infer/search.cc, OneRankResult); on more, add keeps x's S(0).
  const std::string out_sbp = Size() == 1 ? "B" : "S(0)";
  EXPECT_EQ(std::string(tess_tensor_string(relu.get())),
            "[" + std::to_string(rows) + ",3] f32 " + ranks + "] " + out_sbp);

  // copy_local: this rank's piece, the same as the cpu placement's.
  TensorPtr h = FromHost(want, {rows, 3}, World("cpu"), "S(0)");
  EXPECT_EQ(CopyLocal(relu.get()), CopyLocal(h.get()));

  // to_global: cuda S(0) -> cpu B and back to cuda S(1).
  PlacementPtr cpu = Placement(World("cpu"));
  ASSERT_EQ(tess_tensor_to_global(&raw, relu.get(), cpu.get(), b.get()), TESS_OK) << LastError();
  TensorPtr on_cpu(raw);
  EXPECT_EQ(CopyLocal(on_cpu.get()), want);
  NdSbpPtr s1 = NdSbp("S(1)");
  ASSERT_EQ(tess_tensor_to_global(&raw, on_cpu.get(), p.get(), s1.get()), TESS_OK) << LastError();
  TensorPtr back(raw);
  EXPECT_EQ(ToHost<float>(back.get()), want);
}

TEST(CudaCapiTest, DlpackExportIsTheDevicePieceAndImportsBack) {
  TESS_SKIP_WITHOUT_GPU();
  const int64_t rows = Size() + 2;
  const std::vector<float> a = Values(rows * 4);
  TensorPtr x = FromHost(a, {rows, 4}, World("cuda"), "S(0)");
  ASSERT_NE(x, nullptr);
  const std::vector<float> piece = CopyLocal(x.get());

  DLManagedTensorVersioned* exported = nullptr;
  ASSERT_EQ(tess_tensor_to_dlpack(&exported, x.get()), TESS_OK) << LastError();
  const DLTensor& dl = exported->dl_tensor;
  EXPECT_EQ(dl.device.device_type, kDLCUDA);
  EXPECT_EQ(dl.device.device_id, ExpectedDevice());
  ASSERT_EQ(dl.ndim, 2);
  EXPECT_EQ(dl.shape[0] * dl.shape[1], static_cast<int64_t>(piece.size()));
  EXPECT_EQ(dl.shape[1], 4);
  EXPECT_EQ(dl.strides[0], 4);
  EXPECT_EQ(dl.strides[1], 1);
  EXPECT_TRUE(exported->flags & DLPACK_FLAG_BITMASK_READ_ONLY);
  if (!piece.empty()) {
    cudaPointerAttributes attributes;
    ASSERT_EQ(cudaPointerGetAttributes(&attributes, dl.data), cudaSuccess);
    EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
    // The export waited for the writes: a plain copy on another stream sees them.
    std::vector<float> read(piece.size());
    ASSERT_EQ(cudaMemcpy(read.data(), dl.data, read.size() * sizeof(float), cudaMemcpyDefault),
              cudaSuccess);
    EXPECT_EQ(read, piece);
  }

  // The export survives the handle and imports (by copy) as the same logical tensor.
  x.reset();
  PlacementPtr p = Placement(World("cuda"));
  NdSbpPtr s0 = NdSbp("S(0)");
  tess_tensor* raw = nullptr;
  ASSERT_EQ(tess_tensor_from_dlpack(&raw, exported, p.get(), s0.get(), nullptr), TESS_OK)
      << LastError();
  TensorPtr imported(raw);
  EXPECT_EQ(ToHost<float>(imported.get()), a);

  DLManagedTensor* legacy = nullptr;
  ASSERT_EQ(tess_tensor_to_dlpack_legacy(&legacy, imported.get()), TESS_OK) << LastError();
  EXPECT_EQ(legacy->dl_tensor.device.device_type, kDLCUDA);
  EXPECT_EQ(legacy->dl_tensor.device.device_id, ExpectedDevice());
  legacy->deleter(legacy);
}

TEST(CudaCapiTest, DlpackImportsStridedDeviceMemory) {
  TESS_SKIP_WITHOUT_GPU();
  const int device = ExpectedDevice();
  const int rank = Rank();
  // Each rank's piece [2,3] is the transpose of a compact [3,2] device array.
  std::vector<float> storage(6);
  for (int i = 0; i < 6; ++i) storage[i] = static_cast<float>(rank * 10 + i);
  DeviceProducer transposed(storage, {2, 3}, {1, 2}, 0, device);
  PlacementPtr cpu = Placement(World("cpu"));
  NdSbpPtr s0 = NdSbp("S(0)");
  tess_tensor* raw = nullptr;
  ASSERT_EQ(tess_tensor_from_dlpack(&raw, &transposed.managed, cpu.get(), s0.get(), nullptr),
            TESS_OK)
      << LastError();
  TensorPtr t(raw);
  EXPECT_EQ(transposed.deletes, 1);
  std::vector<float> want;
  for (int r = 0; r < Size(); ++r) {
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) want.push_back(static_cast<float>(r * 10 + j * 2 + i));
    }
  }
  EXPECT_EQ(ToHost<float>(t.get()), want);

  // A negative stride, starting from the far end: [5] reversed, onto cuda.
  std::vector<float> line = {1, 2, 3, 4, 5};
  DeviceProducer reversed(line, {5}, {-1}, 4, device);
  PlacementPtr p = Placement(World("cuda"));
  NdSbpPtr b = NdSbp("B");
  const int64_t logical[] = {5};
  ASSERT_EQ(tess_tensor_from_dlpack(&raw, &reversed.managed, p.get(), b.get(), logical), TESS_OK)
      << LastError();
  TensorPtr r(raw);
  EXPECT_EQ(ToHost<float>(r.get()), (std::vector<float>{5, 4, 3, 2, 1}));
}

TEST(CudaCapiTest, DlpackImportRejectsMemoryThatIsNotOnTheNamedDevice) {
  TESS_SKIP_WITHOUT_GPU();
  PlacementPtr p = Placement(World("cuda"));
  NdSbpPtr b = NdSbp("B");
  const int64_t logical[] = {3};
  tess_tensor* const sentinel = reinterpret_cast<tess_tensor*>(0x1);
  tess_tensor* out = sentinel;

  // Host memory labelled kDLCUDA.
  std::vector<float> host = {1, 2, 3};
  DeviceProducer producer(host, {3}, {}, 0, ExpectedDevice());
  producer.managed.dl_tensor.data = host.data();
  EXPECT_EQ(tess_tensor_from_dlpack(&out, &producer.managed, p.get(), b.get(), logical),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("tess_tensor_from_dlpack: DLPack data: pointer "));
  EXPECT_TRUE(ErrorHas("is unregistered host memory, not memory of CUDA device " +
                       std::to_string(ExpectedDevice())));
  EXPECT_EQ(producer.deletes, 1);

  // A device that does not exist.
  producer.managed.dl_tensor.data = producer.device;
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  producer.managed.dl_tensor.device.device_id = count;
  EXPECT_EQ(tess_tensor_from_dlpack(&out, &producer.managed, p.get(), b.get(), logical),
            TESS_OUT_OF_RANGE);
  EXPECT_TRUE(ErrorHas("CUDA device " + std::to_string(count) + " is not one of the " +
                       std::to_string(count) + " visible devices"));
  producer.managed.dl_tensor.device.device_id = -1;
  EXPECT_EQ(tess_tensor_from_dlpack(&out, &producer.managed, p.get(), b.get(), logical),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("CUDA device -1 is negative"));
  EXPECT_EQ(producer.deletes, 3);
  EXPECT_EQ(out, sentinel);
}

}  // namespace
}  // namespace tessera::capi_test
