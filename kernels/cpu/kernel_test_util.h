// Test helpers for the CPU kernels: owning host tensors, random and literal inputs, and
// a runner that calls an op's kernel through the registry the way the eager interpreter
// does (output shapes from the op's shape function, storage allocated by the caller).
#ifndef TESSERA_KERNELS_CPU_KERNEL_TEST_UTIL_H_
#define TESSERA_KERNELS_CPU_KERNEL_TEST_UTIL_H_

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/kernel/kernel.h"
#include "core/op/attr.h"

namespace tessera {
namespace kernels {
namespace cpu {

// Storage for a LocalTensor. Elements are read and written as doubles; tests keep
// integer values small enough for that to be exact; f16/bf16 writes round to nearest
// even. A bool element reads as its byte
// (0, 1, or 90 where nothing wrote it) and is written as value != 0.
class HostTensor {
 public:
  HostTensor() = default;
  // Filled with Garbage(dtype).
  HostTensor(Shape shape, DType dtype);

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int64_t size() const { return shape_.num_elements(); }

  double Get(int64_t i) const;
  void Set(int64_t i, double value);
  std::vector<double> Values() const;
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(storage_.data());
  }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(storage_.data());
  }
  // Null data for an empty tensor, as the interpreter passes it.
  LocalTensor View() const;

 private:
  Shape shape_;
  DType dtype_ = DType::kF32;
  std::vector<double> storage_;  // whole 8-byte words: aligned for every dtype
};

// What an output holds before a kernel runs: NaN for floats, 0x5a5a... for integers, so
// an element the kernel forgot shows up.
double Garbage(DType dtype);

HostTensor FromValues(const Shape& shape, DType dtype, const std::vector<double>& values);
// Floats uniform in [lo, hi); integers uniform in [ceil(lo), floor(hi)]; bool 0 or 1.
HostTensor Random(const Shape& shape, DType dtype, std::mt19937* rng, double lo = -2,
                  double hi = 2);

// One kernel call, ready to run (again and again) with KernelFn fn(ctx): the tensors,
// their views and the context pointing at them. Not movable: ctx points into it.
struct PreparedCall {
  std::vector<HostTensor> inputs, outputs;
  op::AttrMap attrs;
  std::vector<LocalTensor> input_views, output_views;
  KernelContext ctx;
  KernelFn fn = nullptr;

  PreparedCall() = default;
  PreparedCall(const PreparedCall&) = delete;
  PreparedCall& operator=(const PreparedCall&) = delete;
};

// The CPU kernel of `op` from KernelRegistry::Global() (filled by RegisterCpuKernels on
// first use) and a context over the given tensors.
Result<std::unique_ptr<PreparedCall>> PrepareCall(std::string_view op,
                                                  std::vector<HostTensor> inputs,
                                                  const op::AttrMap& attrs,
                                                  std::vector<HostTensor> outputs);
// Same, with outputs made from the op's shape function, as the interpreter makes them.
Result<std::unique_ptr<PreparedCall>> PrepareCall(std::string_view op,
                                                  std::vector<HostTensor> inputs,
                                                  const op::AttrMap& attrs = {});

// Runs `op` on the CPU kernel from KernelRegistry::Global() (filled by
// RegisterCpuKernels): output descriptors from the op's shape function.
Result<std::vector<HostTensor>> RunOp(std::string_view op, const std::vector<HostTensor>& inputs,
                                      const op::AttrMap& attrs = {});
// With caller-made outputs, for local-shape cases and calls the shape function would
// refuse.
Status RunOpInto(std::string_view op, const std::vector<HostTensor>& inputs,
                 const op::AttrMap& attrs, std::vector<HostTensor>* outputs);
// The message of a failing RunOpInto (a test failure and "" if it succeeds).
std::string ErrorOf(std::string_view op, const std::vector<HostTensor>& inputs,
                    const op::AttrMap& attrs, std::vector<HostTensor> outputs);

// Default comparison tolerance relative to max(1, |expected|): f32 1e-5, f64 1e-12,
// f16 2^-10, bf16 2^-7, integers exact.
double Tolerance(DType dtype);
// One element as ExpectValues compares it: NaN matches NaN, infinities match exactly,
// anything else within tolerance * max(1, |expected|).
bool ValueMatches(double actual, double expected, double tolerance);
// Elementwise comparison; NaN matches NaN and infinities match exactly.
void ExpectValues(const HostTensor& actual, const std::vector<double>& expected,
                  double tolerance = -1);

// Row-major multi-index of element `flat` of `shape`, and back.
std::vector<int64_t> Unravel(int64_t flat, const Shape& shape);
int64_t Ravel(const std::vector<int64_t>& index, const Shape& shape);

// One valid f32 call of an op: input shapes, attributes, and per-input dtypes (f32
// when empty; index inputs are integers).
struct ExampleCall {
  std::vector<Shape> inputs;
  op::AttrMap attrs;
  std::vector<DType> dtypes = {};
  // Integer inputs are drawn from [int_low, int_low + 1] (a step number counts from 1).
  double int_low = 0;
};
// An example call of every built-in op, by name.
const std::map<std::string, ExampleCall>& ExampleCalls();
// Random inputs for `call`: floats in [0.5, 2) (inside every op's domain), integers in
// [int_low, int_low + 1] (valid indices for every example).
std::vector<HostTensor> ExampleInputs(const ExampleCall& call, std::mt19937* rng);

using op::AttrMap;
using op::AttrValue;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// "[0,2]", for traces.
std::string IntsString(const std::vector<int64_t>& values);

// The dtypes a test sweeps.
inline const std::vector<DType>& FloatTypes() {
  static const std::vector<DType> v{DType::kF32, DType::kF64};
  return v;
}
inline const std::vector<DType>& IndexTypes() {
  static const std::vector<DType> v{DType::kI32, DType::kI64};
  return v;
}
inline const std::vector<DType>& AllTypes() {
  static const std::vector<DType> v{DType::kF32, DType::kF64, DType::kI32, DType::kI64};
  return v;
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_CPU_KERNEL_TEST_UTIL_H_
