// Inputs, oracles and helpers shared by the communicator tests. Every expected
// value is computed from the same closed-form inputs (Input(rank, k)) with plain
// loops, independently of any communicator.
#ifndef TESSERA_TESTS_COMM_COMM_TEST_UTIL_H_
#define TESSERA_TESTS_COMM_COMM_TEST_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/comm/communicator.h"

namespace tessera::comm {

// Small integers, exact in every dtype, so sums do not depend on the order.
inline int64_t Input(int64_t rank, int64_t k) { return (rank * 31 + k * 7) % 13 - 6; }

inline constexpr ReduceOp kOps[] = {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin};

// op over ranks 0..size-1 of Input(r, k).
inline int64_t Reduced(ReduceOp op, int64_t size, int64_t k) {
  int64_t acc = Input(0, k);
  for (int64_t r = 1; r < size; ++r) {
    int64_t v = Input(r, k);
    acc = op == ReduceOp::kSum   ? acc + v
          : op == ReduceOp::kMax ? std::max(acc, v)
                                 : std::min(acc, v);
  }
  return acc;
}

// Sets an environment variable for one scope, then restores it (or unsets it).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// Uneven blocks, some empty: block r holds (r * 2 + 1) % 4 elements (1, 3, 1, 3 ...)
// except rank 1, which gets none.
inline std::vector<int64_t> UnevenCounts(int32_t size) {
  std::vector<int64_t> counts(size);
  for (int32_t r = 0; r < size; ++r) counts[r] = r == 1 ? 0 : (r * 2 + 1) % 4;
  return counts;
}

// Element k of the block rank p sends to rank q in an all-to-all.
inline int64_t Exchanged(int64_t p, int64_t q, int64_t k) { return p * 1000 + q * 10 + k; }

// Flat indices into its tensor of a block's elements, in row-major order of the box:
// the oracle of block collectives, by plain loops over the box's coordinates.
inline std::vector<int64_t> BoxIndices(const BlockView& block) {
  std::vector<int64_t> out;
  const int ndim = block.box.ndim();
  if (block.num_elements() == 0) return out;
  int64_t at[Shape::kMaxDims] = {};
  for (;;) {
    int64_t flat = 0;
    for (int d = 0; d < ndim; ++d) flat = flat * block.tensor.dim(d) + block.begin[d] + at[d];
    out.push_back(flat);
    int d = ndim - 1;
    while (d >= 0 && ++at[d] == block.box.dim(d)) at[d--] = 0;
    if (d < 0) return out;
  }
}

// A non-empty box of a random tensor of 1..6 dims of 1..max_dim each; a third of its
// dims span their whole extent, so that layouts fold and merge dims.
inline BlockView RandomBlock(std::mt19937& rng, int64_t max_dim) {
  auto uniform = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int ndim = static_cast<int>(uniform(1, 6));
  Shape tensor = Shape::Make(std::vector<int64_t>(ndim, 1)).value(), box = tensor;
  int64_t begin[Shape::kMaxDims] = {};
  for (int d = 0; d < ndim; ++d) {
    tensor.set_dim(d, uniform(1, max_dim));
    box.set_dim(d, uniform(0, 2) == 0 ? tensor.dim(d) : uniform(1, tensor.dim(d)));
    begin[d] = uniform(0, tensor.dim(d) - box.dim(d));
  }
  return BlockView::Box(tensor, begin, box);
}

}  // namespace tessera::comm

#endif  // TESSERA_TESTS_COMM_COMM_TEST_UTIL_H_
