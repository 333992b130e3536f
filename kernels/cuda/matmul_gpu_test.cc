// matmul and batch_matmul on CUDA (cuBLAS for floats, the tiled kernel for integers)
// against the CPU kernels, on a GPU.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernels/cuda/cuda_test_util.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

using MatmulGpuTest = GpuTest;

struct Dims {
  int64_t m, k, n;
};

// a and b shapes for op(a) m x k and op(b) k x n under the transpose flags, with
// `batch` leading axes.
std::vector<HostTensor> Operands(const Dims& d, bool ta, bool tb, const std::vector<int64_t>& batch,
                                 DType dt, std::mt19937* rng, bool shared_b = false) {
  std::vector<int64_t> a = batch, b = shared_b ? std::vector<int64_t>{} : batch;
  a.push_back(ta ? d.k : d.m);
  a.push_back(ta ? d.m : d.k);
  b.push_back(tb ? d.n : d.k);
  b.push_back(tb ? d.k : d.n);
  // Integers small enough that no product or sum overflows, so wrapping never decides.
  const double range = dt == DType::kI32 || dt == DType::kI64 ? 5 : 2;
  return {Random(Shape::Make(a).value(), dt, rng, -range, range),
          Random(Shape::Make(b).value(), dt, rng, -range, range)};
}

const std::vector<Dims>& MatmulDims() {
  static const std::vector<Dims> dims = {
      {3, 4, 2}, {1, 1, 1}, {64, 33, 17},   {0, 4, 3},
      {3, 0, 5}, {4, 3, 0}, {257, 129, 65}, {17, 300, 1},
  };
  return dims;
}

TEST_F(MatmulGpuTest, EveryTranspositionDtypeAndSize) {
  std::mt19937 rng(13);
  for (DType dt : AllTypes()) {
    for (const Dims& d : MatmulDims()) {
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          SCOPED_TRACE(std::string(DTypeName(dt)) + " m" + std::to_string(d.m) + " k" +
                       std::to_string(d.k) + " n" + std::to_string(d.n) + (ta ? " ta" : "") +
                       (tb ? " tb" : ""));
          const AttrMap attrs{{"transpose_a", AttrValue::Bool(ta)},
                              {"transpose_b", AttrValue::Bool(tb)}};
          ExpectCudaMatchesCpu("matmul", Operands(d, ta, tb, {}, dt, &rng), attrs, stream_);
        }
      }
    }
  }
}

TEST_F(MatmulGpuTest, BatchMatmulOneAndTwoBatchAxes) {
  std::mt19937 rng(17);
  for (DType dt : AllTypes()) {
    for (const std::vector<int64_t>& batch :
         std::vector<std::vector<int64_t>>{{1}, {2}, {3, 2}, {0}, {9000}}) {
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          const Dims d = batch[0] == 9000 ? Dims{2, 3, 2} : Dims{5, 7, 3};
          SCOPED_TRACE(std::string(DTypeName(dt)) + " batch " + cpu::IntsString(batch) +
                       (ta ? " ta" : "") + (tb ? " tb" : ""));
          const AttrMap attrs{{"transpose_a", AttrValue::Bool(ta)},
                              {"transpose_b", AttrValue::Bool(tb)}};
          ExpectCudaMatchesCpu("batch_matmul", Operands(d, ta, tb, batch, dt, &rng), attrs,
                               stream_);
        }
      }
    }
  }
}

// matmul with a 3-d or 4-d a shares the 2-d b across a's leading axes (one folded GEMM,
// or with transpose_a a strided batch whose b stride is 0).
TEST_F(MatmulGpuTest, MatmulBroadcastsATwoDimensionalB) {
  std::mt19937 rng(19);
  for (DType dt : AllTypes()) {
    for (const std::vector<int64_t>& batch :
         std::vector<std::vector<int64_t>>{{1}, {3}, {3, 2}, {0}}) {
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          SCOPED_TRACE(std::string(DTypeName(dt)) + " batch " + cpu::IntsString(batch) +
                       (ta ? " ta" : "") + (tb ? " tb" : ""));
          const AttrMap attrs{{"transpose_a", AttrValue::Bool(ta)},
                              {"transpose_b", AttrValue::Bool(tb)}};
          ExpectCudaMatchesCpu("matmul", Operands(Dims{5, 7, 3}, ta, tb, batch, dt, &rng, true),
                               attrs, stream_);
        }
      }
    }
  }
}

// Each stream has its own cuBLAS handle; threads on different streams do not mix up
// each other's stream or workspace.
TEST_F(MatmulGpuTest, ConcurrentStreamsFromSeveralThreads) {
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      cudaStream_t stream = nullptr;
      ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
      std::mt19937 rng(100 + t);
      for (int i = 0; i < 5; ++i) {
        ExpectCudaMatchesCpu(
            "matmul", Operands({96, 80, 72}, i % 2, t % 2, {}, DType::kF32, &rng),
            {{"transpose_a", AttrValue::Bool(i % 2)}, {"transpose_b", AttrValue::Bool(t % 2)}},
            stream);
      }
      cudaStreamDestroy(stream);
    });
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
