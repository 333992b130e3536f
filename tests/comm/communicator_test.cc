// Multi-rank tests of the Communicator interface and its MPI backend, run under
// mpirun with 1..4 ranks. Every expected value is computed on each rank from the
// same closed-form inputs (Input(rank, k)), independently of the communicator.
// The *_timeout_np* targets run this same program with TESSERA_COLLECTIVE_TIMEOUT_S
// set, so every call goes through the nonblocking-and-poll path.
#include "core/comm/communicator.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_communicator.h"
#include "core/comm/mpi_world.h"
#include "core/placement/placement.h"
#include "tests/comm/comm_test_util.h"

namespace tessera::comm {
namespace {

Communicator& World() { return *MpiCommRegistry::Global().World().value(); }

template <typename T>
class TypedCommTest : public testing::Test {};
using CommTypes = testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(TypedCommTest, CommTypes);

TYPED_TEST(TypedCommTest, AllReduceEveryOpAndInPlace) {
  using T = TypeParam;
  Communicator& c = World();
  const DType dtype = DTypeOf<T>::value;
  for (int64_t count : {0, 1, 7, 1000}) {
    for (ReduceOp op : kOps) {
      std::vector<T> send(count), recv(count, T(99));
      for (int64_t k = 0; k < count; ++k) send[k] = T(Input(c.rank(), k));
      ASSERT_TRUE(c.AllReduce(send.data(), recv.data(), count, dtype, op).ok());
      std::vector<T> in_place = send;
      ASSERT_TRUE(c.AllReduce(in_place.data(), in_place.data(), count, dtype, op).ok());
      for (int64_t k = 0; k < count; ++k) {
        EXPECT_EQ(recv[k], T(Reduced(op, c.size(), k))) << ReduceOpName(op) << " k=" << k;
        EXPECT_EQ(in_place[k], T(Reduced(op, c.size(), k))) << "in place " << ReduceOpName(op);
      }
    }
  }
}

TYPED_TEST(TypedCommTest, ReduceToEveryRoot) {
  using T = TypeParam;
  Communicator& c = World();
  const DType dtype = DTypeOf<T>::value;
  const int64_t count = 11;
  for (int32_t root = 0; root < c.size(); ++root) {
    for (ReduceOp op : kOps) {
      std::vector<T> send(count), recv(count, T(99));
      for (int64_t k = 0; k < count; ++k) send[k] = T(Input(c.rank(), k));
      ASSERT_TRUE(c.Reduce(send.data(), recv.data(), count, dtype, op, root).ok());
      for (int64_t k = 0; k < count; ++k) {
        EXPECT_EQ(recv[k], c.rank() == root ? T(Reduced(op, c.size(), k)) : T(99))
            << "root " << root << " " << ReduceOpName(op);
      }
    }
  }
}

TYPED_TEST(TypedCommTest, ReduceScatterVUneven) {
  using T = TypeParam;
  Communicator& c = World();
  const DType dtype = DTypeOf<T>::value;
  const std::vector<int64_t> counts = UnevenCounts(c.size());
  const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t{0});
  int64_t begin = 0;
  for (int32_t r = 0; r < c.rank(); ++r) begin += counts[r];
  for (ReduceOp op : kOps) {
    std::vector<T> send(total), recv(counts[c.rank()] + 1, T(99));
    for (int64_t k = 0; k < total; ++k) send[k] = T(Input(c.rank(), k));
    ASSERT_TRUE(c.ReduceScatterV(send.data(), recv.data(), counts, dtype, op).ok());
    for (int64_t k = 0; k < counts[c.rank()]; ++k) {
      EXPECT_EQ(recv[k], T(Reduced(op, c.size(), begin + k))) << ReduceOpName(op);
    }
    EXPECT_EQ(recv[counts[c.rank()]], T(99)) << "wrote past its block";
  }
}

TYPED_TEST(TypedCommTest, AllGatherVPackedStridedAndInPlace) {
  using T = TypeParam;
  Communicator& c = World();
  const DType dtype = DTypeOf<T>::value;
  const std::vector<int64_t> counts = UnevenCounts(c.size());
  const int64_t mine = counts[c.rank()];
  std::vector<T> send(mine);
  for (int64_t k = 0; k < mine; ++k) send[k] = T(Input(c.rank(), k));

  // Packed (empty displs).
  const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t{0});
  std::vector<T> packed(total, T(99));
  ASSERT_TRUE(c.AllGatherV(send.data(), mine, packed.data(), counts, {}, dtype).ok());
  int64_t at = 0;
  for (int32_t r = 0; r < c.size(); ++r) {
    for (int64_t k = 0; k < counts[r]; ++k) EXPECT_EQ(packed[at++], T(Input(r, k))) << r;
  }

