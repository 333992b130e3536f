// tess_tensor_from_dlpack and tess_tensor_from_dlpack_legacy on one rank over random
// DLPack descriptions (version, device, ndim, shape, strides, byte offset, dtype) of
// real buffers. The fuzzer allocates exactly the bytes the description reaches, so
// AddressSanitizer reports any read outside them.
//
// Properties, computed here independently in 128-bit arithmetic: a negative dim, an
// element count that overflows int64, or strides whose byte offsets overflow int64
// are INVALID_ARGUMENT (the buffer is then a few bytes: nothing may be read); a
// valid description imports the strided elements bit for bit (compared with
// to_host); and the import's deleter runs exactly once whatever the outcome. Sizes
// are clamped (4096 elements, 64 KiB spanned) so that no input allocates much.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/capi_runtime.h"
#include "fuzz/fuzz_input.h"
#include "tessera/dlpack.h"
#include "tessera/tessera.h"

namespace tessera::fuzz {
namespace {

using i128 = __int128;
constexpr i128 kInt64Max = INT64_MAX;
constexpr i128 kInt64Min = INT64_MIN;
constexpr int64_t kMaxElements = 4096;
constexpr int64_t kMaxSpanBytes = 64 * 1024;

tess_placement* placement = nullptr;
tess_nd_sbp* broadcast = nullptr;

int deletes = 0;
template <typename Managed>
void CountDelete(Managed* /*self*/) {
  ++deletes;
}

void Version(DLManagedTensor*, FuzzInput&) {}
void Version(DLManagedTensorVersioned* m, FuzzInput& in) {
  m->version.major = in.Byte() % 8 == 0 ? in.Byte() : DLPACK_MAJOR_VERSION;
  m->version.minor = in.Byte();
  m->flags = 0;
}
bool VersionOk(const DLManagedTensor&) { return true; }
bool VersionOk(const DLManagedTensorVersioned& m) {
  return m.version.major == DLPACK_MAJOR_VERSION;
}
tess_status Import(tess_tensor** out, DLManagedTensor* m, const int64_t* logical) {
  return tess_tensor_from_dlpack_legacy(out, m, placement, broadcast, logical);
}
tess_status Import(tess_tensor** out, DLManagedTensorVersioned* m, const int64_t* logical) {
  return tess_tensor_from_dlpack(out, m, placement, broadcast, logical);
}

template <typename Managed>
void RunOne(FuzzInput& in) {
  Managed m{};
  Version(&m, in);
  m.manager_ctx = nullptr;
  m.deleter = in.Byte() % 16 == 0 ? nullptr : &CountDelete<Managed>;
  DLTensor& dl = m.dl_tensor;
  const uint8_t device = in.Byte() % 16;
  dl.device.device_type = static_cast<DLDeviceType>(device < 12   ? kDLCPU
                                                    : device < 14 ? kDLCUDAHost
                                                                  : device);
  dl.device.device_id = 0;
  dl.ndim = static_cast<int32_t>(in.Byte() % 16 == 0 ? in.InRange(-2, 12) : in.InRange(0, 4));
  int64_t shape[16] = {};
  int64_t strides[16] = {};
  const int nd = dl.ndim < 0 ? 0 : dl.ndim > 16 ? 16 : dl.ndim;
  for (int d = 0; d < nd; ++d) shape[d] = in.Byte() % 8 == 0 ? in.Edgy() : in.InRange(0, 5);
  const bool compact = in.Bool();
  for (int d = 0; d < nd; ++d) strides[d] = in.Byte() % 8 == 0 ? in.Edgy() : in.InRange(-6, 6);
  dl.shape = shape;
  dl.strides = compact ? nullptr : strides;
  static constexpr DLDataType kTypes[] = {{kDLFloat, 32, 1}, {kDLFloat, 64, 1}, {kDLInt, 32, 1},
                                          {kDLInt, 64, 1},   {kDLFloat, 16, 1}, {kDLBfloat, 16, 1},
                                          {kDLUInt, 8, 1},   {kDLFloat, 32, 4}};
  dl.dtype = in.Byte() % 16 == 0 ? in.Raw<DLDataType>() : kTypes[in.Byte() % 4];
  const bool known_type =
      (dl.dtype.lanes == 1) &&
      ((dl.dtype.code == kDLFloat && (dl.dtype.bits == 32 || dl.dtype.bits == 64)) ||
       (dl.dtype.code == kDLInt && (dl.dtype.bits == 32 || dl.dtype.bits == 64)));
  const int64_t elem = known_type ? dl.dtype.bits / 8 : 1;
  dl.byte_offset = static_cast<uint64_t>(in.InRange(0, 4) * elem);

  // What the description asks for, independently.
  bool invalid = !VersionOk(m) || dl.ndim < 0 || dl.ndim > 8 ||
                 (dl.device.device_type != kDLCPU && dl.device.device_type != kDLCUDAHost);
  i128 count = 1;
  bool zero = false;
  for (int d = 0; d < nd && !invalid; ++d) {
    if (shape[d] < 0) invalid = true;
    if (shape[d] == 0) zero = true;
    if (shape[d] > 0) count *= shape[d];
    if (count > kInt64Max) invalid = true;
  }
  if (zero) count = 0;
  i128 lo = 0;  // element offsets reached: [lo, hi)
  i128 hi = 1;
  bool offsets_overflow = false;
  if (!invalid && count > 0) {
    i128 step = 1;
    // Each reach is below 2^126 in magnitude, and the sums stop once past int64, so
    // nothing here overflows 128 bits.
    for (int d = nd - 1; d >= 0 && !offsets_overflow; --d) {
      const i128 stride = compact ? step : strides[d];
      const i128 reach = (static_cast<i128>(shape[d]) - 1) * stride;
      (reach < 0 ? lo : hi) += reach;
      step *= shape[d];
      if (lo < kInt64Min || hi > kInt64Max) offsets_overflow = true;
    }
    if (offsets_overflow || lo * elem < kInt64Min || hi * elem > kInt64Max ||
        (hi - lo) * elem > kInt64Max) {
      offsets_overflow = true;
    }
    if (known_type && offsets_overflow) invalid = true;
  }
  const bool small =
      count <= kMaxElements && !offsets_overflow && (hi - lo) * elem <= kMaxSpanBytes;
  if (!invalid && !small) return;  // valid but large: not imported by design

  // The buffer: exactly the bytes the elements span (a few bytes when nothing may be
  // read), the first reached element at its start.
  const size_t span = invalid || count == 0 ? 4 : static_cast<size_t>((hi - lo) * elem);
  std::vector<unsigned char> buffer(span + dl.byte_offset);
  for (unsigned char& b : buffer) b = in.Byte();
  const int64_t lead = invalid || count == 0 ? 0 : static_cast<int64_t>(-lo * elem);
  dl.data = in.Byte() % 32 == 0 && count == 0 ? nullptr : buffer.data() + lead;

  std::vector<unsigned char> expected;
  if (!invalid && known_type && count > 0) {
    expected.resize(static_cast<size_t>(count) * elem);
    int64_t idx[8] = {};
    const unsigned char* base = static_cast<const unsigned char*>(dl.data) + dl.byte_offset;
    for (int64_t i = 0; i < static_cast<int64_t>(count); ++i) {
      int64_t offset = 0;
      int64_t compact_stride = 1;
      for (int d = nd - 1; d >= 0; --d) {
        offset += idx[d] * (compact ? compact_stride : strides[d]);
        compact_stride *= shape[d];
      }
      std::memcpy(&expected[i * elem], base + offset * elem, elem);
      for (int d = nd - 1; d >= 0; --d) {
        if (++idx[d] < shape[d]) break;
        idx[d] = 0;
      }
    }
  }

  const bool pass_logical = in.Bool();
  tess_tensor* t = nullptr;
  deletes = 0;
  const tess_status st = Import(&t, &m, pass_logical && nd <= 8 ? shape : nullptr);
  const std::string what = "DLPack import (ndim " + std::to_string(dl.ndim) + ", dtype code " +
                           std::to_string(dl.dtype.code) + " bits " +
                           std::to_string(dl.dtype.bits) + ")";
  FUZZ_CHECK(deletes == (m.deleter != nullptr ? 1 : 0),
             what + ": the deleter ran " + std::to_string(deletes) + " times");
  if (st != TESS_OK) {
    const char* message = tess_last_error_message();
    FUZZ_CHECK(message != nullptr && message[0] != '\0', what + ": an error without a message");
    FUZZ_CHECK(st == TESS_INVALID_ARGUMENT || st == TESS_UNIMPLEMENTED,
               what + ": " + tess_status_string(st) + ": " + message);
    FUZZ_CHECK(invalid || !known_type || st == TESS_UNIMPLEMENTED || dl.data == nullptr,
               what + ": a valid description was refused: " + message);
    return;
  }
  FUZZ_CHECK(!invalid && known_type,
             what + ": an invalid description was accepted: " + tess_tensor_string(t));
  int64_t n = -1;
  FUZZ_CHECK(tess_tensor_num_elements(&n, t) == TESS_OK && n == static_cast<int64_t>(count),
             what + ": " + tess_tensor_string(t) + " has " + std::to_string(n) + " elements");
  std::vector<unsigned char> got(expected.size());
  FUZZ_CHECK(tess_tensor_to_host(got.data(), got.size(), t) == TESS_OK,
             what + ": to_host: " + tess_last_error_message());
  FUZZ_CHECK(got == expected, what + ": " + tess_tensor_string(t) +
                                  " does not hold the strided elements it was given");
  tess_tensor_destroy(t);
}

}  // namespace
}  // namespace tessera::fuzz

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  using namespace tessera::fuzz;
  StartRuntime();
  FUZZ_CHECK(tess_placement_parse(&placement, "cpu:[0]") == TESS_OK, "cpu:[0]");
  FUZZ_CHECK(tess_nd_sbp_parse(&broadcast, "B") == TESS_OK, "B");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera::fuzz;
  FuzzInput in(data, size);
  if (in.Bool()) {
    RunOne<DLManagedTensorVersioned>(in);
  } else {
    RunOne<DLManagedTensor>(in);
  }
  return 0;
}
