#include "core/tensor/creation.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/boxing/strided_copy.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_world.h"
#include "core/common/double_text.h"
#include "core/sbp/physical_layout.h"
#include "core/tensor/counter_rng.h"
#include "core/tensor/host_staging.h"
#include "core/tensor/partial_fill.h"

namespace tessera {
namespace tensor {
namespace {

Result<std::shared_ptr<GlobalTensor>> AllocateFor(const Shape& shape, DType dtype,
                                                  const Placement& placement, const NdSbp& nd_sbp) {
  TESS_ASSIGN_OR_RETURN(infer::TensorMeta meta,
                        infer::TensorMeta::Make(shape, dtype, placement, nd_sbp));
  TESS_ASSIGN_OR_RETURN(int32_t rank, comm::WorldRank());
  return GlobalTensor::Allocate(meta, rank);
}

// Calls fill(out, logical_index, n) for each contiguous run of the local piece: `out`
// is where the run starts, its elements have logical row-major indices
// logical_index, logical_index + 1, ... (runs follow the last dim).
template <typename Fill>
void ForEachLocalRun(const GlobalTensor& t, char* base, Fill fill) {
  const Shape& logical = t.shape();
  const Shape& local = t.local_shape();
  const int nd = logical.ndim();
  if (local.num_elements() == 0) return;
  const size_t elem = DTypeSize(t.dtype());
  if (nd == 0) {
    fill(base, int64_t{0}, int64_t{1});
    return;
  }
  int64_t strides[Shape::kMaxDims];
  int64_t s = 1;
  for (int d = nd - 1; d >= 0; --d) {
    strides[d] = s;
    s *= logical.dim(d);
  }
  int64_t idx[Shape::kMaxDims] = {};
  const int64_t run = local.dim(nd - 1);
  const int64_t runs = local.num_elements() / run;
  for (int64_t r = 0; r < runs; ++r) {
    int64_t logical_index = 0;
    for (int d = 0; d < nd; ++d)
      logical_index += (t.layout().ranges[d].begin + idx[d]) * strides[d];
    fill(base + r * run * elem, logical_index, run);
    for (int d = nd - 2; d >= 0; --d) {
      if (++idx[d] < local.dim(d)) break;
      idx[d] = 0;
    }
  }
}

// Writes value_at(logical_index) (a double) into every element of `t`'s local piece
// staged at `local`, converted to the tensor's dtype.
template <typename ValueAt>
void FillLocal(const GlobalTensor& t, void* local, ValueAt value_at) {
  char* base = static_cast<char*>(local);
  auto fill_as = [&](auto zero) {
    using T = decltype(zero);
    ForEachLocalRun(t, base, [&](char* out, int64_t first, int64_t n) {
      T* p = reinterpret_cast<T*>(out);
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(value_at(first + i));
    });
  };
  switch (t.dtype()) {
    case DType::kF32: fill_as(float{}); break;
    case DType::kF64: fill_as(double{}); break;
    case DType::kI32: fill_as(int32_t{}); break;
    case DType::kI64: fill_as(int64_t{}); break;
    // The double rounds to float, then to nearest even (core/common/half.h).
    case DType::kF16: fill_as(Float16{}); break;
    case DType::kBF16: fill_as(BFloat16{}); break;
    case DType::kBool: fill_as(bool{}); break;  // Full admits only 0 and 1
    default: break;                             // rejected by CheckFillableDType
  }
}

// Stages `t`'s local piece on the host, fills it with value_at(logical index), applies
// partial ownership and commits it to the tensor's memory.
template <typename ValueAt>
Result<Tensor> Filled(std::shared_ptr<GlobalTensor> t, ValueAt value_at) {
  if (!t->has_local()) return Tensor(t);
  TESS_ASSIGN_OR_RETURN(HostStaging staging, HostStaging::For(t.get()));
  FillLocal(*t, staging.data(), value_at);
  TESS_RETURN_IF_ERROR(ApplyPartialOwnership(*t, staging.data()));
  TESS_RETURN_IF_ERROR(staging.Commit());
  return Tensor(t);
}

Status CheckFillableDType(const char* fn, DType dtype) {
  if (IsValidDType(static_cast<int>(dtype))) return Status::Ok();
  return InvalidArgument(std::string(fn) + ": dtype value " +
                         std::to_string(static_cast<int>(dtype)) + " is not a dtype");
}

bool IsInteger(DType dtype) { return dtype == DType::kI32 || dtype == DType::kI64; }

// Whether `value` converts to `dtype` and back unchanged (integers: integral and in
// range; floats: finite or not, anything goes).
bool Representable(double value, DType dtype) {
  switch (dtype) {
    case DType::kI32:
      return std::isfinite(value) && value == std::trunc(value) &&
             value >= std::numeric_limits<int32_t>::lowest() &&
             value <= std::numeric_limits<int32_t>::max();
    case DType::kI64:
      // 2^63 itself is not an int64; doubles below it are.
      return std::isfinite(value) && value == std::trunc(value) &&
             value >= -9223372036854775808.0 && value < 9223372036854775808.0;
    case DType::kBool: return value == 0 || value == 1;
    default: return true;
  }
}

}  // namespace

Result<Tensor> FromLogical(const void* host, const Shape& shape, DType dtype,
                           const Placement& placement, const NdSbp& nd_sbp) {
  TESS_RETURN_IF_ERROR(CheckFillableDType("from_logical", dtype));
  TESS_ASSIGN_OR_RETURN(std::shared_ptr<GlobalTensor> t,
                        AllocateFor(shape, dtype, placement, nd_sbp));
  if (!t->has_local() || t->local_shape().num_elements() == 0) return Tensor(t);
  if (host == nullptr) {
    return InvalidArgument("from_logical: host buffer is NULL but the tensor " +
                           t->meta().ToString() + " has " + std::to_string(shape.num_elements()) +
                           " elements");
  }
  // A piece that is one run of the logical buffer and needs no partial fill goes to
  // the device straight from the caller's buffer: no host copy first (for a cuda
  // tensor that copy was as slow as the transfer itself), and pinned memory is DMA'd.
  const int64_t offset = ContiguousRunOffset(t->layout(), shape);
  if (offset >= 0 && !nd_sbp.has_partial()) {
    TESS_RETURN_IF_ERROR(
        t->CopyLocalFromHost(static_cast<const char*>(host) + offset * DTypeSize(dtype)));
    return Tensor(t);
  }
  TESS_ASSIGN_OR_RETURN(HostStaging staging, HostStaging::For(t.get()));
  int64_t begin[Shape::kMaxDims] = {};
  int64_t zero[Shape::kMaxDims] = {};
  for (int d = 0; d < shape.ndim(); ++d) begin[d] = t->layout().ranges[d].begin;
  boxing::CopyBox(host, shape, begin, staging.data(), t->local_shape(), zero, t->local_shape(),
                  DTypeSize(dtype));
  TESS_RETURN_IF_ERROR(ApplyPartialOwnership(*t, staging.data()));
  TESS_RETURN_IF_ERROR(staging.Commit());
  return Tensor(t);
}

Result<Tensor> Full(const Shape& shape, DType dtype, double value, const Placement& placement,
                    const NdSbp& nd_sbp) {
  TESS_RETURN_IF_ERROR(CheckFillableDType("full", dtype));
  if (!Representable(value, dtype)) {
    return InvalidArgument("full: value " + DoubleText(value) + " is not representable as " +
                           DTypeName(dtype));
  }
  TESS_ASSIGN_OR_RETURN(std::shared_ptr<GlobalTensor> t,
                        AllocateFor(shape, dtype, placement, nd_sbp));
  return Filled(std::move(t), [value](int64_t) { return value; });
}

Result<Tensor> Zeros(const Shape& shape, DType dtype, const Placement& placement,
                     const NdSbp& nd_sbp) {
  return Full(shape, dtype, 0.0, placement, nd_sbp);
}

Result<Tensor> Ones(const Shape& shape, DType dtype, const Placement& placement,
                    const NdSbp& nd_sbp) {
  return Full(shape, dtype, 1.0, placement, nd_sbp);
}

Result<Tensor> Arange(double start, double stop, double step, DType dtype,
                      const Placement& placement, const NdSbp& nd_sbp) {
  TESS_RETURN_IF_ERROR(CheckFillableDType("arange", dtype));
  if (dtype == DType::kBool) {
    return InvalidArgument("arange: dtype bool has no range of values; use f32, f64, i32 or i64");
  }
  if (!(step != 0) || !std::isfinite(step) || !std::isfinite(start) || !std::isfinite(stop)) {
    return InvalidArgument("arange: start, stop and step must be finite and step non-zero, got (" +
                           DoubleText(start) + ", " + DoubleText(stop) + ", " + DoubleText(step) +
                           ")");
  }
  if (IsInteger(dtype) && (!Representable(start, dtype) || !Representable(step, dtype))) {
    return InvalidArgument("arange: " + std::string(DTypeName(dtype)) +
                           " needs integral start and step, got start " + DoubleText(start) +
                           " and step " + DoubleText(step));
  }
  const double count = std::ceil((stop - start) / step);
  // 2^63: converting a double at or past it (or inf) to int64_t is undefined.
  if (!(count < 9223372036854775808.0)) {
    return InvalidArgument("arange: (stop - start) / step is " + DoubleText(count) +
                           " elements for (" + DoubleText(start) + ", " + DoubleText(stop) + ", " +
                           DoubleText(step) + "); the element count overflows int64");
  }
  const int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
  if (IsInteger(dtype) && n > 0 &&
      !Representable(start + static_cast<double>(n - 1) * step, dtype)) {
    return InvalidArgument("arange: the last value " +
                           DoubleText(start + static_cast<double>(n - 1) * step) +
                           " does not fit " + DTypeName(dtype));
  }
  TESS_ASSIGN_OR_RETURN(Shape shape, Shape::Make({n}));
  TESS_ASSIGN_OR_RETURN(std::shared_ptr<GlobalTensor> t,
                        AllocateFor(shape, dtype, placement, nd_sbp));
  return Filled(std::move(t),
                [start, step](int64_t i) { return start + static_cast<double>(i) * step; });
}

namespace {

Result<Tensor> Random(const char* fn, bool normal, const Shape& shape, DType dtype, uint64_t seed,
                      const Placement& placement, const NdSbp& nd_sbp) {
  const bool half = dtype == DType::kF16 || dtype == DType::kBF16;
  if (dtype != DType::kF32 && dtype != DType::kF64 && !half) {
    return InvalidArgument(std::string(fn) + ": dtype " + DTypeName(dtype) +
                           " is not a floating type (f32, f64, f16 or bf16)");
  }
  TESS_ASSIGN_OR_RETURN(std::shared_ptr<GlobalTensor> t,
                        AllocateFor(shape, dtype, placement, nd_sbp));
  if (normal) {
    return Filled(std::move(t),
                  [seed](int64_t i) { return CounterNormal(seed, static_cast<uint64_t>(i)); });
  }
  if (dtype == DType::kF32) {
    return Filled(std::move(t),
                  [seed](int64_t i) { return CounterUniformF32(seed, static_cast<uint64_t>(i)); });
  }
  if (half) {
    // The f32 draw, capped at the type's largest value below 1 (f16 1 - 2^-11, bf16
    // 1 - 2^-8), which it keeps exactly: a draw rounding up to 1 would leave [0, 1).
    const double below_one = dtype == DType::kF16 ? 1 - 0x1p-11 : 1 - 0x1p-8;
    return Filled(std::move(t), [seed, below_one](int64_t i) {
      return std::min<double>(CounterUniformF32(seed, static_cast<uint64_t>(i)), below_one);
    });
  }
  return Filled(std::move(t),
                [seed](int64_t i) { return CounterUniform(seed, static_cast<uint64_t>(i)); });
}

}  // namespace

Result<Tensor> Rand(const Shape& shape, DType dtype, uint64_t seed, const Placement& placement,
                    const NdSbp& nd_sbp) {
  return Random("rand", false, shape, dtype, seed, placement, nd_sbp);
}

Result<Tensor> Randn(const Shape& shape, DType dtype, uint64_t seed, const Placement& placement,
                     const NdSbp& nd_sbp) {
  return Random("randn", true, shape, dtype, seed, placement, nd_sbp);
}

}  // namespace tensor
}  // namespace tessera
