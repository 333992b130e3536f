// Shared by the checkpoint tests: closed-form logical values (so expectations never come
// from the code under test), making tensors from them, reading them back, and a shared
// scratch directory.
#ifndef TESSERA_TESTS_CHECKPOINT_CHECKPOINT_TEST_UTIL_H_
#define TESSERA_TESTS_CHECKPOINT_CHECKPOINT_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/comm/call_check.h"
#include "core/comm/mpi_world.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"

namespace tessera::checkpoint_test {

// Element i of the tensor `seed`: distinct per element and per tensor, exact in every
// dtype (multiples of 0.25 below 2^20, integers for integer dtypes).
inline double ValueAt(int64_t i, int seed, DType dtype) {
  const double v = static_cast<double>((i * 7 + seed * 13) % 1009) - 300;
  return (dtype == DType::kF32 || dtype == DType::kF64) ? v * 0.25 : v;
}

// The logical tensor's bytes, row-major.
inline std::vector<char> LogicalBytes(const Shape& shape, DType dtype, int seed) {
  const int64_t n = shape.num_elements();
  std::vector<char> bytes(static_cast<size_t>(n) * DTypeSize(dtype));
  for (int64_t i = 0; i < n; ++i) {
    const double v = ValueAt(i, seed, dtype);
    switch (dtype) {
      case DType::kF32: {
        const float f = static_cast<float>(v);
        std::memcpy(bytes.data() + i * 4, &f, 4);
        break;
      }
      case DType::kF64: std::memcpy(bytes.data() + i * 8, &v, 8); break;
      case DType::kI32: {
        const int32_t x = static_cast<int32_t>(v);
        std::memcpy(bytes.data() + i * 4, &x, 4);
        break;
      }
      default: {
        const int64_t x = static_cast<int64_t>(v);
        std::memcpy(bytes.data() + i * 8, &x, 8);
        break;
      }
    }
  }
  return bytes;
}

inline Placement P(const std::string& text) { return Placement::Parse(text).value(); }
inline NdSbp N(const std::string& text) { return NdSbp::Parse(text).value(); }

// The tensor `seed` of (shape, dtype) held as nd_sbp on placement (a P tensor as
// creation.h makes one: it reduces to the logical value).
inline tensor::Tensor MakeTensor(const Shape& shape, DType dtype, int seed,
                                 const std::string& placement, const std::string& nd_sbp) {
  const std::vector<char> bytes = LogicalBytes(shape, dtype, seed);
  Result<tensor::Tensor> t =
      tensor::FromLogical(bytes.data(), shape, dtype, P(placement), N(nd_sbp));
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : nullptr;
}

// Expects `t` to hold the logical tensor `seed` (collective: ToHost on every rank).
inline void ExpectValue(const tensor::Tensor& t, const Shape& shape, DType dtype, int seed,
                        const std::string& what) {
  ASSERT_NE(t, nullptr) << what;
  EXPECT_EQ(t->shape(), shape) << what;
  EXPECT_EQ(t->dtype(), dtype) << what;
  std::vector<char> host(static_cast<size_t>(shape.num_elements()) * DTypeSize(dtype));
  ASSERT_TRUE(tensor::ToHost(t, host.data()).ok()) << what;
  EXPECT_TRUE(host == LogicalBytes(shape, dtype, seed)) << what;
}

inline int32_t Rank() { return comm::WorldRank().value(); }
inline int32_t WorldSize() { return comm::WorldSize().value(); }
inline void Barrier() { ASSERT_TRUE((*comm::WorldGroup())->Barrier().ok()); }

// "cpu:[0,1,...,n-1]".
inline std::string FirstRanks(int n) {
  std::string text = "cpu:[";
  for (int r = 0; r < n; ++r) text += (r > 0 ? "," : "") + std::to_string(r);
  return text + "]";
}

struct Layout {
  std::string placement;
  std::string nd_sbp;
  std::string Text() const { return nd_sbp + " on " + placement; }
};

// Layouts on the first w ranks of the world: S on each of two axes, B, P, one rank, and
// 2-d hierarchies [1, w] and [w, 1] with mixed SBPs.
inline std::vector<Layout> Layouts(int w) {
  const std::string all = FirstRanks(w);
  std::vector<Layout> layouts = {{all, "S(0)"},
                                 {all, "S(1)"},
                                 {all, "B"},
                                 {all, "P"},
                                 {"cpu:[" + std::to_string(w - 1) + "]", "B"}};
  std::string row = "cpu:[[";
  std::string column = "cpu:[";
  for (int r = 0; r < w; ++r) {
    row += (r > 0 ? "," : "") + std::to_string(r);
    column += std::string(r > 0 ? "," : "") + "[" + std::to_string(r) + "]";
  }
  layouts.push_back({row + "]]", "(B, S(1))"});
  layouts.push_back({column + "]", "(S(0), P)"});
  layouts.push_back({column + "]", "(S(1), S(0))"});
  return layouts;
}

// A directory every rank sees at the same path: TEST_TMPDIR (Bazel's, inherited by every
// rank from mpirun) plus `name`; rank 0 empties and creates it.
inline std::string SharedDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(base != nullptr ? base : "/tmp") + "/" + name;
  if (Rank() == 0) {
    std::string cmd = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
  Barrier();
  return dir;
}

}  // namespace tessera::checkpoint_test

#endif  // TESSERA_TESTS_CHECKPOINT_CHECKPOINT_TEST_UTIL_H_
