// tess_tensor_to_dlpack* / tess_tensor_from_dlpack*: zero-copy export of a rank's
// local piece (kDLCPU, or kDLCUDA for a cuda tensor) and import of one as
// tess_tensor_from_local (host memory, or a kDLCUDA tensor copied to the host first).
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "capi/src/capi_error.h"
#include "capi/src/handles.h"
#include "capi/src/tensor_args.h"
#include "core/common/checked_math.h"
#include "core/tensor/creation.h"
#include "core/tensor/cuda_device.h"
#include "tessera/dlpack.h"
#include "tessera/tessera.h"

using tessera::DType;
using tessera::InvalidArgument;
using tessera::Result;
using tessera::Shape;
using tessera::Status;
using tessera::capi::EmitTensor;
using tessera::capi::ReportIn;
using tessera::capi::RequireLocal;
using tessera::capi::ShapeArg;

namespace {

// (code, bits) of each Tessera dtype, indexed by DType value.
constexpr struct {
  uint8_t code;
  uint8_t bits;
} kDlTypes[] = {
    {kDLFloat, 32}, {kDLFloat, 64},  {kDLInt, 32}, {kDLInt, 64},
    {kDLFloat, 16}, {kDLBfloat, 16}, {kDLBool, 8},
};
static_assert(sizeof(kDlTypes) / sizeof(kDlTypes[0]) == tessera::kNumDTypes,
              "one DLPack type per dtype");

Result<DType> DTypeOfDl(const DLDataType& t) {
  if (t.lanes == 1) {
    for (int i = 0; i < tessera::kNumDTypes; ++i) {
      if (kDlTypes[i].code == t.code && kDlTypes[i].bits == t.bits) return static_cast<DType>(i);
    }
  }
  return InvalidArgument("DLPack dtype (code " + std::to_string(t.code) + ", bits " +
                         std::to_string(t.bits) + ", lanes " + std::to_string(t.lanes) +
                         ") has no Tessera dtype; f32, f64, i32, i64, f16 (code 2 = float) and "
                         "bf16 (code 4), bool (code 6, 8 bits) with lanes 1 do");
}

// The export: the DLPack struct plus what it points into, in one block. Holding the
// core tensor keeps its storage alive however long the consumer keeps the export.
template <typename Managed>
struct Export {
  Managed managed;
  tessera::tensor::Tensor tensor;
  int64_t shape[Shape::kMaxDims];
  int64_t strides[Shape::kMaxDims];

  static void Delete(Managed* self) { delete static_cast<Export*>(self->manager_ctx); }
};

// Fills the DLTensor of `e` from its tensor's local piece: compact row-major.
template <typename Managed>
void DescribeLocal(Export<Managed>* e) {
  const tessera::tensor::GlobalTensor& t = *e->tensor;
  const Shape& local = t.local_shape();
  int64_t stride = 1;
  for (int d = local.ndim() - 1; d >= 0; --d) {
    e->shape[d] = local.dim(d);
    e->strides[d] = stride;
    stride *= local.dim(d);
  }
  DLTensor& dl = e->managed.dl_tensor;
  // DLPack wants NULL for an empty tensor; the core's buffer is never NULL.
  dl.data = t.local_bytes() > 0 ? const_cast<void*>(t.local_data()) : nullptr;
  dl.device =
      t.cuda_device() != nullptr ? DLDevice{kDLCUDA, t.cuda_device()->index} : DLDevice{kDLCPU, 0};
  dl.ndim = local.ndim();
  const int type = static_cast<int>(t.dtype());
  dl.dtype = DLDataType{kDlTypes[type].code, kDlTypes[type].bits, 1};
  dl.shape = e->shape;
  dl.strides = e->strides;
  dl.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = &Export<Managed>::Delete;
}

template <typename Managed>
tess_status ExportLocal(const char* function, Managed** out, const tess_tensor* tensor) {
  Status s = RequireLocal(*tensor->value);
  // The consumer reads on its own stream (or the host), outside the ordering of
  // Tessera's stream: the kernels that write the piece must be done first.
  if (s.ok()) s = tensor->value->Synchronize();
  if (!s.ok()) return ReportIn(function, s);
  auto* e = new Export<Managed>{};
  e->tensor = tensor->value;
  DescribeLocal(e);
  *out = &e->managed;
  return TESS_OK;
}

// Calls the import's deleter when the importing function returns, whatever happens:
// the C API takes ownership of every non-NULL import.
template <typename Managed>
class DeleteOnExit {
 public:
  explicit DeleteOnExit(Managed* m) : m_(m) {}
  ~DeleteOnExit() {
    if (m_ != nullptr && m_->deleter != nullptr) m_->deleter(m_);
  }
  DeleteOnExit(const DeleteOnExit&) = delete;
  DeleteOnExit& operator=(const DeleteOnExit&) = delete;

