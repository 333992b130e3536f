#include "kernels/cpu/kernel_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/kernel/kernel_registry.h"
#include "core/op/op_registry.h"
#include "core/op/op_test_util.h"
#include "kernels/cpu/register_cpu_kernels.h"

namespace tessera {
namespace kernels {
namespace cpu {

HostTensor::HostTensor(Shape shape, DType dtype) : shape_(shape), dtype_(dtype) {
  const size_t bytes = static_cast<size_t>(shape.num_elements()) * DTypeSize(dtype);
  storage_.resize((bytes + 7) / 8);
  if (dtype == DType::kBool) {
    // Bytes that are neither false nor true: Get reads them back as 90.
    if (bytes > 0)
      std::memset(storage_.data(), 0x5a, bytes);  // an empty vector's data() may be null
    return;
  }
  const double g = Garbage(dtype);
  for (int64_t i = 0; i < size(); ++i) Set(i, g);
}

double HostTensor::Get(int64_t i) const {
  switch (dtype_) {
    case DType::kF32: return data<float>()[i];
    case DType::kF64: return data<double>()[i];
    case DType::kI32: return data<int32_t>()[i];
    case DType::kI64: return static_cast<double>(data<int64_t>()[i]);
    case DType::kBool: return data<uint8_t>()[i];  // the byte, so garbage shows
    case DType::kF16: return static_cast<float>(data<Float16>()[i]);
    case DType::kBF16: return static_cast<float>(data<BFloat16>()[i]);
    default: break;
  }
  ADD_FAILURE() << "HostTensor::Get: dtype " << DTypeName(dtype_);
  return 0;
}

void HostTensor::Set(int64_t i, double value) {
  switch (dtype_) {
    case DType::kF32: data<float>()[i] = static_cast<float>(value); return;
    case DType::kF64: data<double>()[i] = value; return;
    case DType::kI32: data<int32_t>()[i] = static_cast<int32_t>(value); return;
    case DType::kI64: data<int64_t>()[i] = static_cast<int64_t>(value); return;
    case DType::kBool: data<uint8_t>()[i] = value != 0 ? 1 : 0; return;
    // Rounded to nearest even through float (test values are floats already).
    case DType::kF16: data<Float16>()[i] = Float16(static_cast<float>(value)); return;
    case DType::kBF16: data<BFloat16>()[i] = BFloat16(static_cast<float>(value)); return;
    default: break;
  }
  ADD_FAILURE() << "HostTensor::Set: dtype " << DTypeName(dtype_);
}

std::vector<double> HostTensor::Values() const {
  std::vector<double> v(static_cast<size_t>(size()));
  for (int64_t i = 0; i < size(); ++i) v[i] = Get(i);
  return v;
}

LocalTensor HostTensor::View() const {
  LocalTensor t;
  t.data = size() == 0 ? nullptr : const_cast<double*>(storage_.data());
  t.shape = shape_;
  t.dtype = dtype_;
  return t;
}

double Garbage(DType dtype) {
  if (dtype == DType::kF32 || dtype == DType::kF64 || dtype == DType::kF16 ||
      dtype == DType::kBF16) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (dtype == DType::kBool) return 0x5a;
  return 0x5a5a5a5a;
}

HostTensor FromValues(const Shape& shape, DType dtype, const std::vector<double>& values) {
  HostTensor t(shape, dtype);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.size()) << "FromValues " << shape.ToString();
  for (int64_t i = 0; i < t.size() && i < static_cast<int64_t>(values.size()); ++i) {
    t.Set(i, values[i]);
  }
  return t;
}

HostTensor Random(const Shape& shape, DType dtype, std::mt19937* rng, double lo, double hi) {
  HostTensor t(shape, dtype);
  if (dtype == DType::kBool) {
    std::bernoulli_distribution coin;
    for (int64_t i = 0; i < t.size(); ++i) t.Set(i, coin(*rng) ? 1 : 0);
    return t;
  }
  const bool integer = dtype == DType::kI32 || dtype == DType::kI64;
  std::uniform_real_distribution<double> real(lo, hi);
  std::uniform_int_distribution<int64_t> whole(static_cast<int64_t>(std::ceil(lo)),
                                               static_cast<int64_t>(std::floor(hi)));
  for (int64_t i = 0; i < t.size(); ++i) {
    t.Set(i, integer ? static_cast<double>(whole(*rng)) : real(*rng));
  }
  return t;
}

namespace {

KernelFn CpuKernel(std::string_view op) {
  static const Status registered = RegisterCpuKernels(&KernelRegistry::Global());
  EXPECT_TRUE(registered.ok()) << registered.ToString();
  return KernelRegistry::Global().Find(op, Device::kCpu);
}

}  // namespace

Result<std::unique_ptr<PreparedCall>> PrepareCall(std::string_view op_name,
                                                  std::vector<HostTensor> inputs,
                                                  const op::AttrMap& attrs,
                                                  std::vector<HostTensor> outputs) {
  TESS_ASSIGN_OR_RETURN(const op::OpDef* def, op::OpRegistry::Global().Find(op_name));
  auto call = std::make_unique<PreparedCall>();
  call->fn = CpuKernel(op_name);
  if (call->fn == nullptr) return NotFound("no cpu kernel for " + std::string(op_name));
  call->inputs = std::move(inputs);
  call->outputs = std::move(outputs);
  call->attrs = attrs;
  for (const HostTensor& t : call->inputs) call->input_views.push_back(t.View());
  for (const HostTensor& t : call->outputs) call->output_views.push_back(t.View());
  KernelContext& ctx = call->ctx;
  ctx.def = def;
  ctx.attrs = &call->attrs;
  ctx.inputs = call->input_views.data();
  ctx.num_inputs = static_cast<int>(call->input_views.size());
  ctx.outputs = call->output_views.data();
  ctx.num_outputs = static_cast<int>(call->output_views.size());
  return call;
}

Result<std::unique_ptr<PreparedCall>> PrepareCall(std::string_view op_name,
                                                  std::vector<HostTensor> inputs,
                                                  const op::AttrMap& attrs) {
  std::vector<op::TensorDesc> descs;
  for (const HostTensor& t : inputs) descs.push_back({t.shape(), t.dtype()});
  TESS_ASSIGN_OR_RETURN(std::vector<op::TensorDesc> out_descs,
                        op::InferShapes(op_name, descs, attrs));
  std::vector<HostTensor> outputs;
  for (const op::TensorDesc& d : out_descs) outputs.emplace_back(d.shape, d.dtype);
  return PrepareCall(op_name, std::move(inputs), attrs, std::move(outputs));
}

Status RunOpInto(std::string_view op_name, const std::vector<HostTensor>& inputs,
                 const op::AttrMap& attrs, std::vector<HostTensor>* outputs) {
  TESS_ASSIGN_OR_RETURN(std::unique_ptr<PreparedCall> call,
                        PrepareCall(op_name, inputs, attrs, *outputs));
  TESS_RETURN_IF_ERROR(call->fn(call->ctx));
  *outputs = std::move(call->outputs);
  return Status::Ok();
}

Result<std::vector<HostTensor>> RunOp(std::string_view op_name,
                                      const std::vector<HostTensor>& inputs,
                                      const op::AttrMap& attrs) {
  TESS_ASSIGN_OR_RETURN(std::unique_ptr<PreparedCall> call, PrepareCall(op_name, inputs, attrs));
  TESS_RETURN_IF_ERROR(call->fn(call->ctx));
  return std::move(call->outputs);
}

std::string ErrorOf(std::string_view op_name, const std::vector<HostTensor>& inputs,
                    const op::AttrMap& attrs, std::vector<HostTensor> outputs) {
  Status s = RunOpInto(op_name, inputs, attrs, &outputs);
  if (s.ok()) {
    ADD_FAILURE() << op_name << ": expected the kernel to fail";
    return "";
  }
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  return s.message();
}

const std::map<std::string, ExampleCall>& ExampleCalls() {
  static const auto* calls = [] {
    using op::AttrValue;
    const Shape m{3, 4};
    auto* c = new std::map<std::string, ExampleCall>();
    for (const char* op : {"relu", "gelu", "exp", "neg", "sqrt", "tanh", "sigmoid", "identity",
                           "abs", "softmax", "log_softmax", "log", "sin", "cos"}) {
      (*c)[op] = {{m}, {}};
    }
    for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum", "pow"}) {
      (*c)[op] = {{m, Shape{4}}, {}};
    }
    (*c)["scalar_add"] = {{m}, {{"value", AttrValue::Float(1.5)}}};
    (*c)["scalar_mul"] = {{m}, {{"value", AttrValue::Float(-2)}}};
    (*c)["cast"] = {{m}, {{"dtype", AttrValue::OfDType(DType::kF64)}}};
    (*c)["add_n"] = {{m, m, m}, {}};
    (*c)["matmul"] = {{m, Shape{4, 2}}, {}};
    (*c)["batch_matmul"] = {{Shape{2, 3, 4}, Shape{2, 4, 5}}, {}};
    for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"}) {
      (*c)[op] = {{m}, {{"axes", AttrValue::Ints({1})}}};
    }
    (*c)["transpose"] = {{m}, {{"perm", AttrValue::Ints({1, 0})}}};
    (*c)["reshape"] = {{m}, {{"shape", AttrValue::Ints({2, 6})}}};
    (*c)["expand"] = {{Shape{3, 1}}, {{"shape", AttrValue::Ints({2, 3, 4})}}};
    (*c)["squeeze"] = {{Shape{3, 1, 4}}, {}};
    (*c)["unsqueeze"] = {{m}, {{"axis", AttrValue::Int(1)}}};
    (*c)["flatten"] = {{Shape{2, 3, 4}}, {{"start_axis", AttrValue::Int(1)}}};
    for (const char* op :
         {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}) {
      (*c)[op] = {{m, Shape{4}}, {}};
    }
    (*c)["where"] = {{m, m, Shape{4}}, {}, {DType::kBool, DType::kF32, DType::kF32}};
    (*c)["argmax"] = {{m}, {{"axis", AttrValue::Int(0)}}};
    (*c)["cumsum"] = {{m}, {}};
    (*c)["var"] = {{m}, {{"axes", AttrValue::Ints({1})}}};
    (*c)["std"] = {{m}, {{"axes", AttrValue::Ints({0})}, {"correction", AttrValue::Int(0)}}};
    (*c)["nll_loss"] = {{m, Shape{3}}, {}, {DType::kF32, DType::kI64}};
    (*c)["cross_entropy"] = {
        {m, Shape{3}}, {{"reduction", AttrValue::Int(0)}}, {DType::kF32, DType::kI32}};
    (*c)["concat"] = {{m, m}, {{"axis", AttrValue::Int(1)}}};
    (*c)["slice"] = {{m},
                     {{"start", AttrValue::Ints({0, 1})},
                      {"stop", AttrValue::Ints({3, 4})},
                      {"step", AttrValue::Ints({2, 1})}}};
    (*c)["gather"] = {{m, Shape{2}}, {}, {DType::kF32, DType::kI32}};
    (*c)["embedding"] = {{m, Shape{5}}, {}, {DType::kF32, DType::kI64}};
    (*c)["layer_norm"] = {{m, Shape{4}, Shape{4}}, {}};
    (*c)["bias_add"] = {{m, Shape{4}}, {}};
    (*c)["sparse_softmax_cross_entropy"] = {{m, Shape{3}}, {}, {DType::kF32, DType::kI32}};
    // The backward-only ops.
    for (const char* op : {"relu_grad", "gelu_grad", "equal_mask", "xlogy"})
      (*c)[op] = {{m, m}, {}};
    (*c)["sparse_softmax_cross_entropy_grad"] = {
        {m, Shape{3}, Shape{3}}, {}, {DType::kF32, DType::kI32, DType::kF32}};
    (*c)["gather_grad"] = {{Shape{2, 4}, Shape{2}},
                           {{"axis", AttrValue::Int(0)}, {"size", AttrValue::Int(3)}},
                           {DType::kF32, DType::kI32}};
    (*c)["slice_grad"] = {{Shape{2, 3}},
                          {{"shape", AttrValue::Ints({3, 4})},
                           {"start", AttrValue::Ints({0, 1})},
                           {"step", AttrValue::Ints({2, 1})}}};
    (*c)["sgd_update"] = {{m, m, m}, {{"momentum", AttrValue::Float(0.9)}}};
    (*c)["adam_update"] = {{m, m, m, m}, {{"step", AttrValue::Int(2)}}};
    (*c)["adam_update_at_step"] = {
        {m, m, m, m, Shape{}},
        {},
        {DType::kF32, DType::kF32, DType::kF32, DType::kF32, DType::kI64},
        1};
    return c;
  }();
  return *calls;
}

