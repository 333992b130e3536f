// The op-case table of the signature test: for every registered op, calls with
// uneven shapes (dims not divisible by 3 or 4, and dims smaller than the rank count),
// the attributes that change its signature list, and a few non-f32 dtypes. Input
// values are deterministic small integers or multiples of 1/4, so sums and products
// of a few of them are exact in any order and partial shares of them stay exact.
#ifndef TESSERA_TESTS_EAGER_OP_CASES_H_
#define TESSERA_TESTS_EAGER_OP_CASES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/op/attr.h"
#include "kernels/cpu/kernel_test_util.h"

namespace tessera {
namespace eager_test {

// How an input's logical values are made.
enum class Fill {
  kSigned,    // multiples of 1/4 in [-2.5, 2.5] (integers in [-5, 5] for int dtypes)
  kPositive,  // multiples of 1/4 in [0.25, 4] (sqrt's domain)
  kNonZero,   // multiples of 1/4 in +-[0.25, 2] (divisors)
  kIndex,     // integers in [0, range) (indices and labels)
  kStep,      // integers in [1, 4] (step numbers)
};

struct InputSpec {
  Shape shape;
  DType dtype = DType::kF32;
  Fill fill = Fill::kSigned;
  int64_t range = 0;  // kIndex only
};

struct OpCase {
  std::string op;
  std::string label;  // "[5,7]x[7,3] transpose_b", unique per op
  std::vector<InputSpec> inputs;
  op::AttrMap attrs;
  // Every output is an exact function of the inputs whatever the summation order
  // (compared bit for bit); otherwise relative 1e-5 for f32 and 1e-12 for f64.
  bool exact = true;
};

// The whole table, in op-name order.
const std::vector<OpCase>& OpCases();

// Logical value of input `index` of a case: deterministic, the same on every rank.
kernels::cpu::HostTensor MakeInput(const InputSpec& spec, int index);

}  // namespace eager_test
}  // namespace tessera

#endif  // TESSERA_TESTS_EAGER_OP_CASES_H_
