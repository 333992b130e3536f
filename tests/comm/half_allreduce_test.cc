// f16 and bf16 through MpiCommunicator (linked into communicator_test_bin, so it runs
// on 1-4 ranks, with and without a timeout). MPI has no 2-byte float: the values move
// as uint16 and reduce with Tessera's user-defined ops, which combine in float and
// round each step to nearest even (core/comm/mpi_exact_ops.h). An integer MPI_SUM on
// the bits would give garbage, a float-accumulating one a different rounding; the
// expected values are folded here with a rounding per step, independently.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_communicator.h"
#include "core/common/half.h"
#include "tests/comm/comm_test_util.h"

namespace tessera::comm {
namespace {

MpiCommunicator& World() { return *MpiCommRegistry::Global().World().value(); }

template <typename H>
void CheckHalfReductions(float one_ulp_above_one) {
  MpiCommunicator& c = World();
  const DType dtype = DTypeOf<H>::value;
  constexpr int64_t kN = 64;
  // Sums of small integers are exact in both types whatever the order.
  std::vector<H> send(kN), recv(kN);
  for (int64_t k = 0; k < kN; ++k) send[k] = H(static_cast<float>(Input(c.rank(), k)));
  for (ReduceOp op : kOps) {
    ASSERT_TRUE(c.AllReduce(send.data(), recv.data(), kN, dtype, op).ok());
    for (int64_t k = 0; k < kN; ++k) {
      ASSERT_EQ(static_cast<float>(recv[k]), static_cast<float>(Reduced(op, c.size(), k)))
          << DTypeName(dtype) << " op " << static_cast<int>(op) << " k=" << k;
    }
  }
  // Every rank holds 1 + ulp: each step adds in float and rounds (the same on every
  // order, as all operands are equal).
  const H x(one_ulp_above_one);
  H want = x;
  for (int32_t r = 1; r < c.size(); ++r) want = H(static_cast<float>(want) + static_cast<float>(x));
  H sum;
  ASSERT_TRUE(c.AllReduce(&x, &sum, 1, dtype, ReduceOp::kSum).ok());
  EXPECT_EQ(sum.bits, want.bits) << DTypeName(dtype);
  // NaN on the last rank wins max; -0.0 is below +0.0 for min (rank 0 holds -0.0).
  const H mine(c.rank() == c.size() - 1 ? std::numeric_limits<float>::quiet_NaN() : 1.0f);
  H out;
  ASSERT_TRUE(c.AllReduce(&mine, &out, 1, dtype, ReduceOp::kMax).ok());
  EXPECT_TRUE(std::isnan(static_cast<float>(out)));
  const H zero(c.rank() == 0 ? -0.0f : 0.0f);
  ASSERT_TRUE(c.AllReduce(&zero, &out, 1, dtype, ReduceOp::kMin).ok());
  EXPECT_TRUE(std::signbit(static_cast<float>(out)));
}

TEST(HalfAllReduceTest, F16) { CheckHalfReductions<Float16>(1.0f + 0x1p-10f); }
TEST(HalfAllReduceTest, BF16) { CheckHalfReductions<BFloat16>(1.0f + 0x1p-7f); }

}  // namespace
}  // namespace tessera::comm