  // Explicit displacements: blocks in reverse rank order with a 2-element gap each.
  std::vector<int64_t> displs(c.size());
  int64_t offset = 0;
  for (int32_t r = c.size() - 1; r >= 0; --r) {
    displs[r] = offset;
    offset += counts[r] + 2;
  }
  std::vector<T> strided(offset, T(99));
  ASSERT_TRUE(c.AllGatherV(send.data(), mine, strided.data(), counts, displs, dtype).ok());
  for (int32_t r = 0; r < c.size(); ++r) {
    for (int64_t k = 0; k < counts[r]; ++k) EXPECT_EQ(strided[displs[r] + k], T(Input(r, k)));
    EXPECT_EQ(strided[displs[r] + counts[r]], T(99)) << "gap after rank " << r << " overwritten";
  }

  // In place: this rank's block already sits at its displacement.
  std::vector<T> in_place(offset, T(99));
  std::copy(send.begin(), send.end(), in_place.begin() + displs[c.rank()]);
  ASSERT_TRUE(
      c.AllGatherV(in_place.data() + displs[c.rank()], mine, in_place.data(), counts, displs, dtype)
          .ok());
  EXPECT_EQ(in_place, strided);
}

TYPED_TEST(TypedCommTest, AllToAllVUnevenWithDisplacements) {
  using T = TypeParam;
  Communicator& c = World();
  const DType dtype = DTypeOf<T>::value;
  const int32_t n = c.size(), me = c.rank();
  auto count = [](int64_t p, int64_t q) { return (p + 2 * q) % 3; };  // 0, 1 or 2
  std::vector<int64_t> send_counts(n), recv_counts(n), send_displs(n), recv_displs(n);
  int64_t send_total = 0, recv_total = 0;
  for (int32_t q = 0; q < n; ++q) {
    send_counts[q] = count(me, q);
    send_displs[q] = send_total;
    send_total += send_counts[q];
    recv_counts[q] = count(q, me);
    recv_displs[q] = recv_total + 1;  // a one-element gap before each block
    recv_total += recv_counts[q] + 1;
  }
  std::vector<T> send(send_total);
  for (int32_t q = 0; q < n; ++q) {
    for (int64_t k = 0; k < send_counts[q]; ++k) send[send_displs[q] + k] = T(Exchanged(me, q, k));
  }
  std::vector<T> recv(recv_total, T(-1));
  ASSERT_TRUE(c.AllToAllV(send.data(), send_counts, send_displs, recv.data(), recv_counts,
                          recv_displs, dtype)
                  .ok());
  for (int32_t p = 0; p < n; ++p) {
    EXPECT_EQ(recv[recv_displs[p] - 1], T(-1)) << "gap before the block from " << p;
    for (int64_t k = 0; k < recv_counts[p]; ++k) {
      EXPECT_EQ(recv[recv_displs[p] + k], T(Exchanged(p, me, k))) << "from " << p;
    }
  }

  // Packed form (empty displacement vectors).
  std::vector<T> packed(recv_total - n, T(-1));
  ASSERT_TRUE(
      c.AllToAllV(send.data(), send_counts, {}, packed.data(), recv_counts, {}, dtype).ok());
  int64_t at = 0;
  for (int32_t p = 0; p < n; ++p) {
    for (int64_t k = 0; k < recv_counts[p]; ++k) EXPECT_EQ(packed[at++], T(Exchanged(p, me, k)));
  }
}

// Element (i, j, k) of the tensor rank p sends its blocks from.
int64_t Cell(int64_t p, int64_t i, int64_t j, int64_t k) { return p * 1000 + i * 100 + j * 10 + k; }

