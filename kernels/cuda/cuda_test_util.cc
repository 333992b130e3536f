#include "kernels/cuda/cuda_test_util.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "core/device/device.h"
#include "core/kernel/kernel_registry.h"
#include "core/op/op_registry.h"
#include "kernels/cuda/data_errors.h"
#include "kernels/cuda/register_cuda_kernels.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

size_t Bytes(const Shape& shape, DType dtype) {
  return static_cast<size_t>(shape.num_elements()) * DTypeSize(dtype);
}

// A call's context over the given views; the views must outlive it.
Result<KernelContext> MakeContext(std::string_view op, const AttrMap& attrs,
                                  const std::vector<LocalTensor>& inputs,
                                  std::vector<LocalTensor>* outputs, cudaStream_t stream) {
  TESS_ASSIGN_OR_RETURN(const op::OpDef* def, op::OpRegistry::Global().Find(op));
  KernelContext ctx;
  ctx.def = def;
  ctx.attrs = &attrs;
  ctx.inputs = inputs.data();
  ctx.num_inputs = static_cast<int>(inputs.size());
  ctx.outputs = outputs->data();
  ctx.num_outputs = static_cast<int>(outputs->size());
  ctx.stream = stream;
  return ctx;
}

}  // namespace

int VisibleGpus() {
  static const int count = [] {
    Result<int> n = device::DeviceCount();
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : 0;
  }();
  return count;
}

DeviceTensor::DeviceTensor(const HostTensor& host, cudaStream_t stream)
    : shape_(host.shape()), dtype_(host.dtype()) {
  const size_t bytes = Bytes(shape_, dtype_);
  if (bytes == 0) return;
  EXPECT_EQ(cudaMalloc(&data_, bytes), cudaSuccess);
  EXPECT_EQ(cudaMemcpyAsync(data_, host.data<char>(), bytes, cudaMemcpyHostToDevice, stream),
            cudaSuccess);
  // The host tensor may go away before the stream runs the copy.
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
}

DeviceTensor::~DeviceTensor() {
  if (data_ != nullptr) cudaFree(data_);
}

LocalTensor DeviceTensor::View() const {
  LocalTensor t;
  t.data = data_;
  t.shape = shape_;
  t.dtype = dtype_;
  return t;
}

