// Elementwise CUDA kernels against the CPU kernels, on a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_test_util.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

using ElementwiseGpuTest = GpuTest;

// Odd and larger than one capped grid (8192 blocks x 256 threads), so the grid-stride
// loops and ragged tails run.
const Shape kLarge{2'100'007};

std::vector<Shape> UnaryShapes() { return {Shape{3, 5}, Shape{0, 4}, Shape{}, Shape{1}, kLarge}; }

TEST_F(ElementwiseGpuTest, UnaryOpsEveryDtypeAndShape) {
  std::mt19937 rng(7);
  for (const char* op : {"relu", "neg", "identity", "abs", "gelu", "exp", "tanh", "sigmoid", "sqrt",
                         "log", "sin", "cos"}) {
    const std::string name = op;
    const bool any = name == "relu" || name == "neg" || name == "identity" || name == "abs";
    for (DType dt : any ? AllTypes() : FloatTypes()) {
      for (const Shape& shape : UnaryShapes()) {
        SCOPED_TRACE(name + " " + DTypeName(dt) + " " + shape.ToString());
        const double lo = name == "sqrt" || name == "log" ? 0 : -30, hi = 30;
        ExpectCudaMatchesCpu(op, {Random(shape, dt, &rng, lo, hi)}, {}, stream_);
      }
    }
  }
}

TEST_F(ElementwiseGpuTest, UnaryEdgeValues) {
  for (DType dt : FloatTypes()) {
    const HostTensor x = FromValues(Shape{7}, dt, {-1000, 1000, kNaN, -kInf, kInf, 0, -0.0});
    for (const char* op :
         {"relu", "neg", "abs", "gelu", "exp", "tanh", "sigmoid", "sqrt", "log", "sin", "cos"}) {
      SCOPED_TRACE(std::string(op) + " " + DTypeName(dt));
      ExpectCudaMatchesCpu(op, {x}, {}, stream_);
    }
  }
  // Integer negation (and abs) wraps: -lowest is lowest.
  ExpectCudaMatchesCpu("neg", {FromValues(Shape{2}, DType::kI32, {-2147483648.0, 5})}, {}, stream_);
  ExpectCudaMatchesCpu("abs", {FromValues(Shape{3}, DType::kI32, {-2147483648.0, -5, 5})}, {},
                       stream_);
}

TEST_F(ElementwiseGpuTest, ScalarOpsExactWrappingAndSaturating) {
  std::mt19937 rng(11);
  for (DType dt : AllTypes()) {
    for (double value : {3.0, -2.0, 2.5, 1e20, -1e20, kNaN}) {
      for (const Shape& shape : {Shape{4, 3}, Shape{0}, kLarge}) {
        SCOPED_TRACE(std::string(DTypeName(dt)) + " value " + std::to_string(value) + " " +
                     shape.ToString());
        const AttrMap attrs{{"value", AttrValue::Float(value)}};
        const HostTensor x = Random(shape, dt, &rng, -50, 50);
        ExpectCudaMatchesCpu("scalar_add", {x}, attrs, stream_);
        ExpectCudaMatchesCpu("scalar_mul", {x}, attrs, stream_);
      }
    }
  }
  const HostTensor edge = FromValues(Shape{2}, DType::kI32, {2147483647.0, -5});
  ExpectCudaMatchesCpu("scalar_add", {edge}, {{"value", AttrValue::Float(1)}}, stream_);
}

TEST_F(ElementwiseGpuTest, CastEveryPairTruncatingAndSaturating) {
  for (DType from : AllTypes()) {
    for (DType to : AllTypes()) {
      SCOPED_TRACE(std::string(DTypeName(from)) + " -> " + DTypeName(to));
      const bool floating = from == DType::kF32 || from == DType::kF64;
      std::vector<double> values = {-3, -1, 0, 2, 100, 2147483647.0, -2147483648.0};
      if (floating) values.insert(values.end(), {-2.7, 2.7, kNaN, 1e10, -1e10, kInf, -kInf, 1e300});
      if (from == DType::kI64) values.insert(values.end(), {5e9, -5e9});
      ExpectCudaMatchesCpu("cast",
                           {FromValues(Shape{static_cast<int64_t>(values.size())}, from, values)},
                           {{"dtype", AttrValue::OfDType(to)}}, stream_);
    }
  }
}

