// Multi-rank tests of Box1d, run under mpirun with 1..4 ranks: every pair among
// S(0), S(1), S(2), B, P, P(max), P(min) for 3-d tensors with even and uneven
// shapes (dims smaller than the rank count, empty tensors), in every dtype.
//
// Oracle (oracle.h): every rank builds the same logical tensor from a closed form,
// derives its input local from it (slices via PhysicalLayoutAt and a plain element
// loop; partial values that genuinely need the reduction), boxes, and checks its
// output local against the logical slice the output SBP names. For partial outputs the ranks'
// outputs are gathered and reduced by plain loops, then compared with the logical
// tensor. Values are small multiples of 1/4, so float sums are exact in any order.
#include "core/boxing/box_1d.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/boxing/boxing_workspace.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_communicator.h"
#include "core/comm/mpi_world.h"
#include "core/common/shape.h"
#include "core/placement/placement.h"
#include "core/sbp/physical_layout.h"
#include "core/sbp/sbp.h"
#include "tests/boxing/oracle.h"

namespace tessera::boxing {
namespace {

using oracle::Combine;
using oracle::Compare;
using oracle::LocalOf;
using oracle::Logical;

const Sbp kSbps[] = {Sbp::Split(0),     Sbp::Split(1),     Sbp::Split(2),    Sbp::Broadcast(),
                     Sbp::PartialSum(), Sbp::PartialMax(), Sbp::PartialMin()};

// Boxes `in` -> `out` on `placement` (which must hold this rank) and checks the
// result; "" on success, else what went wrong.
template <typename T>
std::string BoxAndCheck(const Shape& shape, const Placement& placement, Sbp in, Sbp out,
                        comm::Communicator& comm, BoxingWorkspace* workspace) {
  const DType dtype = DTypeOf<T>::value;
  const int64_t n = placement.parallel_num(), me = comm.rank();
  const std::vector<T> logical = Logical<T>(shape);
  std::vector<T> input = LocalOf(logical, shape, placement, NdSbp(in), me);
  const int64_t out_count =
      PhysicalLayoutAt(shape, placement, NdSbp(out), me).value().local_shape.num_elements();
  // One sentinel element past the end catches writes beyond the local tensor.
  const T kSentinel = T(12345);
  std::vector<T> output(out_count + 1, kSentinel);
  Status status = Box1d(input.empty() ? nullptr : input.data(), shape, dtype, placement, in, out,
                        output.data(), comm, workspace);
  if (!status.ok()) return "Box1d failed: " + status.ToString();
  if (output.back() != kSentinel) return "wrote past the end of the output local";
  output.pop_back();

  if (!out.is_partial()) return Compare(output, LocalOf(logical, shape, placement, NdSbp(out), me));
  // Gather every rank's partial output and reduce it here.
  std::vector<T> all(shape.num_elements() * n);
  std::vector<int64_t> counts(n, shape.num_elements());
  status = comm.AllGatherV(output.data(), out_count, all.data(), counts, {}, dtype);
  if (!status.ok()) return "gathering the outputs failed: " + status.ToString();
  std::vector<T> reduced(all.begin(), all.begin() + shape.num_elements());
  for (int64_t r = 1; r < n; ++r) {
    for (int64_t k = 0; k < shape.num_elements(); ++k) {
      reduced[k] = Combine(out.kind, reduced[k], all[r * shape.num_elements() + k]);
    }
  }
  return Compare(reduced, logical);
}

// Runs every pair on `placement` and `shapes`; reports each failing case.
template <typename T>
void CheckAllPairs(const Placement& placement, const std::vector<Shape>& shapes,
                   BoxingWorkspace* workspace) {
  comm::Communicator* comm = comm::MpiCommRegistry::Global().ForPlacement(placement).value();
  int case_index = 0;
  for (const Shape& shape : shapes) {
    for (Sbp in : kSbps) {
      for (Sbp out : kSbps) {
        // Alternate with and without a workspace to cover both staging paths.
        BoxingWorkspace* ws = (case_index++ % 2 == 0) ? workspace : nullptr;
        std::string error = BoxAndCheck<T>(shape, placement, in, out, *comm, ws);
        EXPECT_EQ(error, "") << in.ToString() << " -> " << out.ToString() << " of "
                             << DTypeName(DTypeOf<T>::value) << shape.ToString() << " on "
                             << placement.ToString();
      }
    }
  }
}

Placement WorldPlacement() {
  return Placement::Parse("cpu:0-" + std::to_string(comm::WorldSize().value() - 1)).value();
}

template <typename T>
class TypedBoxTest : public testing::Test {};
using BoxTypes = testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(TypedBoxTest, BoxTypes);

TYPED_TEST(TypedBoxTest, EveryPairEvenShape) {
  BoxingWorkspace workspace;
  // 12 splits evenly over 1, 2, 3 and 4 ranks.
  CheckAllPairs<TypeParam>(WorldPlacement(), {Shape{12, 12, 12}}, &workspace);
}

TYPED_TEST(TypedBoxTest, EveryPairUnevenShapes) {
  BoxingWorkspace workspace;
  CheckAllPairs<TypeParam>(WorldPlacement(),
                           {
                               Shape{5, 7, 2},   // uneven; 2 < 3 and 4 ranks
                               Shape{2, 3, 1},   // dims below the rank count: empty parts
                               Shape{13, 1, 6},  // a middle dim of 1
                               Shape{0, 3, 4},   // no elements at all
                           },
                           &workspace);
}

TYPED_TEST(TypedBoxTest, PartialsAboveTheAllReduceThreshold) {
  // Large enough for the MPI backend's reduce-scatter + all-gather all-reduce (and its
  // pairwise reduce-scatter) in every dtype; 66155 elements, which 2, 3 and 4 do not
  // divide. P(min) out takes the same all-reduce as P(max) out.
  using T = TypeParam;
  const Placement placement = WorldPlacement();
  comm::Communicator* comm = comm::MpiCommRegistry::Global().ForPlacement(placement).value();
  const Shape shape{131, 101, 5};
  ASSERT_GE(shape.num_elements() * int64_t(sizeof(T)),
            comm::MpiCommunicator::ReduceScatterAllGatherBytes(comm->size()));
  BoxingWorkspace workspace;
  for (Sbp in : {Sbp::PartialSum(), Sbp::PartialMax(), Sbp::PartialMin()}) {
    for (Sbp out : {Sbp::Broadcast(), Sbp::Split(1), Sbp::PartialMax()}) {
      EXPECT_EQ(BoxAndCheck<T>(shape, placement, in, out, *comm, &workspace), "")
          << in.ToString() << " -> " << out.ToString() << " of " << DTypeName(DTypeOf<T>::value);
    }
  }
}

TEST(BoxTest, EveryPairOnAReversedSubsetPlacement) {
  const int32_t n = comm::WorldSize().value(), me = comm::WorldRank().value();
  if (n < 3) GTEST_SKIP() << "needs 3 ranks";
  // Ranks 2 and 0, in that order; rank 1 (and 3) take no part.
  Placement placement = Placement::Parse("cpu:[2,0]").value();
  if (!placement.contains(me)) return;
  BoxingWorkspace workspace;
  CheckAllPairs<int64_t>(placement, {Shape{3, 5, 2}}, &workspace);
}

TEST(BoxTest, SplitsOfAnEightDimTensor) {
  Placement placement = WorldPlacement();
  comm::Communicator* comm = comm::MpiCommRegistry::Global().ForPlacement(placement).value();
  const Shape shape{2, 1, 3, 1, 5, 1, 2, 7};
  BoxingWorkspace workspace;
  const Sbp sbps[] = {Sbp::Split(0), Sbp::Split(4), Sbp::Split(7), Sbp::Broadcast(),
                      Sbp::PartialSum()};
  for (Sbp in : sbps) {
    for (Sbp out : sbps) {
      EXPECT_EQ(BoxAndCheck<float>(shape, placement, in, out, *comm, &workspace), "")
          << in.ToString() << " -> " << out.ToString();
    }
  }
}

TEST(BoxTest, LargerUnevenTensorReusesTheWorkspace) {
  Placement placement = WorldPlacement();
  comm::Communicator* comm = comm::MpiCommRegistry::Global().ForPlacement(placement).value();
  BoxingWorkspace workspace;
  for (const Shape& shape : {Shape{37, 23, 11}, Shape{9, 5, 3}, Shape{41, 29, 13}}) {
    for (Sbp in : kSbps) {
      for (Sbp out : kSbps) {
        EXPECT_EQ(BoxAndCheck<float>(shape, placement, in, out, *comm, &workspace), "")
            << in.ToString() << " -> " << out.ToString() << " of " << shape.ToString();
      }
    }
  }
}

TEST(BoxTest, ArgumentErrors) {
  Placement placement = WorldPlacement();
  const int32_t n = comm::WorldSize().value();
  comm::Communicator* comm = comm::MpiCommRegistry::Global().ForPlacement(placement).value();
  const Shape shape{4, 3, 2};
  std::vector<float> buffer(24);
  auto box = [&](const Placement& p, Sbp in, Sbp out, DType dtype = DType::kF32,
                 const void* in_local = nullptr, comm::Communicator* c = nullptr) {
    return Box1d(in_local != nullptr ? in_local : buffer.data(), shape, dtype, p, in, out,
                 buffer.data(), c != nullptr ? *c : *comm);
  };

  Status s = box(placement, Sbp::Split(3), Sbp::Broadcast());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "Box1d: input nd-sbp S(3) splits tensor axis 3 but the tensor of shape "
            "[4,3,2] has 3 axes");
  s = box(placement, Sbp::Broadcast(), Sbp{SbpKind::kSplit, -1});
  EXPECT_EQ(s.message(), "Box1d: output sbp splits axis -1, which is negative");
  s = box(placement, Sbp::Broadcast(), Sbp::PartialSum(), static_cast<DType>(42));
  EXPECT_EQ(s.message(),
            "Box1d: dtype value 42 is not supported (supported: f32, f64, f16, bf16, i32, i64, "
            "bool)");

  Placement two_d = Placement::Parse("cpu:[[0]]").value();
  s = box(two_d, Sbp::Broadcast(), Sbp::PartialSum());
  EXPECT_EQ(s.message(),
            "Box1d: placement cpu:[[0]] has 2 hierarchy axes; Box1d boxes along a 1-d placement");

  Placement bigger = Placement::Parse("cpu:0-" + std::to_string(n)).value();
  s = box(bigger, Sbp::Broadcast(), Sbp::PartialSum());
  EXPECT_EQ(s.message(), "Box1d: the communicator has " + std::to_string(n) +
                             " ranks but placement " + bigger.ToString() + " has " +
                             std::to_string(n + 1));

  s = Box1d(nullptr, shape, DType::kF32, placement, Sbp::Broadcast(), Sbp::Split(0), buffer.data(),
            *comm);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "Box1d: in_local is NULL but the local B tensor holds 24 elements");
}

}  // namespace
}  // namespace tessera::boxing