HostTensor DeviceTensor::ToHost(cudaStream_t stream) const {
  HostTensor host(shape_, dtype_);
  const size_t bytes = Bytes(shape_, dtype_);
  if (bytes == 0) return host;
  EXPECT_EQ(cudaMemcpyAsync(host.data<char>(), data_, bytes, cudaMemcpyDeviceToHost, stream),
            cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  return host;
}

KernelFn CudaKernel(std::string_view op) {
  static const Status registered = RegisterCudaKernels(&KernelRegistry::Global());
  EXPECT_TRUE(registered.ok()) << registered.ToString();
  return KernelRegistry::Global().Find(op, Device::kCuda);
}

CudaCall::CudaCall(std::string_view op, const std::vector<HostTensor>& inputs, const AttrMap& attrs,
                   const std::vector<HostTensor>& outputs, cudaStream_t stream)
    : attrs_(attrs), stream_(stream), fn_(CudaKernel(op)) {
  for (const HostTensor& t : inputs) {
    inputs_.push_back(std::make_unique<DeviceTensor>(t, stream));
    input_views_.push_back(inputs_.back()->View());
  }
  for (const HostTensor& t : outputs) {
    outputs_.push_back(std::make_unique<DeviceTensor>(t, stream));
    output_views_.push_back(outputs_.back()->View());
  }
  if (fn_ == nullptr) prepared_ = NotFound("no cuda kernel for " + std::string(op));
  Result<KernelContext> ctx = MakeContext(op, attrs_, input_views_, &output_views_, stream);
  if (ctx.ok()) {
    ctx_ = *ctx;
  } else if (prepared_.ok()) {
    prepared_ = ctx.status();
  }
}

Status CudaCall::Launch() const {
  if (!prepared_.ok()) return prepared_;
  return fn_(ctx_);
}

std::vector<HostTensor> CudaCall::Outputs() const {
  std::vector<HostTensor> host;
  for (const auto& t : outputs_) host.push_back(t->ToHost(stream_));
  return host;
}

Status RunCudaInto(std::string_view op, const std::vector<HostTensor>& inputs, const AttrMap& attrs,
                   std::vector<HostTensor>* outputs, cudaStream_t stream) {
  CudaCall call(op, inputs, attrs, *outputs, stream);
  const Status launched = call.Launch();
  const Status synced = device::SynchronizeStream(stream);
  *outputs = call.Outputs();
  return launched.ok() ? synced : launched;
}

Status RunCudaOnHost(std::string_view op, const std::vector<HostTensor>& inputs,
                     const AttrMap& attrs, std::vector<HostTensor>* outputs) {
  const KernelFn fn = CudaKernel(op);
  if (fn == nullptr) return NotFound("no cuda kernel for " + std::string(op));
  std::vector<LocalTensor> in_views, out_views;
  for (const HostTensor& t : inputs) in_views.push_back(t.View());
  for (const HostTensor& t : *outputs) out_views.push_back(t.View());
  TESS_ASSIGN_OR_RETURN(const KernelContext ctx,
                        MakeContext(op, attrs, in_views, &out_views, nullptr));
  return fn(ctx);
}

std::string CudaErrorOf(std::string_view op, const std::vector<HostTensor>& inputs,
                        const AttrMap& attrs, std::vector<HostTensor> outputs) {
  const Status s = RunCudaOnHost(op, inputs, attrs, &outputs);
  if (s.ok()) {
    ADD_FAILURE() << op << ": expected the cuda kernel to fail";
    return "";
  }
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  return s.message();
}

namespace {

// Ops whose outputs are float sums of products or elements.
bool SumsElements(std::string_view op) {
  return op == "reduce_sum" || op == "reduce_mean" || op == "matmul" || op == "batch_matmul";
}

// Per output element, the magnitude its rounding error scales with: for sums the same
// op on |inputs| (sum_i |x_i|, |A| |B|), else |expected|.
Result<std::vector<std::vector<double>>> ErrorScales(std::string_view op,
                                                     const std::vector<HostTensor>& inputs,
                                                     const AttrMap& attrs,
                                                     const std::vector<HostTensor>& expected) {
  std::vector<std::vector<double>> scales;
  const bool floating =
      !inputs.empty() && (inputs[0].dtype() == DType::kF32 || inputs[0].dtype() == DType::kF64);
  if (floating && SumsElements(op)) {
    std::vector<HostTensor> magnitudes = inputs;
    for (HostTensor& t : magnitudes) {
      for (int64_t i = 0; i < t.size(); ++i) t.Set(i, std::abs(t.Get(i)));
    }
    TESS_ASSIGN_OR_RETURN(std::vector<HostTensor> sums, cpu::RunOp(op, magnitudes, attrs));
    for (const HostTensor& t : sums) scales.push_back(t.Values());
    return scales;
  }
  for (const HostTensor& t : expected) {
    scales.push_back(t.Values());
    for (double& v : scales.back()) v = std::abs(v);
  }
  return scales;
}

}  // namespace

double CudaTolerance(std::string_view op, DType dtype) {
  static const std::set<std::string, std::less<>> kAccumulating = {
      "matmul",   "batch_matmul",  "reduce_sum", "reduce_mean",
      "softmax",  "log_softmax",   "layer_norm", "sparse_softmax_cross_entropy",
      "nll_loss", "cross_entropy", "gather_grad"};
  const bool accumulates = kAccumulating.count(op) > 0;
  switch (dtype) {
    case DType::kF32: return accumulates ? 1e-4 : 1e-5;
    case DType::kF64: return accumulates ? 1e-10 : 1e-12;
    // Both devices round an f32 result once: the f32 results' few-ulp difference can
    // land on either side of a 2-byte tie, so one 2-byte ulp at 1 (two for sums, whose
    // f32 results differ more: float on the GPU, double runs on the CPU).
    case DType::kF16: return accumulates ? 0x1p-9 : 0x1p-10;
    case DType::kBF16: return accumulates ? 0x1p-6 : 0x1p-7;
    default: return 0;
  }
}

void ExpectCudaMatchesCpu(std::string_view op, const std::vector<HostTensor>& inputs,
                          const AttrMap& attrs, cudaStream_t stream) {
  Result<std::vector<HostTensor>> expected = cpu::RunOp(op, inputs, attrs);
  ASSERT_TRUE(expected.ok()) << "cpu kernel: " << expected.status().ToString();
  Result<std::vector<std::vector<double>>> scales = ErrorScales(op, inputs, attrs, *expected);
  ASSERT_TRUE(scales.ok()) << scales.status().ToString();
  std::vector<HostTensor> actual;
  for (const HostTensor& e : *expected) actual.emplace_back(e.shape(), e.dtype());
  const Status s = RunCudaInto(op, inputs, attrs, &actual, stream);
  ASSERT_TRUE(s.ok()) << "cuda kernel: " << s.ToString();
  for (size_t i = 0; i < actual.size(); ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    const HostTensor& e = (*expected)[i];
    ASSERT_EQ(actual[i].shape(), e.shape());
    ASSERT_EQ(actual[i].dtype(), e.dtype());
    const double tolerance = CudaTolerance(op, e.dtype());
    int failures = 0;
    for (int64_t k = 0; k < e.size() && failures < 10; ++k) {
      const double a = actual[i].Get(k), want = e.Get(k);
      const bool ok = std::isnan(want) ? std::isnan(a)
                      : std::isinf(want)
                          ? a == want
                          : std::abs(a - want) <= tolerance * std::max(1.0, (*scales)[i][k]);
      if (!ok) {
        ++failures;
        ADD_FAILURE() << "element " << k << " of " << e.shape().ToString() << " "
                      << DTypeName(e.dtype()) << ": cuda " << a << ", cpu " << want
                      << " (tolerance " << tolerance << " x max(1, " << (*scales)[i][k] << "))";
      }
    }
  }
}

void GpuTest::SetUp() {
  TESS_SKIP_WITHOUT_GPU();
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
}

void GpuTest::TearDown() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
