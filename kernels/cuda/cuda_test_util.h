// Test helpers for the CUDA kernels: device copies of the CPU tests' host tensors, a
// runner that calls an op's CUDA kernel the way the eager interpreter would, and the
// comparison of a CUDA kernel with the CPU kernel (itself checked against plain loops
// in kernels/cpu) on the same inputs.
#ifndef TESSERA_KERNELS_CUDA_CUDA_TEST_UTIL_H_
#define TESSERA_KERNELS_CUDA_CUDA_TEST_UTIL_H_

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/status.h"
#include "core/kernel/kernel.h"
#include "core/op/attr.h"
#include "kernels/cpu/kernel_test_util.h"

namespace tessera {
namespace kernels {
namespace cuda {

using cpu::AllTypes;
using cpu::FloatTypes;
using cpu::FromValues;
using cpu::HostTensor;
using cpu::IndexTypes;
using cpu::IntsString;
using cpu::kInf;
using cpu::kNaN;
using cpu::Random;
using op::AttrMap;
using op::AttrValue;

// One call of an op as a test table row: inputs, attributes and caller-made outputs.
struct OpCall {
  std::string op;
  std::vector<HostTensor> inputs;
  AttrMap attrs;
  std::vector<HostTensor> outputs;
};

// Visible CUDA devices; 0 on a machine without a GPU or driver.
int VisibleGpus();

// For a test's first line: skips it, with the line the project's runners look for,
// where no GPU is visible.
#define TESS_SKIP_WITHOUT_GPU()                         \
  do {                                                  \
    if (::tessera::kernels::cuda::VisibleGpus() == 0) { \
      std::printf("SKIPPED: no CUDA device visible\n"); \
      GTEST_SKIP() << "no CUDA device visible";         \
    }                                                   \
  } while (0)

// A device copy of a host tensor; freed on destruction.
class DeviceTensor {
 public:
  DeviceTensor(const HostTensor& host, cudaStream_t stream);
  ~DeviceTensor();
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  LocalTensor View() const;
  // Waits for `stream`, then copies back into a host tensor of the same shape.
  HostTensor ToHost(cudaStream_t stream) const;

 private:
  Shape shape_;
  DType dtype_;
  void* data_ = nullptr;
};

// The CUDA kernel of `op` from KernelRegistry::Global() (filled by RegisterCudaKernels
// on first use).
KernelFn CudaKernel(std::string_view op);

// One CUDA kernel call over device copies of host tensors (the outputs' initial values
// are what the device buffers hold before the kernel runs).
class CudaCall {
 public:
  CudaCall(std::string_view op, const std::vector<HostTensor>& inputs, const AttrMap& attrs,
           const std::vector<HostTensor>& outputs, cudaStream_t stream);
  CudaCall(const CudaCall&) = delete;
  CudaCall& operator=(const CudaCall&) = delete;

  // Runs the kernel (enqueues its work) and returns its status without waiting. Does
  // nothing but call the kernel, so it can be timed or watched for allocations.
  Status Launch() const;
  // Waits for the stream and copies the outputs back (whether or not Launch failed).
  std::vector<HostTensor> Outputs() const;

 private:
  AttrMap attrs_;
  cudaStream_t stream_;
  std::vector<std::unique_ptr<DeviceTensor>> inputs_, outputs_;
  std::vector<LocalTensor> input_views_, output_views_;
  KernelFn fn_ = nullptr;
  Status prepared_;  // why Launch cannot run, if it cannot
  KernelContext ctx_;
};

// Launch, then SynchronizeStream, then the outputs copied back into *outputs. Returns
// the kernel's error, else SynchronizeStream's.
Status RunCudaInto(std::string_view op, const std::vector<HostTensor>& inputs, const AttrMap& attrs,
                   std::vector<HostTensor>* outputs, cudaStream_t stream);

// Runs `op`'s CUDA kernel on HOST tensors with the null stream and returns its status
// without waiting: only for calls that must never reach the device (refused, or with
// nothing to write), or on a machine without a GPU.
Status RunCudaOnHost(std::string_view op, const std::vector<HostTensor>& inputs,
                     const AttrMap& attrs, std::vector<HostTensor>* outputs);

// The CUDA kernel's error for a call on HOST tensors: only for calls that the kernel
// must refuse before touching storage or the device. "" (and a test failure) if it
// succeeds.
std::string CudaErrorOf(std::string_view op, const std::vector<HostTensor>& inputs,
                        const AttrMap& attrs, std::vector<HostTensor> outputs);

// Comparison tolerance for `op`'s outputs of `dtype`, relative to max(1, the error
// scale): integers exact; f32 1e-5 for elementwise ops (CUDA's float math is within
// 2 ulp of the CPU's) and 1e-4 for ops that accumulate (f32 sums in float on the GPU,
// in double on the CPU); f64 1e-12 and 1e-10; f16 2^-10 and 2^-9, bf16 2^-7 and 2^-6
// (one or two ulps of the 2-byte type at 1). The error scale of a sum (reduce_sum,
// reduce_mean, matmul) is the same op on |inputs| (sum_i |x_i|), since cancellation can
// leave a result far smaller than its rounding error; for other ops it is |expected|.
double CudaTolerance(std::string_view op, DType dtype);

// Runs `op` on the CPU kernel and on the CUDA kernel (on `stream`) with the same inputs
// and expects the same outputs within CudaTolerance. NaN matches NaN and infinities
// match exactly. The CUDA outputs start as the CPU tests' garbage, so an element the
// kernel forgets shows up.
void ExpectCudaMatchesCpu(std::string_view op, const std::vector<HostTensor>& inputs,
                          const AttrMap& attrs, cudaStream_t stream);

// A non-default stream for GPU tests; skips the test without a GPU.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  cudaStream_t stream_ = nullptr;
};

}  // namespace cuda
}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_KERNELS_CUDA_CUDA_TEST_UTIL_H_
