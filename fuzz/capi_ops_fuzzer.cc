// The C API on one rank (MPI singleton init, once, in LLVMFuzzerInitialize): tensors
// of random shapes, dtypes and nd-sbps made by every creation function, then a random
// registered op run on them through tess_op_call_apply with random attributes and
// constraints, then to_host, to_global and the inference-cache capacity.
//
// Properties: every call returns TESS_OK or a documented error code with a message;
// a shape whose element count overflows is INVALID_ARGUMENT before anything is
// allocated; outputs read back; and to_global to another layout of one rank keeps
// the value bit for bit (P with one contributor included). Sizes the fuzzer decodes
// are clamped (at most 256 elements per input) so that no input allocates much by
// design; shapes past the clamp are only passed where they must be rejected.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/op/op_registry.h"
#include "fuzz/capi_runtime.h"
#include "fuzz/fuzz_input.h"
#include "tessera/tessera.h"

namespace tessera::fuzz {
namespace {

constexpr int64_t kMaxInputElements = 256;
// Outputs of ops over such inputs stay small (a matmul of two 256-element inputs has
// at most 65536 elements); one past this would be a finding.
constexpr int64_t kMaxOutputElements = int64_t{1} << 16;

struct World {
  std::vector<tess_placement*> placements;
  uint64_t default_cache_capacity = 0;
};
World* world = nullptr;

// Fails (a crash for libFuzzer) unless `st` is OK or a code the API documents for bad
// input, with a message.
void CheckStatus(tess_status st, const std::string& what) {
  if (st == TESS_OK) return;
  const char* message = tess_last_error_message();
  FUZZ_CHECK(message != nullptr && message[0] != '\0', what + ": an error without a message");
  FUZZ_CHECK(st == TESS_INVALID_ARGUMENT || st == TESS_UNIMPLEMENTED ||
                 st == TESS_FAILED_PRECONDITION || st == TESS_NOT_FOUND || st == TESS_OUT_OF_RANGE,
             what + ": " + tess_status_string(st) + ": " + message);
}

// Element sizes from dtype.h's definitions, written here independently of the library.
size_t DTypeBytes(tess_dtype dtype) {
  switch (dtype) {
    case TESS_DTYPE_F64:
    case TESS_DTYPE_I64: return 8;
    case TESS_DTYPE_F32:
    case TESS_DTYPE_I32: return 4;
    case TESS_DTYPE_BOOL: return 1;
    default: return 2;  // f16, bf16
  }
}

// An nd-sbp for `axes` placement axes over a tensor of `ndim` dims (sometimes one
// that does not fit).
tess_nd_sbp* RandomNdSbp(FuzzInput& in, size_t axes, size_t ndim) {
  if (in.Byte() % 16 == 0) axes = axes % 3 + 1;
  if (ndim > 8) ndim = 8;  // split axes stop at 7 (a shape has at most 8 dims)
  tess_sbp_kind kinds[8];
  int32_t split_axes[8];
  for (size_t a = 0; a < axes; ++a) {
    kinds[a] = static_cast<tess_sbp_kind>(in.InRange(0, 4));
    split_axes[a] = static_cast<int32_t>(in.Byte() % 8 == 0 ? in.InRange(0, 7)
                                         : ndim == 0        ? 0
                                                            : in.InRange(0, ndim - 1));
  }
  tess_nd_sbp* nd = nullptr;
  tess_status st = tess_nd_sbp_create(&nd, kinds, split_axes, axes);
  FUZZ_CHECK(st == TESS_OK, std::string("tess_nd_sbp_create: ") + tess_last_error_message());
  return nd;
}

size_t NumAxes(const tess_placement* p) {
  size_t n = 0;
  FUZZ_CHECK(tess_placement_num_axes(&n, p) == TESS_OK, "tess_placement_num_axes");
  return n;
}

// The logical value of `t` as bytes. On a placement naming a rank the world lacks,
// to_host (a collective over the world) refuses with an error (OUT_OF_RANGE naming the
// rank); *ok is false then.
std::vector<unsigned char> ToHost(const tess_tensor* t, const std::string& what, bool* ok) {
  int64_t n = 0;
  tess_dtype dtype = 0;
  FUZZ_CHECK(tess_tensor_num_elements(&n, t) == TESS_OK && tess_tensor_dtype(&dtype, t) == TESS_OK,
             what + ": metadata");
  FUZZ_CHECK(n >= 0 && n <= kMaxOutputElements,
             what + ": " + tess_tensor_string(t) + " has " + std::to_string(n) + " elements");
  std::vector<unsigned char> bytes(static_cast<size_t>(n) * DTypeBytes(dtype));
  tess_status st = tess_tensor_to_host(bytes.data(), bytes.size(), t);
  *ok = st == TESS_OK;
  if (!*ok) {
    int32_t has_local = 1;
    FUZZ_CHECK(tess_tensor_has_local(&has_local, t) == TESS_OK, what + ": has_local");
    FUZZ_CHECK(!has_local,
               what + ": to_host of " + tess_tensor_string(t) + ": " + tess_last_error_message());
    CheckStatus(st, what + ": to_host of " + tess_tensor_string(t));
    return bytes;
  }
  if (n > 0) {
    // A buffer one byte short must be refused, naming both sizes.
    st = tess_tensor_to_host(bytes.data(), bytes.size() - 1, t);
    FUZZ_CHECK(st == TESS_INVALID_ARGUMENT, what + ": to_host accepted a short buffer");
  }
  return bytes;
}

// One input tensor, or nullptr when creation (rightly) failed.
tess_tensor* RandomTensor(FuzzInput& in, const tess_placement* placement) {
  std::vector<int64_t> shape(in.InRange(0, 4) + (in.Byte() % 32 == 0 ? 6 : 0));
  for (int64_t& d : shape) d = in.Byte() % 8 == 0 ? in.Edgy() : in.InRange(0, 6);
  // The element count, independently: negative dims and overflow must be refused.
  bool negative = false;
  bool overflow = false;
  unsigned __int128 count = 1;
  bool zero = false;
  for (int64_t d : shape) {
    if (d < 0) negative = true;
    if (d == 0) zero = true;
    if (d > 0) {
      count *= static_cast<unsigned __int128>(d);
      if (count > static_cast<unsigned __int128>(INT64_MAX)) overflow = true;
      if (overflow) count = static_cast<unsigned __int128>(INT64_MAX) + 1;
    }
  }
  const bool bad = negative || overflow || shape.size() > 8;
  const int64_t elements = zero ? 0 : static_cast<int64_t>(count > INT64_MAX ? 0 : count);
  if (!bad && elements > kMaxInputElements) {
    // Valid but large: shrink it rather than allocate by design.
    for (int64_t& d : shape) d = d % 5;
  }
  const tess_dtype dtype =
      static_cast<tess_dtype>(in.Byte() % 16 == 0 ? in.InRange(0, 6) : in.InRange(0, 3));
  tess_nd_sbp* nd = RandomNdSbp(in, NumAxes(placement), shape.size());
  tess_tensor* t = nullptr;
  tess_status st;
  std::string how;
  switch (in.Byte() % 4) {
    case 0: {
      static constexpr double kValues[] = {0.0, -0.0, 1.0, -2.5, 1e300, NAN, INFINITY, 3.0};
      how = "tess_tensor_full";
      st = tess_tensor_full(&t, shape.data(), shape.size(), dtype, kValues[in.Byte() % 8],
                            placement, nd);
      break;
    }
    case 1:
      how = "tess_tensor_randn";
      st = tess_tensor_randn(&t, shape.data(), shape.size(), dtype, in.Raw<uint64_t>(), placement,
                             nd);
      break;
    case 2: {
      how = "tess_tensor_from_host";
      int64_t n = 1;
      for (int64_t d : shape) n = bad ? 0 : n * d;
      std::vector<unsigned char> data(static_cast<size_t>(n) * DTypeBytes(dtype));
      for (unsigned char& b : data) b = in.Byte();
      st = tess_tensor_from_host(&t, data.empty() ? nullptr : data.data(), shape.data(),
                                 shape.size(), dtype, placement, nd);
      break;
    }
    default: {
      how = "tess_tensor_arange";
      const double start = static_cast<double>(in.InRange(-8, 8));
      const double step = in.Bool() ? 0.5 * static_cast<double>(in.InRange(-4, 4))
                                    : static_cast<double>(in.InRange(-3, 3));
      // At most ~200 elements: |stop - start| <= 100 and |step| >= 0.5 (or 0: refused).
      const double stop = start + static_cast<double>(in.InRange(-100, 100));
      tess_nd_sbp_destroy(nd);
      nd = RandomNdSbp(in, NumAxes(placement), 1);
      st = tess_tensor_arange(&t, start, stop, step, dtype, placement, nd);
      break;
    }
  }
  tess_nd_sbp_destroy(nd);
  if (bad && how != "tess_tensor_arange") {
    FUZZ_CHECK(st == TESS_INVALID_ARGUMENT,
               how +
                   " accepted a shape with a negative dim, an overflowing element count or "
                   "too many dims: " +
                   std::string(tess_status_string(st)));
  }
  CheckStatus(st, how);
  return st == TESS_OK ? t : nullptr;
}

}  // namespace
}  // namespace tessera::fuzz

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  using namespace tessera::fuzz;
  StartRuntime();
  world = new World;
  // One-rank layouts, and one naming a rank this world lacks.
  for (const char* text : {"cpu:[0]", "cpu:[[0]]", "cpu:[[[0]]]", "cpu:[1]"}) {
    tess_placement* p = nullptr;
    FUZZ_CHECK(tess_placement_parse(&p, text) == TESS_OK, text);
    world->placements.push_back(p);
  }
  tess_infer_cache_stats stats = TESS_INFER_CACHE_STATS_INIT;
  FUZZ_CHECK(tess_infer_cache_get_stats(&stats) == TESS_OK, "tess_infer_cache_get_stats");
  world->default_cache_capacity = stats.capacity;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  using namespace tessera::fuzz;
  FuzzInput in(data, size);
  const std::vector<tess_placement*>& placements = world->placements;
  // Mostly the world's rank; sometimes a placement naming a rank it lacks.
  const tess_placement* placement =
      placements[in.Byte() % 16 == 0 ? placements.size() - 1 : in.Byte() % (placements.size() - 1)];

  // Restored at the end, so that no input changes what the next one sees.
  const bool resize_cache = in.Byte() % 32 == 0;
  if (resize_cache) {
    static constexpr size_t kCapacities[] = {
        0, 1, 2, size_t{1} << 30, (size_t{1} << 30) + 1, size_t{1} << 31, SIZE_MAX};
    const size_t capacity = kCapacities[in.Byte() % 7];
    tess_status st = tess_infer_cache_set_capacity(capacity);
    if (capacity == 0 || capacity > (size_t{1} << 30)) {
      FUZZ_CHECK(st == TESS_INVALID_ARGUMENT,
                 "tess_infer_cache_set_capacity(" + std::to_string(capacity) + ") was accepted");
    } else {
      FUZZ_CHECK(st == TESS_OK, "tess_infer_cache_set_capacity(" + std::to_string(capacity) + ")");
    }
  }

  const size_t num_ops = tess_op_count();
  const char* op_name = tess_op_name(in.Byte() % num_ops);
  FUZZ_CHECK(op_name != nullptr, "tess_op_name");
  tess_op_call* call = nullptr;
  FUZZ_CHECK(tess_op_call_create(&call, op_name) == TESS_OK, op_name);
  const op::OpDef* def = op::OpRegistry::Global().Find(op_name).value();
  for (const op::AttrDef& a : def->attrs()) {
    const uint8_t how = in.Byte() % 8;
    if (how < 2) continue;
    const op::AttrType type = how == 7 ? static_cast<op::AttrType>(in.InRange(0, 4)) : a.type;
    const std::string what = std::string(op_name) + ": attribute " + a.name;
    switch (type) {
      case op::AttrType::kInt:
        CheckStatus(tess_op_call_set_attr_int(call, a.name.c_str(),
                                              in.Bool() ? in.InRange(-4, 4) : in.Edgy()),
                    what);
        break;
      case op::AttrType::kFloat:
        CheckStatus(tess_op_call_set_attr_float(call, a.name.c_str(), in.Raw<double>()), what);
        break;
      case op::AttrType::kBool:
        CheckStatus(tess_op_call_set_attr_bool(call, a.name.c_str(), in.Byte() % 3), what);
        break;
      case op::AttrType::kInts: {
        std::vector<int64_t> v(in.InRange(0, 9));
        for (int64_t& x : v) x = in.Bool() ? in.InRange(-4, 6) : in.Edgy();
        CheckStatus(tess_op_call_set_attr_ints(call, a.name.c_str(), v.data(), v.size()), what);
        break;
      }
      case op::AttrType::kDType:
        CheckStatus(tess_op_call_set_attr_dtype(call, a.name.c_str(),
                                                static_cast<tess_dtype>(in.InRange(-1, 6))),
                    what);
        break;
    }
  }
  if (in.Byte() % 8 == 0) {
    tess_nd_sbp* nd = RandomNdSbp(in, NumAxes(placement), 2);
    const size_t slot = static_cast<size_t>(in.InRange(0, 3));
    CheckStatus(in.Bool() ? tess_op_call_constrain_output(call, slot, nd)
                          : tess_op_call_constrain_input(call, slot, nd),
                std::string(op_name) + ": constraint");
    tess_nd_sbp_destroy(nd);
  }

  std::vector<tess_tensor*> inputs;
  const int num_inputs = static_cast<int>(in.InRange(0, 4));
  for (int i = 0; i < num_inputs; ++i) inputs.push_back(RandomTensor(in, placement));
  // A failed creation leaves a NULL input: apply must refuse it by name.
  tess_tensor* outputs[4] = {};
  size_t num_outputs = 0;
  const size_t capacity = static_cast<size_t>(in.InRange(0, 4));
  tess_status st =
      tess_op_call_apply(outputs, capacity, &num_outputs, call, inputs.data(), inputs.size());
  CheckStatus(st, std::string(op_name) + ": tess_op_call_apply");
  if (st == TESS_OK) {
    FUZZ_CHECK(num_outputs >= 1 && num_outputs <= capacity, std::string(op_name) + ": outputs");
    for (size_t i = 0; i < num_outputs; ++i) {
      FUZZ_CHECK(outputs[i] != nullptr && tess_tensor_string(outputs[i]) != nullptr,
                 std::string(op_name) + ": output");
      bool readable = false;
      const std::vector<unsigned char> value = ToHost(outputs[i], op_name, &readable);
      // Another layout of the one rank: the value must not change, bit for bit.
      const tess_placement* other = placements[in.Byte() % (placements.size() - 1)];
      const int64_t* dims = nullptr;
      size_t ndim = 0;
      FUZZ_CHECK(tess_tensor_shape(&dims, &ndim, outputs[i]) == TESS_OK, "tess_tensor_shape");
      tess_nd_sbp* nd = RandomNdSbp(in, NumAxes(other), ndim);
      tess_tensor* moved = nullptr;
      tess_status mst = tess_tensor_to_global(&moved, outputs[i], other, nd);
      tess_nd_sbp_destroy(nd);
      CheckStatus(mst, std::string(op_name) + ": to_global");
      if (mst == TESS_OK) {
        bool moved_readable = false;
        const std::vector<unsigned char> again = ToHost(moved, op_name, &moved_readable);
        FUZZ_CHECK(!readable || !moved_readable || again == value,
                   std::string(op_name) + ": to_global changed the value of " +
                       tess_tensor_string(outputs[i]) + " (now " + tess_tensor_string(moved) + ")");
        tess_tensor_destroy(moved);
      }
      tess_tensor_destroy(outputs[i]);
    }
  }
  for (tess_tensor* t : inputs) tess_tensor_destroy(t);
  tess_op_call_destroy(call);
  if (resize_cache) {
    FUZZ_CHECK(tess_infer_cache_set_capacity(world->default_cache_capacity) == TESS_OK,
               "restoring the inference cache capacity");
  }
  return 0;
}
