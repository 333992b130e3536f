// DLPack export (zero-copy, keeps the tensor alive) and import (copies, always calls
// the deleter) through the C API, in a world of one rank.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/dlpack.h"
#include "tessera/tessera.h"

namespace tessera::capi_test {
namespace {

class DlpackCapiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(tess_runtime_init(), TESS_OK) << LastError(); }

  PlacementPtr p_ = Placement("cpu:[0]");
  NdSbpPtr s0_ = NdSbp("S(0)");
};

// A producer's array: the struct, its storage, shape and strides, and a count of
// deleter calls. The deleter frees nothing (the test owns everything) but counts.
template <typename Managed>
struct Producer {
  Managed managed{};
  std::vector<char> storage;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int deletes = 0;

  static void Delete(Managed* self) { ++static_cast<Producer*>(self->manager_ctx)->deletes; }

  // `values` (row-major over `logical`) stored with `strides` in elements (empty:
  // compact, passed as NULL), starting `offset` elements into the storage.
  template <typename T>
  Producer(const std::vector<T>& values, std::vector<int64_t> dims, std::vector<int64_t> st,
           DLDataType dtype, int64_t offset = 0)
      : shape(std::move(dims)), strides(std::move(st)) {
    const int nd = static_cast<int>(shape.size());
    int64_t span = offset + 1;
    for (int d = 0; d < nd; ++d) {
      if (!strides.empty()) span += (shape[d] - 1) * (strides[d] < 0 ? -strides[d] : strides[d]);
    }
    if (strides.empty()) span = offset + static_cast<int64_t>(values.size());
    // Negative strides start from the far end of their dim.
    int64_t origin = offset;
    for (int d = 0; d < nd && !strides.empty(); ++d) {
      if (strides[d] < 0) origin += (shape[d] - 1) * -strides[d];
    }
    storage.assign(static_cast<size_t>(span) * sizeof(T), 0);
    T* base = reinterpret_cast<T*>(storage.data());
    std::vector<int64_t> idx(nd, 0);
    for (size_t i = 0; i < values.size(); ++i) {
      int64_t at = strides.empty() ? offset + static_cast<int64_t>(i) : origin;
      for (int d = 0; d < nd && !strides.empty(); ++d) at += idx[d] * strides[d];
      base[at] = values[i];
      for (int d = nd - 1; d >= 0; --d) {
        if (++idx[d] < shape[d]) break;
        idx[d] = 0;
      }
    }
    DLTensor& dl = managed.dl_tensor;
    dl.data = storage.data();
    dl.byte_offset = static_cast<uint64_t>(origin) * sizeof(T);
    dl.device = DLDevice{kDLCPU, 0};
    dl.ndim = nd;
    dl.dtype = dtype;
    dl.shape = shape.data();
    dl.strides = strides.empty() ? nullptr : strides.data();
    managed.manager_ctx = this;
    managed.deleter = &Producer::Delete;
  }
};

using Versioned = Producer<DLManagedTensorVersioned>;
using Legacy = Producer<DLManagedTensor>;

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kI64{kDLInt, 64, 1};

void SetVersion(Versioned* v, uint32_t major) { v->managed.version = DLPackVersion{major, 0}; }