std::vector<HostTensor> ExampleInputs(const ExampleCall& call, std::mt19937* rng) {
  std::vector<HostTensor> ins;
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const DType dt = call.dtypes.empty() ? DType::kF32 : call.dtypes[i];
    const bool floating = dt == DType::kF32 || dt == DType::kF64;
    ins.push_back(floating ? Random(call.inputs[i], dt, rng, 0.5, 2)
                           : Random(call.inputs[i], dt, rng, call.int_low, call.int_low + 1));
  }
  return ins;
}

double Tolerance(DType dtype) {
  switch (dtype) {
    case DType::kF32: return 1e-5;
    case DType::kF64: return 1e-12;
    // One ulp at 1 (2^-10, 2^-7): results that are one rounding of the exact value.
    case DType::kF16: return 1.0 / 1024;
    case DType::kBF16: return 1.0 / 128;
    default: return 0;
  }
}

bool ValueMatches(double actual, double expected, double tolerance) {
  if (std::isnan(expected)) return std::isnan(actual);
  if (std::isinf(expected)) return actual == expected;
  return std::abs(actual - expected) <= tolerance * std::max(1.0, std::abs(expected));
}

void ExpectValues(const HostTensor& actual, const std::vector<double>& expected, double tolerance) {
  if (tolerance < 0) tolerance = Tolerance(actual.dtype());
  ASSERT_EQ(actual.size(), static_cast<int64_t>(expected.size()))
      << "shape " << actual.shape().ToString();
  int failures = 0;
  for (int64_t i = 0; i < actual.size() && failures < 10; ++i) {
    const double a = actual.Get(i);
    const double e = expected[i];
    if (!ValueMatches(a, e, tolerance)) {
      ++failures;
      ADD_FAILURE() << "element " << i << " " << (actual.shape().ndim() > 0 ? "" : "(scalar) ")
                    << "of " << actual.shape().ToString() << " " << DTypeName(actual.dtype())
                    << ": got " << a << ", expected " << e << " (tolerance " << tolerance << ")";
    }
  }
}

std::string IntsString(const std::vector<int64_t>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? "," : "") + std::to_string(values[i]);
  return s + "]";
}

std::vector<int64_t> Unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> index(static_cast<size_t>(shape.ndim()));
  for (int i = shape.ndim() - 1; i >= 0; --i) {
    index[i] = flat % shape.dim(i);
    flat /= shape.dim(i);
  }
  return index;
}

int64_t Ravel(const std::vector<int64_t>& index, const Shape& shape) {
  int64_t flat = 0;
  for (int i = 0; i < shape.ndim(); ++i) flat = flat * shape.dim(i) + index[i];
  return flat;
}

}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