TEST_F(ElementwiseGpuTest, AddNAnyNumberOfInputsBitForBit) {
  std::mt19937 rng(3);
  for (DType dt : AllTypes()) {
    for (int k : {2, 3, 8, 9, 17}) {  // one launch, and several chunks of eight
      for (const Shape& shape : {Shape{3, 4}, Shape{0}, Shape{}, Shape{100'003}}) {
        SCOPED_TRACE(std::string(DTypeName(dt)) + " k " + std::to_string(k) + " " +
                     shape.ToString());
        std::vector<HostTensor> ins;
        for (int i = 0; i < k; ++i) ins.push_back(Random(shape, dt, &rng, -10, 10));
        ExpectCudaMatchesCpu("add_n", ins, {}, stream_);
      }
    }
  }
}

struct BinaryCase {
  Shape x, y;
};

// Sizes past a block and a grid, then random broadcastable pairs: an output shape of
// rank 0 to 5 (extents 1 to 4, now and then 0), and per operand a suffix of it whose
// extents turn 1 at random.
std::vector<BinaryCase> BroadcastCases(std::mt19937* rng) {
  std::vector<BinaryCase> cases = {
      {Shape{1001, 1003}, Shape{1003}},
      {Shape{1001, 1}, Shape{1, 1003}},
      {Shape{7, 1, 5, 1, 3}, Shape{6, 1, 4, 1}},
  };
  std::uniform_int_distribution<int> rank(0, 5), extent(1, 4), coin(0, 2), rare(0, 19);
  const auto operand = [&](const std::vector<int64_t>& out) {
    std::uniform_int_distribution<size_t> keep(0, out.size());
    std::vector<int64_t> dims(out.end() - keep(*rng), out.end());
    for (int64_t& d : dims) d = coin(*rng) == 0 ? 1 : d;
    return Shape::Make(dims).value();
  };
  for (int i = 0; i < 80; ++i) {
    std::vector<int64_t> out(static_cast<size_t>(rank(*rng)));
    for (int64_t& d : out) d = rare(*rng) == 0 ? 0 : extent(*rng);
    cases.push_back({operand(out), operand(out)});
  }
  return cases;
}

TEST_F(ElementwiseGpuTest, BinaryOpsWithBroadcasting) {
  std::mt19937 rng(5);
  const std::vector<BinaryCase> cases = BroadcastCases(&rng);
  for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum"}) {
    for (DType dt : AllTypes()) {
      for (const BinaryCase& c : cases) {
        SCOPED_TRACE(std::string(op) + " " + DTypeName(dt) + " " + c.x.ToString() + " " +
                     c.y.ToString());
        const HostTensor x = Random(c.x, dt, &rng, -20, 20);
        // Divisors of both signs, none zero.
        HostTensor y = Random(c.y, dt, &rng, 1, 9);
        for (int64_t i = 0; i < y.size(); i += 2) y.Set(i, -y.Get(i));
        if (std::string(op) != "div") y = Random(c.y, dt, &rng, -20, 20);
        ExpectCudaMatchesCpu(op, {x, y}, {}, stream_);
      }
    }
  }
}

TEST_F(ElementwiseGpuTest, BinaryEdgeValues) {
  const HostTensor lowest = FromValues(Shape{1}, DType::kI32, {-2147483648.0});
  ExpectCudaMatchesCpu("div", {lowest, FromValues(Shape{1}, DType::kI32, {-1})}, {}, stream_);
  ExpectCudaMatchesCpu("add",
                       {FromValues(Shape{1}, DType::kI32, {2147483647.0}),
                        FromValues(Shape{1}, DType::kI32, {2147483647.0})},
                       {}, stream_);
  for (DType dt : FloatTypes()) {
    const HostTensor x = FromValues(Shape{4}, dt, {kNaN, 1, kNaN, 1});
    const HostTensor y = FromValues(Shape{4}, dt, {1, kNaN, kNaN, 0});
    for (const char* op : {"maximum", "minimum", "div", "add"}) {
      SCOPED_TRACE(std::string(op) + " " + DTypeName(dt));
      ExpectCudaMatchesCpu(op, {x, y}, {}, stream_);
    }
  }
}

TEST_F(ElementwiseGpuTest, PowWithBroadcastingNegativeBasesAndNaN) {
  std::mt19937 rng(13);
  const std::vector<BinaryCase> cases = BroadcastCases(&rng);
  for (DType dt : FloatTypes()) {
    for (const BinaryCase& c : cases) {
      SCOPED_TRACE(std::string("pow ") + DTypeName(dt) + " " + c.x.ToString() + " " +
                   c.y.ToString());
      const HostTensor x = Random(c.x, dt, &rng, -4, 4);
      HostTensor y = Random(c.y, dt, &rng, -3, 3);
      for (int64_t i = 0; i < y.size(); i += 2) y.Set(i, std::round(y.Get(i)));
      ExpectCudaMatchesCpu("pow", {x, y}, {}, stream_);
    }
    ExpectCudaMatchesCpu("pow",
                         {FromValues(Shape{6}, dt, {-2, -8, 0, kNaN, 1, 2}),
                          FromValues(Shape{6}, dt, {3, 0.5, -1, 0, kNaN, -kInf})},
                         {}, stream_);
  }
}

// The legacy default stream (null) works as well as a created one.
TEST_F(ElementwiseGpuTest, NullStreamIsTheLegacyDefaultStream) {
  std::mt19937 rng(9);
  const HostTensor x = Random(Shape{64, 65}, DType::kF32, &rng);
  ExpectCudaMatchesCpu("add", {x, Random(Shape{65}, DType::kF32, &rng)}, {}, nullptr);
  ExpectCudaMatchesCpu("exp", {x}, {}, nullptr);
}

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