TEST_F(DlpackCapiTest, ExportIsZeroCopyAndOutlivesTheHandle) {
  const std::vector<float> data = {1, 2, 3, 4, 5, 6};
  TensorPtr t = FromHost(data, {2, 3}, "cpu:[0]", "S(0)");
  DLManagedTensorVersioned* m = nullptr;
  ASSERT_EQ(tess_tensor_to_dlpack(&m, t.get()), TESS_OK) << LastError();
  EXPECT_EQ(m->version.major, 1u);
  EXPECT_EQ(m->flags & DLPACK_FLAG_BITMASK_READ_ONLY, DLPACK_FLAG_BITMASK_READ_ONLY);
  const DLTensor& dl = m->dl_tensor;
  EXPECT_EQ(dl.device.device_type, kDLCPU);
  EXPECT_EQ(dl.device.device_id, 0);
  EXPECT_EQ(dl.ndim, 2);
  EXPECT_EQ(dl.dtype.code, kDLFloat);
  EXPECT_EQ(dl.dtype.bits, 32);
  EXPECT_EQ(dl.dtype.lanes, 1);
  EXPECT_EQ(std::vector<int64_t>(dl.shape, dl.shape + 2), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(std::vector<int64_t>(dl.strides, dl.strides + 2), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(dl.byte_offset, 0u);
  // The handle goes first; the export still reads the data.
  t.reset();
  const float* values = static_cast<const float*>(dl.data);
  EXPECT_EQ(std::vector<float>(values, values + 6), data);
  m->deleter(m);
}

TEST_F(DlpackCapiTest, LegacyExportAndEveryDType) {
  const std::vector<int32_t> ints = {7, -8, 9};
  TensorPtr t = FromHost(ints, {3}, "cpu:[0]", "B");
  DLManagedTensor* m = nullptr;
  ASSERT_EQ(tess_tensor_to_dlpack_legacy(&m, t.get()), TESS_OK) << LastError();
  EXPECT_EQ(m->dl_tensor.dtype.code, kDLInt);
  EXPECT_EQ(m->dl_tensor.dtype.bits, 32);
  const int32_t* values = static_cast<const int32_t*>(m->dl_tensor.data);
  EXPECT_EQ(std::vector<int32_t>(values, values + 3), ints);
  m->deleter(m);

  TensorPtr d = FromHost(std::vector<double>{0.5}, {}, "cpu:[0]", "B");
  ASSERT_EQ(tess_tensor_to_dlpack_legacy(&m, d.get()), TESS_OK);
  EXPECT_EQ(m->dl_tensor.ndim, 0);
  EXPECT_EQ(m->dl_tensor.dtype.bits, 64);
  EXPECT_EQ(*static_cast<const double*>(m->dl_tensor.data), 0.5);
  m->deleter(m);

  // An empty piece exports NULL data, as DLPack asks.
  const int64_t empty[] = {0};
  tess_tensor* e = nullptr;
  ASSERT_EQ(tess_tensor_full(&e, empty, 1, TESS_DTYPE_I64, 0, p_.get(), s0_.get()), TESS_OK);
  TensorPtr owned(e);
  ASSERT_EQ(tess_tensor_to_dlpack_legacy(&m, e), TESS_OK);
  EXPECT_EQ(m->dl_tensor.data, nullptr);
  EXPECT_EQ(m->dl_tensor.shape[0], 0);
  m->deleter(m);
}

TEST_F(DlpackCapiTest, ExportBadInput) {
  DLManagedTensorVersioned* const sentinel = reinterpret_cast<DLManagedTensorVersioned*>(0x1);
  DLManagedTensorVersioned* m = sentinel;
  EXPECT_EQ(tess_tensor_to_dlpack(&m, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_to_dlpack: argument \"tensor\" is NULL");
  TensorPtr t = FromHost(std::vector<float>{1}, {1}, "cpu:[0]", "B");
  EXPECT_EQ(tess_tensor_to_dlpack(nullptr, t.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_tensor_to_dlpack_legacy(nullptr, t.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_to_dlpack_legacy: argument \"out\" is NULL");
  PlacementPtr other = Placement("cpu:[1]");
  NdSbpPtr b = NdSbp("B");
  const int64_t shape[] = {2};
  tess_tensor* outside = nullptr;
  ASSERT_EQ(tess_tensor_full(&outside, shape, 1, TESS_DTYPE_F32, 1, other.get(), b.get()), TESS_OK);
  TensorPtr owned(outside);
  EXPECT_EQ(tess_tensor_to_dlpack(&m, outside), TESS_FAILED_PRECONDITION);
  EXPECT_EQ(LastError(),
            "tess_tensor_to_dlpack: rank 0 holds no local piece of [2] f32 cpu:[1] B: the "
            "placement does not hold it");
  DLManagedTensor* legacy = nullptr;
  EXPECT_EQ(tess_tensor_to_dlpack_legacy(&legacy, outside), TESS_FAILED_PRECONDITION);
  EXPECT_EQ(legacy, nullptr);
  EXPECT_EQ(m, sentinel);
}

TEST_F(DlpackCapiTest, ImportCopiesAndCallsTheDeleterOnce) {
  const std::vector<float> values = {1, 2, 3, 4, 5, 6};
  Versioned v(values, {3, 2}, {}, kF32);
  SetVersion(&v, 1);
  tess_tensor* t = nullptr;
  ASSERT_EQ(tess_tensor_from_dlpack(&t, &v.managed, p_.get(), s0_.get(), nullptr), TESS_OK)
      << LastError();
  TensorPtr owned(t);
  EXPECT_EQ(v.deletes, 1);
  std::fill(v.storage.begin(), v.storage.end(), 0);  // the tensor holds a copy
  EXPECT_EQ(ShapeOf(t), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(ToHost<float>(t), values);

  Legacy l(std::vector<int64_t>{4, 5, 6}, {3}, {}, kI64);
  const int64_t logical[] = {3};
  ASSERT_EQ(tess_tensor_from_dlpack_legacy(&t, &l.managed, p_.get(), s0_.get(), logical), TESS_OK)
      << LastError();
  TensorPtr legacy(t);
  EXPECT_EQ(l.deletes, 1);
  EXPECT_EQ(ToHost<int64_t>(t), (std::vector<int64_t>{4, 5, 6}));
}

TEST_F(DlpackCapiTest, ImportReadsAnyStrides) {
  // The logical 2x3 array [[0,1,2],[3,4,5]] stored transposed (column-major), then
  // with a negative stride on dim 0 and an offset.
  const std::vector<float> values = {0, 1, 2, 3, 4, 5};
  for (const std::vector<int64_t>& strides :
       {std::vector<int64_t>{1, 2}, std::vector<int64_t>{-3, 1}, std::vector<int64_t>{5, 2}}) {
    SCOPED_TRACE(::testing::PrintToString(strides));
    Versioned v(values, {2, 3}, strides, kF32, /*offset=*/2);
    SetVersion(&v, 1);
    tess_tensor* t = nullptr;
    ASSERT_EQ(tess_tensor_from_dlpack(&t, &v.managed, p_.get(), s0_.get(), nullptr), TESS_OK)
        << LastError();
    TensorPtr owned(t);
    EXPECT_EQ(ToHost<float>(t), values);
    EXPECT_EQ(v.deletes, 1);
  }
}

TEST_F(DlpackCapiTest, RoundTrip) {
  const std::vector<double> values = {0.25, -1, 8};
  TensorPtr t = FromHost(values, {3}, "cpu:[0]", "S(0)");
  DLManagedTensorVersioned* m = nullptr;
  ASSERT_EQ(tess_tensor_to_dlpack(&m, t.get()), TESS_OK);
  tess_tensor* back = nullptr;
  ASSERT_EQ(tess_tensor_from_dlpack(&back, m, p_.get(), s0_.get(), nullptr), TESS_OK)
      << LastError();  // takes `m` and calls its deleter
  TensorPtr owned(back);
  EXPECT_EQ(ToHost<double>(back), values);
}

TEST_F(DlpackCapiTest, ImportBadInputStillCallsTheDeleter) {
  const std::vector<float> values = {1, 2};
  tess_tensor* const sentinel = reinterpret_cast<tess_tensor*>(0x1);
  tess_tensor* out = sentinel;
  struct Case {
    std::string what;
    void (*mutate)(Versioned*);
    tess_status code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"major 2", [](Versioned* v) { SetVersion(v, 2); }, TESS_INVALID_ARGUMENT,
       "tess_tensor_from_dlpack: DLPack version 2.0: major version 2 is not 1"},
      {"opencl", [](Versioned* v) { v->managed.dl_tensor.device.device_type = kDLOpenCL; },
       TESS_INVALID_ARGUMENT,
       "DLPack device type 4 is not kDLCPU (1), kDLCUDA (2) or kDLCUDAHost (3)"},
      {"uint8",
       [](Versioned* v) {
         v->managed.dl_tensor.dtype = DLDataType{kDLUInt, 8, 1};
       },
       TESS_INVALID_ARGUMENT, "DLPack dtype (code 1, bits 8, lanes 1) has no Tessera dtype"},
      {"lanes", [](Versioned* v) { v->managed.dl_tensor.dtype.lanes = 4; }, TESS_INVALID_ARGUMENT,
       "(code 2, bits 32, lanes 4)"},
      {"negative dim", [](Versioned* v) { v->shape[0] = -2; }, TESS_INVALID_ARGUMENT,
       "DLPack shape: shape dim 0 is -2; dims must be >= 0"},
      {"nine dims", [](Versioned* v) { v->managed.dl_tensor.ndim = 9; }, TESS_INVALID_ARGUMENT,
       "shape has 9 dims"},
      {"negative ndim", [](Versioned* v) { v->managed.dl_tensor.ndim = -1; }, TESS_INVALID_ARGUMENT,
       "DLPack ndim is -1"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Versioned v(values, {2}, {}, kF32);
    SetVersion(&v, 1);
    c.mutate(&v);
    EXPECT_EQ(tess_tensor_from_dlpack(&out, &v.managed, p_.get(), s0_.get(), nullptr), c.code);
    EXPECT_TRUE(ErrorHas(c.message));
    EXPECT_EQ(v.deletes, 1);
  }
  {
    Versioned v(values, {2}, {}, kF32);
    SetVersion(&v, 1);
    const int64_t logical[] = {5};
    EXPECT_EQ(tess_tensor_from_dlpack(&out, &v.managed, p_.get(), s0_.get(), logical),
              TESS_INVALID_ARGUMENT);
    EXPECT_TRUE(ErrorHas("local shape [2] is not its part [5]"));
    EXPECT_EQ(v.deletes, 1);
  }
  for (int which = 0; which < 3; ++which) {
    Versioned v(values, {2}, {}, kF32);
    SetVersion(&v, 1);
    tess_status st =
        which == 0   ? tess_tensor_from_dlpack(nullptr, &v.managed, p_.get(), s0_.get(), nullptr)
        : which == 1 ? tess_tensor_from_dlpack(&out, &v.managed, nullptr, s0_.get(), nullptr)
                     : tess_tensor_from_dlpack(&out, &v.managed, p_.get(), nullptr, nullptr);
    EXPECT_EQ(st, TESS_INVALID_ARGUMENT);
    EXPECT_TRUE(ErrorHas(which == 0   ? "argument \"out\" is NULL"
                         : which == 1 ? "argument \"placement\" is NULL"
                                      : "argument \"nd_sbp\" is NULL"));
    EXPECT_EQ(v.deletes, 1);
  }
  EXPECT_EQ(tess_tensor_from_dlpack(&out, nullptr, p_.get(), s0_.get(), nullptr),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_tensor_from_dlpack: argument \"local\" is NULL");
  EXPECT_EQ(tess_tensor_from_dlpack_legacy(&out, nullptr, p_.get(), s0_.get(), nullptr),
            TESS_INVALID_ARGUMENT);
  Legacy l(values, {2}, {}, DLDataType{kDLComplex, 64, 1});
  EXPECT_EQ(tess_tensor_from_dlpack_legacy(&out, &l.managed, p_.get(), s0_.get(), nullptr),
            TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("tess_tensor_from_dlpack_legacy: DLPack dtype (code 5, bits 64"));
  EXPECT_EQ(l.deletes, 1);
  // A NULL deleter is allowed ("no way to provide one") and simply not called.
  Legacy no_deleter(values, {2}, {}, kF32);
  no_deleter.managed.deleter = nullptr;
  tess_tensor* t = nullptr;
  ASSERT_EQ(tess_tensor_from_dlpack_legacy(&t, &no_deleter.managed, p_.get(), s0_.get(), nullptr),
            TESS_OK);
  tess_tensor_destroy(t);
  EXPECT_EQ(out, sentinel);
}

}  // namespace
}  // namespace tessera::capi_test