 private:
  Managed* m_;
};

Status CheckVersion(const DLManagedTensor&) { return Status::Ok(); }
Status CheckVersion(const DLManagedTensorVersioned& m) {
  if (m.version.major == DLPACK_MAJOR_VERSION) return Status::Ok();
  return InvalidArgument("DLPack version " + std::to_string(m.version.major) + "." +
                         std::to_string(m.version.minor) + ": major version " +
                         std::to_string(m.version.major) + " is not " +
                         std::to_string(DLPACK_MAJOR_VERSION) + ", the only layout Tessera reads");
}

// Copies the elements of `dl` (any strides, possibly negative) into `out`,
// row-major.
void GatherStrided(const DLTensor& dl, const char* base, size_t elem, char* out) {
  const int nd = dl.ndim;
  int64_t idx[Shape::kMaxDims] = {};
  int64_t n = 1;
  for (int d = 0; d < nd; ++d) n *= dl.shape[d];
  for (int64_t i = 0; i < n; ++i) {
    int64_t offset = 0;
    for (int d = 0; d < nd; ++d) offset += idx[d] * dl.strides[d];
    std::memcpy(out + i * static_cast<int64_t>(elem), base + offset * static_cast<int64_t>(elem),
                elem);
    for (int d = nd - 1; d >= 0; --d) {
      if (++idx[d] < dl.shape[d]) break;
      idx[d] = 0;
    }
  }
}

// Whether `dl`'s strides are NULL or those of a compact row-major array (a dim of
// size 1 may have any stride).
bool IsCompact(const DLTensor& dl) {
  if (dl.strides == nullptr) return true;
  int64_t want = 1;
  for (int d = dl.ndim - 1; d >= 0; --d) {
    if (dl.shape[d] != 1 && dl.strides[d] != want) return false;
    want *= dl.shape[d];
  }
  return true;
}

// The element offsets [begin, end) from the data pointer that a non-empty `dl`
// reaches: strides may be negative, and NULL strides are compact row-major.
struct Span {
  int64_t begin = 0;
  int64_t end = 1;
};
// `dl.shape` is checked (its element count fits) and non-empty. INVALID_ARGUMENT when
// an element offset or its byte offset (`elem` bytes each) overflows int64: every
// offset GatherStrided and the device copy compute lies in the span, so checking its
// ends checks them all.
Result<Span> SpanOf(const DLTensor& dl, const Shape& shape, size_t elem) {
  Span span;
  int64_t compact = 1;
  bool fits = true;
  for (int d = dl.ndim - 1; d >= 0 && fits; --d) {
    const int64_t stride = dl.strides != nullptr ? dl.strides[d] : compact;
    int64_t reach = 0;
    fits = tessera::CheckedMul(dl.shape[d] - 1, stride, &reach) &&
           tessera::CheckedAdd(reach < 0 ? span.begin : span.end, reach,
                               reach < 0 ? &span.begin : &span.end);
    compact *= dl.shape[d];
  }
  int64_t bytes = 0;
  fits = fits && tessera::CheckedMul(span.begin, static_cast<int64_t>(elem), &bytes) &&
         tessera::CheckedMul(span.end, static_cast<int64_t>(elem), &bytes) &&
         tessera::CheckedMul(span.end - span.begin, static_cast<int64_t>(elem), &bytes);
  if (!fits) {
    std::string strides = dl.strides != nullptr ? "[" : "NULL (compact)";
    for (int d = 0; dl.strides != nullptr && d < dl.ndim; ++d) {
      strides += (d ? "," : "") + std::to_string(dl.strides[d]);
    }
    if (dl.strides != nullptr) strides += "]";
    return InvalidArgument("DLPack strides " + strides + " over shape " + shape.ToString() +
                           " of " + std::to_string(elem) +
                           "-byte elements: an element's byte offset overflows int64");
  }
  return span;
}

// INVALID_ARGUMENT when the addresses `dl` names wrap around: data + byte_offset, and
// the first and last byte the span reaches from there, must all be addresses (no
// overflow of the pointer arithmetic). Whether they are mapped memory is the caller's
// promise, as with any pointer.
Status CheckAddresses(const DLTensor& dl, const Span& span, size_t elem, bool nonempty) {
  const uint64_t data = reinterpret_cast<uintptr_t>(dl.data);
  const uint64_t limit = std::numeric_limits<uintptr_t>::max();
  bool fits = dl.byte_offset <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) &&
              dl.byte_offset <= limit - data;
  if (fits && nonempty && dl.data != nullptr) {
    const uint64_t start = data + dl.byte_offset;
    // span.begin <= 0 < span.end, and their byte offsets fit int64 (SpanOf).
    const uint64_t below = (uint64_t{0} - static_cast<uint64_t>(span.begin)) * elem;
    const uint64_t above = static_cast<uint64_t>(span.end) * elem;
    fits = below <= start && above <= limit - start;
  }
  if (fits) return Status::Ok();
  return InvalidArgument("DLPack byte_offset " + std::to_string(dl.byte_offset) +
                         " with these data, strides and shape: the element addresses wrap "
                         "around the address space");
}