TYPED_TEST(TypedCommTest, AllToAllBlocksStridedBoxesAndRuns) {
  using T = TypeParam;
  Communicator& c = World();
  const DType dtype = DTypeOf<T>::value;
  const int32_t n = c.size(), me = c.rank();
  // Rank q receives a 4 x width(q) x 3 box from every rank; rank 1 receives nothing.
  auto width = [](int64_t q) -> int64_t { return q == 1 ? 0 : 2 + q % 2; };
  const Shape send_shape{4, 6, 5};
  std::vector<T> send(send_shape.num_elements());
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 6; ++j) {
      for (int64_t k = 0; k < 5; ++k) send[(i * 6 + j) * 5 + k] = T(Cell(me, i, j, k));
    }
  }
  // To rank q: every row, columns [q % 3, q % 3 + width(q)), depth [1, 4): strided
  // along two dims.
  std::vector<BlockView> send_blocks(n), recv_blocks(n);
  for (int32_t q = 0; q < n; ++q) {
    const int64_t begin[] = {0, q % 3, 1};
    send_blocks[q] = BlockView::Box(send_shape, begin, Shape{4, width(q), 3});
  }
  // Received strided: the block from p at columns [p * w, (p + 1) * w), depth [2, 5)
  // of a 4 x (n * w + 1) x 5 tensor, whose other elements must stay -1.
  const int64_t w = width(me);
  const Shape recv_shape{4, n * w + 1, 5};
  for (int32_t p = 0; p < n; ++p) {
    const int64_t begin[] = {0, p * w, 2};
    recv_blocks[p] = BlockView::Box(recv_shape, begin, Shape{4, w, 3});
  }
  std::vector<T> recv(recv_shape.num_elements(), T(-1));
  Status s = c.AllToAllBlocks(send.data(), send_blocks, recv.data(), recv_blocks, dtype);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t col = 0; col < n * w + 1; ++col) {
      for (int64_t k = 0; k < 5; ++k) {
        const bool inside = col < n * w && k >= 2;
        const int64_t expected = inside ? Cell(col / w, i, me % 3 + col % w, k - 1) : -1;
        EXPECT_EQ(recv[(i * (n * w + 1) + col) * 5 + k], T(expected))
            << "at (" << i << ", " << col << ", " << k << ")";
      }
    }
  }

  // The same blocks received as contiguous runs, in reverse rank order: elements
  // pair up in row-major order of the boxes.
  const int64_t count = 4 * w * 3;
  for (int32_t p = 0; p < n; ++p) recv_blocks[p] = BlockView::Run((n - 1 - p) * count, count);
  std::vector<T> flat(n * count, T(-1));
  s = c.AllToAllBlocks(send.data(), send_blocks, flat.data(), recv_blocks, dtype);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int32_t p = 0; p < n; ++p) {
    for (int64_t e = 0; e < count; ++e) {
      const int64_t i = e / (w * 3), j = e / 3 % w, k = e % 3;
      EXPECT_EQ(flat[(n - 1 - p) * count + e], T(Cell(p, i, me % 3 + j, 1 + k))) << "from " << p;
    }
  }

  // Runs only (MPI_Alltoallv underneath): two elements to each rank, one gap each.
  std::vector<T> small_send(2 * n), small_recv(3 * n, T(-1));
  for (int32_t q = 0; q < n; ++q) {
    small_send[2 * q] = T(Exchanged(me, q, 0));
    small_send[2 * q + 1] = T(Exchanged(me, q, 1));
    send_blocks[q] = BlockView::Run(2 * q, 2);
    recv_blocks[q] = BlockView::Run(3 * q + 1, 2);
  }
  s = c.AllToAllBlocks(small_send.data(), send_blocks, small_recv.data(), recv_blocks, dtype);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int32_t p = 0; p < n; ++p) {
    EXPECT_EQ(small_recv[3 * p], T(-1));
    EXPECT_EQ(small_recv[3 * p + 1], T(Exchanged(p, me, 0)));
    EXPECT_EQ(small_recv[3 * p + 2], T(Exchanged(p, me, 1)));
  }
}

