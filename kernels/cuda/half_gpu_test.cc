// f16 and bf16 on the CUDA kernels against the CPU kernels (which kernels/cpu:
// half_kernels_test checks against the f32 result rounded), on a GPU: every op's example
// call, matmul on tensor cores at sizes past one tile, and sums that would stop
// growing if accumulated in the 2-byte type. Skipped without a GPU.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_test_util.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

using HalfGpuTest = GpuTest;

HostTensor Converted(const HostTensor& t, DType to) {
  HostTensor out(t.shape(), to);
  for (int64_t i = 0; i < t.size(); ++i) out.Set(i, t.Get(i));
  return out;
}

TEST_F(HalfGpuTest, EveryOpMatchesTheCpu) {
  for (DType half : {DType::kF16, DType::kBF16}) {
    for (const auto& [name, call] : cpu::ExampleCalls()) {
      SCOPED_TRACE(name + " " + DTypeName(half));
      std::mt19937 rng(5);
      std::vector<HostTensor> inputs;
      for (const HostTensor& t : cpu::ExampleInputs(call, &rng)) {
        inputs.push_back(t.dtype() == DType::kF32 ? Converted(t, half) : t);
      }
      ExpectCudaMatchesCpu(name, inputs, call.attrs, stream_);
    }
  }
}

TEST_F(HalfGpuTest, MatmulOnTensorCores) {
  std::mt19937 rng(9);
  for (DType half : {DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(DTypeName(half));
    const HostTensor a = Random(Shape{67, 130}, half, &rng, -1, 1);
    const HostTensor b = Random(Shape{130, 33}, half, &rng, -1, 1);
    ExpectCudaMatchesCpu("matmul", {a, b}, {}, stream_);
    ExpectCudaMatchesCpu(
        "matmul", {b, a},
        {{"transpose_a", AttrValue::Bool(true)}, {"transpose_b", AttrValue::Bool(true)}}, stream_);
    const HostTensor x = Random(Shape{3, 20, 40}, half, &rng, -1, 1);
    const HostTensor y = Random(Shape{3, 40, 10}, half, &rng, -1, 1);
    ExpectCudaMatchesCpu("batch_matmul", {x, y}, {}, stream_);
  }
}

// 4096 ones: 4096 when summed in float, 2048 if the sum were kept in f16.
TEST_F(HalfGpuTest, SumsAccumulateInFloat) {
  for (DType half : {DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(DTypeName(half));
    const HostTensor row = FromValues(Shape{1, 4096}, half, std::vector<double>(4096, 1.0));
    const HostTensor col = FromValues(Shape{4096, 1}, half, std::vector<double>(4096, 1.0));
    std::vector<HostTensor> out = {HostTensor(Shape{1}, half)};
    ASSERT_TRUE(
        RunCudaInto("reduce_sum", {row}, {{"axes", AttrValue::Ints({1})}}, &out, stream_).ok());
    cpu::ExpectValues(out[0], {4096}, 0);
    ASSERT_TRUE(
        RunCudaInto("reduce_sum", {col}, {{"axes", AttrValue::Ints({0})}}, &out, stream_).ok());
    cpu::ExpectValues(out[0], {4096}, 0);
    std::vector<HostTensor> prod = {HostTensor(Shape{1, 1}, half)};
    ASSERT_TRUE(RunCudaInto("matmul", {row, col}, {}, &prod, stream_).ok());
    cpu::ExpectValues(prod[0], {4096}, 0);
  }
}

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