// What a DLPack tensor gives FromLocal: its piece as compact host memory.
struct ImportedPiece {
  const char* base = nullptr;
  Shape local_shape;
  DType dtype = DType::kF32;
  Shape logical;
  std::vector<char> from_device;  // device memory brought to the host
  std::vector<char> compact;      // a strided piece gathered
};

// Reads `m` into `piece`. Its errors depend on this rank's tensor alone, so the caller
// hands them to FromLocal, which agrees them across the ranks that communicate next.
template <typename Managed>
Status PrepareImport(const Managed& m, const int64_t* logical_shape, ImportedPiece* piece) {
  TESS_RETURN_IF_ERROR(CheckVersion(m));
  const DLTensor& dl = m.dl_tensor;
  const bool on_device = dl.device.device_type == kDLCUDA;
  if (!on_device && dl.device.device_type != kDLCPU && dl.device.device_type != kDLCUDAHost) {
    return InvalidArgument("DLPack device type " + std::to_string(dl.device.device_type) +
                           " is not kDLCPU (1), kDLCUDA (2) or kDLCUDAHost (3); only host "
                           "memory and CUDA device memory can be imported");
  }
  if (dl.ndim < 0) {
    return InvalidArgument("DLPack ndim is " + std::to_string(dl.ndim) + "; expected >= 0");
  }
  TESS_ASSIGN_OR_RETURN(piece->local_shape,
                        ShapeArg("DLPack shape", dl.shape, static_cast<size_t>(dl.ndim)));
  const Shape& local_shape = piece->local_shape;
  TESS_ASSIGN_OR_RETURN(piece->dtype, DTypeOfDl(dl.dtype));
  const DType dtype = piece->dtype;
  if (logical_shape != nullptr) {
    TESS_ASSIGN_OR_RETURN(piece->logical,
                          ShapeArg("logical_shape", logical_shape, static_cast<size_t>(dl.ndim)));
  }
  const size_t elem = tessera::DTypeSize(dtype);
  Span span;
  if (local_shape.num_elements() > 0) {
    TESS_ASSIGN_OR_RETURN(span, SpanOf(dl, local_shape, elem));
  }
  TESS_RETURN_IF_ERROR(CheckAddresses(dl, span, elem, local_shape.num_elements() > 0));
  const char* base = static_cast<const char*>(dl.data);
  if (base != nullptr) base += dl.byte_offset;
  std::vector<char>& from_device = piece->from_device;
  if (on_device && base != nullptr && local_shape.num_elements() > 0) {
    // Device memory comes to the host first (FromLocal takes host memory): the span
    // of elements the strides reach, so base keeps addressing them.
    from_device.resize(static_cast<size_t>(span.end - span.begin) * elem);
    Status s = tessera::tensor::CopyForeignDeviceToHost(
        dl.device.device_id, base + span.begin * static_cast<int64_t>(elem), from_device.size(),
        from_device.data());
    if (!s.ok()) {
      return Status(s.code(), "DLPack data: " + s.message());
    }
    base = from_device.data() - span.begin * static_cast<int64_t>(elem);
  }
  std::vector<char>& compact = piece->compact;
  if (base != nullptr && local_shape.num_elements() > 0 && !IsCompact(dl)) {
    compact.resize(static_cast<size_t>(local_shape.num_elements()) * elem);
    GatherStrided(dl, base, elem, compact.data());
    base = compact.data();
  }
  piece->base = base;
  return Status::Ok();
}