// Anonymous memory of which only the touched pages are ever backed; nullptr when
// the system refuses the mapping.
class SparseBuffer {
 public:
  explicit SparseBuffer(size_t bytes) : bytes_(bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    data_ = p == MAP_FAILED ? nullptr : static_cast<float*>(p);
  }
  ~SparseBuffer() {
    if (data_ != nullptr) munmap(data_, bytes_);
  }
  float* data() const { return data_; }

 private:
  size_t bytes_;
  float* data_;
};

TEST(CommTest, AllToAllBlocksBeyondIntDisplacements) {
  // Blocks more than 2 GiB into their buffers: MPI_Alltoallw's displacements are int
  // bytes, so the offset must travel inside the datatype.
  Communicator& c = World();
  const int32_t n = c.size(), me = c.rank();
  const int64_t plane = 300'000'000;  // f32 elements: 1.2 GB
  const Shape shape{2, 2, plane};
  const int64_t recv_offset = 600'000'000;  // 2.4 GB
  SparseBuffer send(static_cast<size_t>(shape.num_elements()) * sizeof(float));
  SparseBuffer recv(static_cast<size_t>(recv_offset + 8 * n) * sizeof(float));
  int ok = send.data() != nullptr && recv.data() != nullptr ? 1 : 0, all_ok = 0;
  ASSERT_TRUE(c.AllReduce(&ok, &all_ok, 1, DType::kI32, ReduceOp::kMin).ok());
  if (all_ok == 0) GTEST_SKIP() << "cannot map the sparse buffers";
  auto at = [&](int64_t i, int64_t j, int64_t k) { return (i * 2 + j) * plane + k; };
  // To rank q: (1, 0..1, 8q .. 8q+3), two runs a plane apart, 2.4 GB in. From rank
  // p: a run of 8 at recv_offset + 8p.
  std::vector<BlockView> send_blocks(n), recv_blocks(n);
  for (int32_t q = 0; q < n; ++q) {
    for (int64_t j = 0; j < 2; ++j) {
      for (int64_t k = 0; k < 4; ++k) send.data()[at(1, j, 8 * q + k)] = float(Cell(me, q, j, k));
    }
    const int64_t begin[] = {1, 0, 8 * q};
    send_blocks[q] = BlockView::Box(shape, begin, Shape{1, 2, 4});
    recv_blocks[q] = BlockView::Run(recv_offset + 8 * q, 8);
  }
  Status s = c.AllToAllBlocks(send.data(), send_blocks, recv.data(), recv_blocks, DType::kF32);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int32_t p = 0; p < n; ++p) {
    for (int64_t e = 0; e < 8; ++e) {
      EXPECT_EQ(recv.data()[recv_offset + 8 * p + e], float(Cell(p, me, e / 4, e % 4)))
          << "from " << p;
    }
  }
}

TYPED_TEST(TypedCommTest, ReduceScatterVLargeUnevenBlocks) {
  // Blocks large enough for the pairwise algorithm (MpiCommunicator), one empty.
  using T = TypeParam;
  Communicator& c = World();
  const DType dtype = DTypeOf<T>::value;
  std::vector<int64_t> counts(c.size());
  for (int32_t r = 0; r < c.size(); ++r) counts[r] = r == 1 ? 0 : 20000 + 1000 * r;
  const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t{0});
  int64_t begin = 0;
  for (int32_t r = 0; r < c.rank(); ++r) begin += counts[r];
  std::vector<T> send(total);
  for (int64_t k = 0; k < total; ++k) send[k] = T(Input(c.rank(), k));
  for (ReduceOp op : kOps) {
    std::vector<T> recv(counts[c.rank()] + 1, T(99));
    ASSERT_TRUE(c.ReduceScatterV(send.data(), recv.data(), counts, dtype, op).ok());
    for (int64_t k = 0; k < counts[c.rank()]; ++k) {
      ASSERT_EQ(recv[k], T(Reduced(op, c.size(), begin + k))) << ReduceOpName(op) << " k=" << k;
    }
    EXPECT_EQ(recv[counts[c.rank()]], T(99)) << "wrote past its block";
  }
}