template <typename Managed>
Result<tessera::tensor::Tensor> Import(const Managed& m, const tess_placement* placement,
                                       const tess_nd_sbp* nd_sbp, const int64_t* logical_shape) {
  ImportedPiece piece;
  const Status prepared = PrepareImport(m, logical_shape, &piece);
  return tessera::tensor::FromLocal(piece.base, piece.local_shape, piece.dtype, placement->value,
                                    nd_sbp->value,
                                    logical_shape != nullptr ? &piece.logical : nullptr, &prepared);
}

template <typename Managed>
tess_status ImportAndDelete(const char* function, tess_tensor** out, Managed* local,
                            const tess_placement* placement, const tess_nd_sbp* nd_sbp,
                            const int64_t* logical_shape) {
  if (local == nullptr) return tessera::capi::NullArgument(function, "local");
  DeleteOnExit<Managed> release(local);
  if (out == nullptr) return tessera::capi::NullArgument(function, "out");
  if (placement == nullptr) return tessera::capi::NullArgument(function, "placement");
  if (nd_sbp == nullptr) return tessera::capi::NullArgument(function, "nd_sbp");
  return EmitTensor(function, out, Import(*local, placement, nd_sbp, logical_shape));
}

}  // namespace

extern "C" {

tess_status tess_tensor_to_dlpack(DLManagedTensorVersioned** out, const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(tensor);
  TESS_CAPI_BEGIN
  DLManagedTensorVersioned* m = nullptr;
  tess_status st = ExportLocal(__func__, &m, tensor);
  if (st != TESS_OK) return st;
  m->version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  // Tensors are immutable; a consumer that honours the flag cannot write one.
  m->flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  *out = m;
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_tensor_to_dlpack_legacy(DLManagedTensor** out, const tess_tensor* tensor) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(tensor);
  TESS_CAPI_BEGIN
  return ExportLocal(__func__, out, tensor);
  TESS_CAPI_END
}

tess_status tess_tensor_from_dlpack(tess_tensor** out, DLManagedTensorVersioned* local,
                                    const tess_placement* placement, const tess_nd_sbp* nd_sbp,
                                    const int64_t* logical_shape) {
  TESS_CAPI_BEGIN
  return ImportAndDelete(__func__, out, local, placement, nd_sbp, logical_shape);
  TESS_CAPI_END
}

tess_status tess_tensor_from_dlpack_legacy(tess_tensor** out, DLManagedTensor* local,
                                           const tess_placement* placement,
                                           const tess_nd_sbp* nd_sbp,
                                           const int64_t* logical_shape) {
  TESS_CAPI_BEGIN
  return ImportAndDelete(__func__, out, local, placement, nd_sbp, logical_shape);
  TESS_CAPI_END
}

}  // extern "C"