TEST(CommTest, PairwiseReduceScatterLeavesUserMessagesAlone) {
  // A user message already in flight with the same peers and tag must not be taken
  // by the reduce-scatter's internal exchange.
  Communicator& c = World();
  if (c.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const int32_t next = (c.rank() + 1) % c.size(), prev = (c.rank() + c.size() - 1) % c.size();
  int32_t note = 1000 + c.rank(), got = -1;
  if (c.rank() == 0) {
    ASSERT_TRUE(c.Send(&note, 1, DType::kI32, next, 0).ok());  // eager
  }
  const std::vector<int64_t> counts(c.size(), 20000);
  std::vector<int32_t> send(20000 * c.size(), 1), recv(20000, 0);
  ASSERT_TRUE(c.ReduceScatterV(send.data(), recv.data(), counts, DType::kI32, ReduceOp::kSum).ok());
  EXPECT_EQ(recv[0], c.size());
  EXPECT_EQ(recv[19999], c.size());
  if (c.rank() == 1) {
    ASSERT_TRUE(c.Recv(&got, 1, DType::kI32, prev, 0).ok());
    EXPECT_EQ(got, 1000);
  }
}

TYPED_TEST(TypedCommTest, BroadcastFromEveryRoot) {
  using T = TypeParam;
  Communicator& c = World();
  for (int32_t root = 0; root < c.size(); ++root) {
    std::vector<T> buffer(9);
    for (int64_t k = 0; k < 9; ++k) buffer[k] = T(Input(c.rank(), k));
    ASSERT_TRUE(c.Broadcast(buffer.data(), 9, DTypeOf<T>::value, root).ok());
    for (int64_t k = 0; k < 9; ++k) EXPECT_EQ(buffer[k], T(Input(root, k))) << "root " << root;
  }
}

TYPED_TEST(TypedCommTest, SendRecvRing) {
  using T = TypeParam;
  Communicator& c = World();
  if (c.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const DType dtype = DTypeOf<T>::value;
  const int32_t next = (c.rank() + 1) % c.size(), prev = (c.rank() + c.size() - 1) % c.size();
  std::vector<T> out(5), in(5, T(0));
  for (int64_t k = 0; k < 5; ++k) out[k] = T(Input(c.rank(), k));
  // Even ranks send first, odd ranks receive first, so no cycle of blocked sends.
  if (c.rank() % 2 == 0) {
    ASSERT_TRUE(c.Send(out.data(), 5, dtype, next, 3).ok());
    ASSERT_TRUE(c.Recv(in.data(), 5, dtype, prev, 3).ok());
  } else {
    ASSERT_TRUE(c.Recv(in.data(), 5, dtype, prev, 3).ok());
    ASSERT_TRUE(c.Send(out.data(), 5, dtype, next, 3).ok());
  }
  for (int64_t k = 0; k < 5; ++k) EXPECT_EQ(in[k], T(Input(prev, k)));
}

TEST(CommTest, RankAndSizeMatchTheWorld) {
  Communicator& c = World();
  EXPECT_EQ(c.rank(), WorldRank().value());
  EXPECT_EQ(c.size(), WorldSize().value());
  EXPECT_TRUE(c.Barrier().ok());
}

TEST(CommTest, TimeoutComesFromTheEnvironment) {
  const char* env = std::getenv(kCollectiveTimeoutEnv);
  const double expected = env == nullptr ? 0.0 : std::strtod(env, nullptr);
  EXPECT_EQ(World().timeout_seconds(), expected);
  EXPECT_FALSE(World().poisoned());
}

TEST(CommTest, RecvOfAWrongSizedMessageFails) {
  Communicator& c = World();
  if (c.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  std::vector<int32_t> buffer(8, 1);
  if (c.rank() == 0) {
    ASSERT_TRUE(c.Send(buffer.data(), 5, DType::kI32, 1, 7).ok());
    ASSERT_TRUE(c.Send(buffer.data(), 2, DType::kI32, 1, 8).ok());
  } else if (c.rank() == 1) {
    Status longer = c.Recv(buffer.data(), 3, DType::kI32, 0, 7);  // message too long
    EXPECT_FALSE(longer.ok());
    // A timeout makes the receive nonblocking, and MPI_Irecv's request reports it.
    const std::string call = c.timeout_seconds() > 0 ? "MPI_Irecv" : "MPI_Recv";
    EXPECT_EQ(longer.message().rfind(call + " failed: ", 0), 0u) << longer.message();
    Status shorter = c.Recv(buffer.data(), 4, DType::kI32, 0, 8);
    EXPECT_EQ(shorter.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(shorter.message(),
              "Recv: expected 4 elements from rank 0 (tag 8) but the message holds 2");
  }
  EXPECT_TRUE(c.Barrier().ok());
}

// Argument errors are found locally, before any rank enters a collective, so every
// rank sees the same error and nothing hangs.
void ExpectError(const Status& status, StatusCode code, const std::string& message) {
  EXPECT_EQ(status.code(), code) << status.ToString();
  EXPECT_EQ(status.message(), message);
}

TEST(CommTest, ArgumentErrorsNameTheArgument) {
  Communicator& c = World();
  const int32_t n = c.size();
  const std::string ns = std::to_string(n);
  float x[4] = {};
  ExpectError(c.AllReduce(nullptr, x, 3, DType::kF32, ReduceOp::kSum), StatusCode::kInvalidArgument,
              "AllReduce: send is NULL but holds 3 elements");
  ExpectError(c.AllReduce(x, x, -2, DType::kF32, ReduceOp::kSum), StatusCode::kInvalidArgument,
              "AllReduce: count is -2; it must be >= 0");
  ExpectError(c.AllReduce(x, x, int64_t{INT_MAX} + 1, DType::kF32, ReduceOp::kSum),
              StatusCode::kOutOfRange,
              "AllReduce: count is 2147483648, more than this backend's limit of 2147483647 "
              "elements");
  ExpectError(c.AllReduce(x, x, 1, static_cast<DType>(42), ReduceOp::kMax),
              StatusCode::kInvalidArgument, "AllReduce: dtype value 42 is not a dtype");
  // bool moves (as bytes) but has no reduction.
  ExpectError(c.AllReduce(x, x, 1, DType::kBool, ReduceOp::kMax), StatusCode::kInvalidArgument,
              "AllReduce: dtype bool has no sum, max or min reduction (supported: f32, f64, f16, "
              "bf16, i32, i64)");
  ExpectError(c.Broadcast(x, 1, static_cast<DType>(-1), 0), StatusCode::kInvalidArgument,
              "Broadcast: dtype value -1 is not a dtype");
  ExpectError(c.AllReduce(x, x, 1, DType::kF32, static_cast<ReduceOp>(9)),
              StatusCode::kInvalidArgument, "AllReduce: reduce op value 9 is not sum, max or min");
  ExpectError(c.Broadcast(x, 1, DType::kF32, n), StatusCode::kOutOfRange,
              "Broadcast: root " + ns + " is outside the communicator of " + ns + " ranks");
  ExpectError(c.Reduce(x, x, 1, DType::kF32, ReduceOp::kSum, -1), StatusCode::kOutOfRange,
              "Reduce: root -1 is outside the communicator of " + ns + " ranks");
  ExpectError(c.ReduceScatterV(x, x, std::vector<int64_t>(n + 1, 0), DType::kF32, ReduceOp::kSum),
              StatusCode::kInvalidArgument,
              "ReduceScatterV: recv_counts has " + std::to_string(n + 1) +
                  " entries but the communicator has " + ns + " ranks");
  std::vector<int64_t> negative(n, 0);
  negative[n - 1] = -1;
  ExpectError(c.ReduceScatterV(x, x, negative, DType::kF32, ReduceOp::kSum),
              StatusCode::kInvalidArgument,
              "ReduceScatterV: recv_counts[" + std::to_string(n - 1) + "] is -1; it must be >= 0");
  std::vector<int64_t> ones(n, 1);
  ExpectError(c.AllGatherV(x, 2, x, ones, {}, DType::kF32), StatusCode::kInvalidArgument,
              "AllGatherV: send_count is 2 but recv_counts[" + std::to_string(c.rank()) +
                  "] (this rank) is 1");
  ExpectError(c.AllGatherV(x, 1, nullptr, ones, {}, DType::kF32), StatusCode::kInvalidArgument,
              "AllGatherV: recv is NULL but holds " + ns + " elements");
  ExpectError(c.AllGatherV(x, 1, x, ones, std::vector<int64_t>(n + 2, 0), DType::kF32),
              StatusCode::kInvalidArgument,
              "AllGatherV: recv_displs has " + std::to_string(n + 2) +
                  " entries but the communicator has " + ns + " ranks");
  std::vector<int64_t> recv_counts(n, 1);
  recv_counts[c.rank()] = 2;
  ExpectError(
      c.AllToAllV(x, ones, {}, x, recv_counts, {}, DType::kF32), StatusCode::kInvalidArgument,
      "AllToAllV: this rank (" + std::to_string(c.rank()) +
          ") sends 1 elements to itself but recv_counts[" + std::to_string(c.rank()) + "] is 2");
  ExpectError(c.Send(x, 1, DType::kF32, c.rank(), 0), StatusCode::kInvalidArgument,
              "Send: peer " + std::to_string(c.rank()) +
                  " is this rank; a blocking send to itself can deadlock");
  ExpectError(
      c.Recv(x, 1, DType::kF32, n + 3, 0), StatusCode::kOutOfRange,
      "Recv: peer " + std::to_string(n + 3) + " is outside the communicator of " + ns + " ranks");
  if (n > 1) {
    ExpectError(c.Send(x, 1, DType::kF32, (c.rank() + 1) % n, -4), StatusCode::kInvalidArgument,
                "Send: tag is -4; it must be >= 0");
  }
  // NULL is fine where the count is 0 (an empty slice of an uneven split).
  EXPECT_TRUE(c.AllReduce(nullptr, nullptr, 0, DType::kF32, ReduceOp::kSum).ok());
}

TEST(CommTest, AllToAllBlocksArgumentErrors) {
  Communicator& c = World();
  const int32_t n = c.size(), me = c.rank();
  const std::string ns = std::to_string(n), mes = std::to_string(me);
  float x[16] = {};
  std::vector<BlockView> ones(n, BlockView::Run(0, 1));
  ExpectError(c.AllToAllBlocks(x, std::vector<BlockView>(n + 1), x, ones, DType::kF32),
              StatusCode::kInvalidArgument,
              "AllToAllBlocks: send_blocks has " + std::to_string(n + 1) +
                  " entries but the communicator has " + ns + " ranks");
  std::vector<BlockView> bad = ones;
  bad[0].box = Shape{1, 1};
  ExpectError(c.AllToAllBlocks(x, ones, x, bad, DType::kF32), StatusCode::kInvalidArgument,
              "AllToAllBlocks: recv_blocks[0] has a 2-d box [1,1] in a 1-d tensor [1]");
  const int64_t begin[] = {2};
  bad[0] = BlockView::Box(Shape{4}, begin, Shape{3});
  ExpectError(c.AllToAllBlocks(x, bad, x, ones, DType::kF32), StatusCode::kOutOfRange,
              "AllToAllBlocks: send_blocks[0]: box [3] at begin[0] = 2 does not fit dim 0 of the "
              "tensor [4]");
  bad[0] = BlockView::Run(-1, 2);
  ExpectError(c.AllToAllBlocks(x, bad, x, ones, DType::kF32), StatusCode::kOutOfRange,
              "AllToAllBlocks: send_blocks[0]: box [2] at begin[0] = -1 does not fit dim 0 of the "
              "tensor [1]");
  bad = ones;
  bad[me] = BlockView::Run(0, 2);
  ExpectError(c.AllToAllBlocks(x, ones, x, bad, DType::kF32), StatusCode::kInvalidArgument,
              "AllToAllBlocks: this rank (" + mes +
                  ") sends 1 elements to itself but recv_blocks[" + mes + "] holds 2");
  ExpectError(c.AllToAllBlocks(nullptr, ones, x, ones, DType::kF32), StatusCode::kInvalidArgument,
              "AllToAllBlocks: send is NULL but holds " + ns + " elements");
  ExpectError(c.AllToAllBlocks(x, ones, x, ones, static_cast<DType>(42)),
              StatusCode::kInvalidArgument, "AllToAllBlocks: dtype value 42 is not a dtype");
  const int64_t wide[] = {0, 0};
  bad[0] = BlockView::Box(Shape{2, int64_t{INT_MAX}}, wide, Shape{2, int64_t{INT_MAX}});
  ExpectError(c.AllToAllBlocks(x, bad, x, ones, DType::kF32), StatusCode::kOutOfRange,
              "AllToAllBlocks: send_blocks[0] holds 4294967294 elements, more than this "
              "backend's limit of 2147483647");
  // Empty blocks and NULL buffers go together.
  std::vector<BlockView> empty(n, BlockView::Run(0, 0));
  EXPECT_TRUE(c.AllToAllBlocks(nullptr, empty, nullptr, empty, DType::kF32).ok());
}

TEST(RegistryTest, WorldAndPlacementCommunicatorsAreCached) {
  MpiCommRegistry& registry = MpiCommRegistry::Global();
  const int32_t n = WorldSize().value();
  MpiCommunicator* world = registry.World().value();
  EXPECT_EQ(registry.World().value(), world);
  // Same ranks in the same order: the same communicator, whatever the hierarchy.
  Placement all = Placement::Parse("cpu:0-" + std::to_string(n - 1)).value();
  EXPECT_EQ(registry.ForPlacement(all).value(), world);
  EXPECT_NE(world->comm(), MPI_COMM_WORLD) << "Tessera must not share MPI_COMM_WORLD";
}

TEST(RegistryTest, ReversedSubsetPlacement) {
  MpiCommRegistry& registry = MpiCommRegistry::Global();
  const int32_t n = WorldSize().value(), me = WorldRank().value();
  if (n < 3) GTEST_SKIP() << "needs 3 ranks";
  // Ranks 2 and 0, in that order: communicator rank i must be parallel index i.
  Placement p = Placement::Parse("cpu:[2,0]").value();
  auto comm = registry.ForPlacement(p);
  if (!p.contains(me)) {
    EXPECT_EQ(comm.status().code(), StatusCode::kNotFound);
    EXPECT_EQ(comm.status().message(), "rank " + std::to_string(me) +
                                           " is not in placement cpu:[2,0], so it has no "
                                           "communicator for it");
    return;
  }
  ASSERT_TRUE(comm.ok()) << comm.status().ToString();
  EXPECT_EQ((*comm)->size(), 2);
  EXPECT_EQ((*comm)->rank(), p.index_of(me));
  int32_t world_rank = me, gathered[2] = {-1, -1};
  ASSERT_TRUE((*comm)->AllGatherV(&world_rank, 1, gathered, {1, 1}, {}, DType::kI32).ok());
  EXPECT_EQ(gathered[0], 2);
  EXPECT_EQ(gathered[1], 0);
  EXPECT_EQ(registry.ForPlacement(p).value(), *comm);
}

TEST(RegistryTest, AxisGroupsOf2x2Hierarchy) {
  MpiCommRegistry& registry = MpiCommRegistry::Global();
  const int32_t n = WorldSize().value(), me = WorldRank().value();
  if (n != 4) GTEST_SKIP() << "needs exactly 4 ranks";
  Placement p = Placement::Parse("cpu:[[0,1],[2,3]]").value();
  for (int axis = 0; axis < 2; ++axis) {
    MpiCommunicator* comm = registry.ForAxis(p, axis).value();
    EXPECT_EQ(registry.ForAxis(p, axis).value(), comm) << "not cached";
    Placement group = p.AxisGroup(axis, me).value();
    EXPECT_EQ(comm->size(), 2);
    EXPECT_EQ(comm->rank(), group.index_of(me));
    int64_t mine = me, sum = 0;
    ASSERT_TRUE(comm->AllReduce(&mine, &sum, 1, DType::kI64, ReduceOp::kSum).ok());
    EXPECT_EQ(sum, group.rank_at(0) + group.rank_at(1)) << "axis " << axis;
  }
  EXPECT_EQ(registry.ForAxis(p, 2).status().code(), StatusCode::kOutOfRange);
}

TEST(RegistryTest, PlacementBeyondTheWorldIsAnError) {
  const int32_t n = WorldSize().value();
  Placement p = Placement::Parse("cpu:[0," + std::to_string(n) + "]").value();
  auto comm = MpiCommRegistry::Global().ForPlacement(p);
  EXPECT_EQ(comm.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(comm.status().message(), "placement " + p.ToString() + " names rank " +
                                         std::to_string(n) + " but the world has " +
                                         std::to_string(n) + " ranks");
}

}  // namespace
}  // namespace tessera::comm
