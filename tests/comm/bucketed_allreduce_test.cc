// BucketedAllReducer under mpirun with 1..4 ranks: 100 tensors of mixed sizes
// (some empty, some over the bucket size) against the plain-loop oracle, on each of
// its paths (shared memory, staged, zero-copy), plan reuse, and the promise that a
// call with cached sizes allocates nothing; and ShmReduction on its own. This binary
// links //core/memory:heap_counter, which counts the calling thread's allocations,
// and counts some MPI calls through MPI's profiling interface (below).
#include "core/comm/bucketed_allreduce.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/comm/hierarchical_communicator.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_communicator.h"
#include "core/comm/shm_reduction.h"
#include "core/memory/heap_counter.h"
#include "tests/comm/comm_test_util.h"
#include "tests/comm/real_hosts.h"

// MPI's profiling interface: these definitions replace Open MPI's weak MPI_* symbols
// in this program and forward to PMPI_*, so a test can see which of them a call
// made. MPI_Comm_get_attr takes Open MPI's global attribute lock under
// MPI_THREAD_MULTIPLE; the barriers are what the shared-memory flags replace.
std::atomic<long> g_get_attr_calls{0};
std::atomic<long> g_barrier_calls{0};
std::atomic<long> g_win_sync_calls{0};

extern "C" int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void* value, int* found) {
  ++g_get_attr_calls;
  return PMPI_Comm_get_attr(comm, keyval, value, found);
}
extern "C" int MPI_Barrier(MPI_Comm comm) {
  ++g_barrier_calls;
  return PMPI_Barrier(comm);
}
extern "C" int MPI_Win_sync(MPI_Win win) {
  ++g_win_sync_calls;
  return PMPI_Win_sync(win);
}

namespace tessera::comm {
namespace {

MpiCommunicator& World() { return *MpiCommRegistry::Global().World().value(); }

constexpr int kTensors = 100;
// A small bucket so the 100 tensors need many buckets: 1024 f32 or 512 i64.
constexpr int64_t kBucketBytes = 4096;

// Tensor i's element count: every 10th (from 3) empty, every 17th bigger than a
// bucket, the rest 1..300 elements.
int64_t CountOf(int i, int64_t element_bytes) {
  if (i % 10 == 3) return 0;
  if (i % 17 == 0) return kBucketBytes / element_bytes + 1 + i;
  return 1 + (i * 37) % 300;
}

// Element k of tensor i on `rank`, before reduction; `salt` varies it per call.
int64_t Value(int64_t rank, int i, int64_t k, int salt) { return Input(rank, i * 1000 + k + salt); }
int64_t Expected(ReduceOp op, int64_t size, int i, int64_t k, int salt) {
  return Reduced(op, size, i * 1000 + k + salt);
}

using CountFn = int64_t (*)(int i, int64_t element_bytes);

// n tensors of count_of(i, sizeof(T)) elements, each in its own vector, or all back
// to back in one.
template <typename T>
struct Tensors {
  std::vector<std::vector<T>> separate;
  std::vector<T> flat;
  std::vector<BucketTensor> refs;

  explicit Tensors(int n = kTensors, CountFn count_of = CountOf, bool back_to_back = false)
      : separate(n), refs(n) {
    int64_t total = 0;
    for (int i = 0; i < n; ++i) total += count_of(i, sizeof(T));
    if (back_to_back) flat.resize(total);
    int64_t at = 0;
    for (int i = 0; i < n; ++i) {
      const int64_t count = count_of(i, sizeof(T));
      T* data = nullptr;
      if (back_to_back) {
        data = flat.data() + at;
      } else {
        separate[i].resize(count);
        data = separate[i].data();
      }
      refs[i] = {count == 0 ? nullptr : data, count, DTypeOf<T>::value};
      at += count;
    }
  }
  void Fill(int32_t rank, int salt) {
    for (size_t i = 0; i < refs.size(); ++i) {
      T* data = static_cast<T*>(refs[i].data);
      for (int64_t k = 0; k < refs[i].count; ++k) data[k] = T(Value(rank, i, k, salt));
    }
  }
  void Check(ReduceOp op, int32_t size, int salt) const {
    for (size_t i = 0; i < refs.size(); ++i) {
      const T* data = static_cast<const T*>(refs[i].data);
      for (int64_t k = 0; k < refs[i].count; ++k) {
        ASSERT_EQ(data[k], T(Expected(op, size, i, k, salt)))
            << "tensor " << i << " element " << k << " " << ReduceOpName(op);
      }
    }
  }
};

// All-reduces `tensors` with every op in turn (salts salt + 1 ...), each checked
// against the oracle.
template <typename T>
void EveryOp(BucketedAllReducer& reducer, Tensors<T>& tensors, int salt) {
  for (ReduceOp op : kOps) {
    tensors.Fill(World().rank(), ++salt);
    ASSERT_TRUE(reducer.AllReduce(World(), tensors.refs, op).ok()) << ReduceOpName(op);
    tensors.Check(op, World().size(), salt);
  }
}

std::unique_ptr<BucketedAllReducer> Reducer(int64_t bucket_bytes = kBucketBytes,
                                            int32_t max_plans = 4, bool shared_memory = true) {
  BucketOptions options;
  options.bucket_bytes = bucket_bytes;
  options.max_plans = max_plans;
  options.shared_memory = shared_memory;
  return BucketedAllReducer::Create(options).value();
}

// The shared-memory path runs wherever the world has more than one rank, all on one
// host (every rank under a plain mpirun; tools/multihost.sh may spread them).
bool ShmExpected(const Communicator& comm) {
  return comm.size() > 1 && RealHostsOfTest(comm.size()).hosts == 1;
}

// A fresh duplicate of the world (owned: freed, with its cached state, on destruction).
std::unique_ptr<MpiCommunicator> DupWorld() {
  MPI_Comm dup = MPI_COMM_NULL;
  EXPECT_EQ(MPI_Comm_dup(World().comm(), &dup), MPI_SUCCESS);
  return MpiCommunicator::Wrap(dup, /*owned=*/true).value();
}

template <typename T>
class BucketedTypedTest : public testing::Test {};
using CommTypes = testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(BucketedTypedTest, CommTypes);

TYPED_TEST(BucketedTypedTest, HundredMixedTensorsEveryOp) {
  for (bool shared_memory : {true, false}) {
    SCOPED_TRACE(shared_memory ? "shared memory" : "staged");
    auto reducer = Reducer(kBucketBytes, 4, shared_memory);
    Tensors<TypeParam> tensors;
    EveryOp(*reducer, tensors, 0);
    const BucketedAllReducer::Stats& stats = reducer->stats();
    EXPECT_EQ(stats.plans_built, 1);
    int big = 0;
    for (int i = 0; i < kTensors; ++i)
      big += CountOf(i, sizeof(TypeParam)) * sizeof(TypeParam) > static_cast<size_t>(kBucketBytes);
    EXPECT_GE(stats.in_place_buckets, big) << "every oversized tensor goes in place";
    EXPECT_GT(stats.buckets, stats.in_place_buckets) << "some are packed";
    EXPECT_LE(stats.staging_bytes, kBucketBytes);
    const bool shm = shared_memory && ShmExpected(World());
    EXPECT_EQ(stats.shared_memory_buckets, shm ? stats.buckets - stats.in_place_buckets : 0);
    EXPECT_EQ(stats.zero_copy_buckets, 0) << "separately allocated tensors are staged";
  }
}

TEST(BucketedTest, DefaultBucketsTakeEverythingInOne) {
  auto reducer = BucketedAllReducer::Create().value();
  Tensors<float> tensors;
  tensors.Fill(World().rank(), 5);
  ASSERT_TRUE(reducer->AllReduce(World(), tensors.refs, ReduceOp::kSum).ok());
  tensors.Check(ReduceOp::kSum, World().size(), 5);
  EXPECT_EQ(reducer->stats().buckets, 1);
  EXPECT_EQ(reducer->stats().in_place_buckets, 0);
}

TEST(BucketedTest, ThroughAHierarchicalCommunicator) {
  HierarchicalOptions options;
  options.ranks_per_host = 2;
  options.threshold_bytes = 0;  // hierarchical for every bucket
  auto h = HierarchicalCommunicator::Create(World(), options).value();
  auto reducer = Reducer();
  Tensors<int64_t> tensors;
  tensors.Fill(h->rank(), 9);
  ASSERT_TRUE(reducer->AllReduce(*h, tensors.refs, ReduceOp::kMax).ok());
  tensors.Check(ReduceOp::kMax, h->size(), 9);
}

TEST(BucketedTest, CachedSizesAllocateNothing) {
  HierarchicalOptions options;
  options.ranks_per_host = 2;
  options.threshold_bytes = 0;
  auto hierarchical = HierarchicalCommunicator::Create(World(), options).value();
  struct Case {
    Communicator* comm;
    bool shared_memory;
  };
  for (Case c : {Case{&World(), true}, Case{&World(), false}, Case{hierarchical.get(), true}}) {
    Communicator* comm = c.comm;
    auto reducer = Reducer(kBucketBytes, 4, c.shared_memory);
    Tensors<float> tensors;
    tensors.Fill(comm->rank(), 1);
    ASSERT_TRUE(reducer->AllReduce(*comm, tensors.refs, ReduceOp::kSum).ok());  // builds the plan
    ASSERT_TRUE(reducer->AllReduce(*comm, tensors.refs, ReduceOp::kSum).ok());  // warms comm
    int failures = 0;
    long during = 0;
    for (int salt = 2; salt < 6; ++salt) {
      tensors.Fill(comm->rank(), salt);
      const long before = memory::ThreadHeapAllocations();
      Status status = reducer->AllReduce(*comm, tensors.refs, ReduceOp::kMin);
      during += memory::ThreadHeapAllocations() - before;
      failures += status.ok() ? 0 : 1;
      tensors.Check(ReduceOp::kMin, comm->size(), salt);
    }
    EXPECT_EQ(failures, 0);
    EXPECT_EQ(during, 0) << "heap allocations on the cached path";
    EXPECT_EQ(reducer->stats().plans_built, 1);
  }
}

TEST(BucketedTest, CounterSeesAllocations) {
  const long before = memory::ThreadHeapAllocations();
  auto reducer = Reducer();
  Tensors<float> tensors;
  ASSERT_TRUE(reducer->AllReduce(World(), tensors.refs, ReduceOp::kSum).ok());
  EXPECT_GE(memory::ThreadHeapAllocations() - before, 3) << "the first call builds a plan";
}

TEST(BucketedTest, PlansAreCachedBySizes) {
  auto reducer = Reducer(kBucketBytes, /*max_plans=*/2);
  Tensors<float> a(100), b(40), c(7);
  for (int round = 0; round < 3; ++round) {
    a.Fill(World().rank(), round);
    b.Fill(World().rank(), round + 10);
    ASSERT_TRUE(reducer->AllReduce(World(), a.refs, ReduceOp::kSum).ok());
    ASSERT_TRUE(reducer->AllReduce(World(), b.refs, ReduceOp::kSum).ok());
    a.Check(ReduceOp::kSum, World().size(), round);
    b.Check(ReduceOp::kSum, World().size(), round + 10);
  }
  EXPECT_EQ(reducer->stats().plans_built, 2);
  // A third size list evicts the least recently used (a); b stays cached.
  c.Fill(World().rank(), 3);
  ASSERT_TRUE(reducer->AllReduce(World(), c.refs, ReduceOp::kSum).ok());
  c.Check(ReduceOp::kSum, World().size(), 3);
  ASSERT_TRUE(reducer->AllReduce(World(), b.refs, ReduceOp::kSum).ok());
  EXPECT_EQ(reducer->stats().plans_built, 3);
  ASSERT_TRUE(reducer->AllReduce(World(), a.refs, ReduceOp::kSum).ok());
  EXPECT_EQ(reducer->stats().plans_built, 4);
  // Same counts, other dtype: a different plan.
  std::vector<int32_t> ints(5, 1);
  std::vector<float> floats(5, 1);
  ASSERT_TRUE(reducer->AllReduce(World(), {{floats.data(), 5, DType::kF32}}, ReduceOp::kSum).ok());
  ASSERT_TRUE(reducer->AllReduce(World(), {{ints.data(), 5, DType::kI32}}, ReduceOp::kSum).ok());
  EXPECT_EQ(ints[4], World().size());
  EXPECT_EQ(floats[4], World().size());
}

TEST(BucketedTest, EmptyListsAndEmptyTensors) {
  auto reducer = Reducer();
  EXPECT_TRUE(reducer->AllReduce(World(), {}, ReduceOp::kSum).ok());
  EXPECT_EQ(reducer->stats().buckets, 0);
  EXPECT_TRUE(reducer
                  ->AllReduce(World(), {{nullptr, 0, DType::kF64}, {nullptr, 0, DType::kF64}},
                              ReduceOp::kSum)
                  .ok());
  EXPECT_EQ(reducer->stats().buckets, 0);
}

void ExpectError(const Status& status, const std::string& message) {
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
  EXPECT_EQ(status.message(), message);
}

TEST(BucketedTest, BadInputs) {
  auto reducer = Reducer();
  float f[4] = {};
  double d[4] = {};
  const std::string m = "BucketedAllReducer::AllReduce: ";
  ExpectError(
      reducer->AllReduce(World(), {{f, 4, DType::kF32}, {f, 1, DType::kF32}, {d, 4, DType::kF64}},
                         ReduceOp::kSum),
      m + "tensors[2].dtype is f64 but tensors[0].dtype is f32; all tensors must share "
          "one dtype");
  ExpectError(reducer->AllReduce(World(), {{f, 4, DType::kF32}, {f, 1, static_cast<DType>(42)}},
                                 ReduceOp::kSum),
              m + "tensors[1].dtype is value 42 (not a dtype) but tensors[0].dtype is f32; all "
                  "tensors must share one dtype");
  ExpectError(
      reducer->AllReduce(World(), {{f, 4, DType::kF32}, {f, -3, DType::kF32}}, ReduceOp::kSum),
      m + "tensors[1].count is -3; it must be >= 0");
  ExpectError(
      reducer->AllReduce(World(), {{f, 4, DType::kF32}, {nullptr, 2, DType::kF32}}, ReduceOp::kSum),
      m + "tensors[1].data is NULL but holds 2 elements");
  ExpectError(reducer->AllReduce(World(), {{f, 4, static_cast<DType>(42)}}, ReduceOp::kSum),
              m + "dtype value 42 is not a dtype");
  ExpectError(reducer->AllReduce(World(), {{f, 4, DType::kF32}}, static_cast<ReduceOp>(5)),
              m + "reduce op value 5 is not sum, max or min");
  ExpectError(reducer->AllReduce(World(), {}, static_cast<ReduceOp>(-1)),
              m + "reduce op value -1 is not sum, max or min");
  EXPECT_EQ(reducer->stats().calls, 0) << "rejected calls are not counted";

  BucketOptions options;
  options.bucket_bytes = 0;
  ExpectError(BucketedAllReducer::Create(options).status(),
              "BucketedAllReducer::Create: bucket_bytes is 0; it must be >= 1");
  options = {};
  options.align_bytes = 48;
  ExpectError(BucketedAllReducer::Create(options).status(),
              "BucketedAllReducer::Create: align_bytes is 48; it must be a power of two");
  options.align_bytes = 0;
  ExpectError(BucketedAllReducer::Create(options).status(),
              "BucketedAllReducer::Create: align_bytes is 0; it must be a power of two");
  options = {};
  options.max_plans = 0;
  ExpectError(BucketedAllReducer::Create(options).status(),
              "BucketedAllReducer::Create: max_plans is 0; it must be >= 1");
}

TEST(BucketedTest, TinyAlignmentAndTinyBuckets) {
  // align_bytes below the element size packs tensors back to back; a bucket smaller
  // than one element sends every tensor in place.
  for (int64_t bucket_bytes : {int64_t{1}, int64_t{64}}) {
    BucketOptions options;
    options.bucket_bytes = bucket_bytes;
    options.align_bytes = 1;
    auto reducer = BucketedAllReducer::Create(options).value();
    Tensors<double> tensors(30);
    tensors.Fill(World().rank(), 4);
    ASSERT_TRUE(reducer->AllReduce(World(), tensors.refs, ReduceOp::kSum).ok());
    tensors.Check(ReduceOp::kSum, World().size(), 4);
    if (bucket_bytes == 1) {
      EXPECT_EQ(reducer->stats().buckets, reducer->stats().in_place_buckets);
    }
  }
}

// Multiples of 16 f32 (64 bytes): buckets without alignment padding.
int64_t Unpadded(int i, int64_t /*element_bytes*/) { return 16 * (1 + (i * 37) % 20); }
// One element over a multiple of 16: every tensor after the first in a bucket is padded.
int64_t Padded(int i, int64_t /*element_bytes*/) { return 16 * ((i * 37) % 20) + 1; }

TEST(BucketedTest, BackToBackTensorsSkipTheStagingCopy) {
  const bool back_to_back = World().rank() % 2 == 0;
  for (bool shared_memory : {false, true}) {
    SCOPED_TRACE(shared_memory ? "shared memory" : "staged");
    auto reducer = Reducer(kBucketBytes, 4, shared_memory);
    Tensors<float> tensors(kTensors, Unpadded, back_to_back);
    EveryOp(*reducer, tensors, 20);
    const BucketedAllReducer::Stats& stats = reducer->stats();
    const int64_t packed = stats.buckets - stats.in_place_buckets;
    EXPECT_GT(packed, 1);
    const bool shm = shared_memory && ShmExpected(World());
    // The shared-memory path packs anyway: it is chosen by the communicator alone.
    EXPECT_EQ(stats.zero_copy_buckets, back_to_back && !shm ? packed : 0);
    EXPECT_EQ(stats.shared_memory_buckets, shm ? packed : 0);
  }
}

TEST(BucketedTest, PaddedBucketsAreStagedEvenWhenBackToBack) {
  auto reducer = Reducer(kBucketBytes, 4, /*shared_memory=*/false);
  Tensors<float> tensors(kTensors, Padded, /*back_to_back=*/true);
  tensors.Fill(World().rank(), 40);
  ASSERT_TRUE(reducer->AllReduce(World(), tensors.refs, ReduceOp::kSum).ok());
  tensors.Check(ReduceOp::kSum, World().size(), 40);
  EXPECT_GT(reducer->stats().buckets, reducer->stats().in_place_buckets);
  EXPECT_EQ(reducer->stats().zero_copy_buckets, 0);
}

TEST(BucketedTest, CommunicatorsWithATimeoutTakeTheStagedPath) {
  auto comm = DupWorld();
  ASSERT_TRUE(comm->SetTimeout(30).ok());
  auto reducer = Reducer();
  Tensors<int32_t> tensors;
  tensors.Fill(comm->rank(), 50);
  ASSERT_TRUE(reducer->AllReduce(*comm, tensors.refs, ReduceOp::kMin).ok());
  tensors.Check(ReduceOp::kMin, comm->size(), 50);
  EXPECT_EQ(reducer->stats().shared_memory_buckets, 0);
  EXPECT_GT(reducer->stats().buckets, reducer->stats().in_place_buckets);
}

TEST(BucketedTest, ReducersShareTheCommunicatorsSegments) {
  // The second reducer's bigger buckets grow the segments between the first's calls.
  auto comm = DupWorld();
  auto small = Reducer();
  auto big = Reducer(int64_t{1} << 20);
  Tensors<double> a, b;
  for (int round = 0; round < 3; ++round) {
    a.Fill(comm->rank(), 60 + round);
    ASSERT_TRUE(small->AllReduce(*comm, a.refs, ReduceOp::kSum).ok());
    a.Check(ReduceOp::kSum, comm->size(), 60 + round);
    b.Fill(comm->rank(), 70 + round);
    ASSERT_TRUE(big->AllReduce(*comm, b.refs, ReduceOp::kMax).ok());
    b.Check(ReduceOp::kMax, comm->size(), 70 + round);
  }
  EXPECT_EQ(big->stats().buckets, 1);
}

TEST(ShmReductionTest, CachedPerCommunicatorWithSeveralRanksOnly) {
  auto comm = DupWorld();
  Result<ShmReduction*> first = ShmReduction::For(*comm);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  if (!ShmExpected(*comm)) {
    EXPECT_EQ(first.value(), nullptr) << "one rank, or ranks on several hosts: nothing shared";
    EXPECT_EQ(ShmReduction::For(*comm).value(), nullptr);
    return;
  }
  ASSERT_NE(first.value(), nullptr);
  EXPECT_EQ(ShmReduction::For(*comm).value(), first.value());
  auto other = DupWorld();
  ShmReduction* second = ShmReduction::For(*other).value();
  EXPECT_NE(second, nullptr);
  EXPECT_NE(second, first.value());
}

TEST(ShmReductionTest, WarmCallsMakeNoMpiCall) {
  // Sanity: the counters see this program's calls.
  const long barriers = g_barrier_calls;
  ASSERT_TRUE(World().Barrier().ok());
  ASSERT_EQ(g_barrier_calls - barriers, 1);
  int found = 0;
  void* value = nullptr;
  const long lookups = g_get_attr_calls;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &found);
  ASSERT_EQ(g_get_attr_calls - lookups, 1);

  auto comm = DupWorld();
  auto reducer = Reducer();
  // No tensor over a bucket, so every bucket of several takes the shared-memory path.
  Tensors<float> tensors(kTensors, Unpadded);
  for (int salt = 0; salt < 2; ++salt) {  // builds the plan, reserves the segments
    ASSERT_TRUE(reducer->AllReduce(*comm, tensors.refs, ReduceOp::kSum).ok());
  }
  const long attr_before = g_get_attr_calls, barrier_before = g_barrier_calls,
             sync_before = g_win_sync_calls;
  for (int salt = 1; salt < 4; ++salt) {
    tensors.Fill(comm->rank(), salt);
    ASSERT_TRUE(reducer->AllReduce(*comm, tensors.refs, ReduceOp::kMax).ok());
    tensors.Check(ReduceOp::kMax, comm->size(), salt);
  }
  if (!ShmExpected(*comm)) GTEST_SKIP() << "one rank or several hosts: no shared-memory reduction";
  const BucketedAllReducer::Stats& stats = reducer->stats();
  EXPECT_GT(stats.shared_memory_buckets, 0);
  EXPECT_EQ(stats.shared_memory_buckets, stats.buckets - stats.in_place_buckets);
  EXPECT_EQ(g_get_attr_calls - attr_before, 0) << "the state is found without MPI";
  EXPECT_EQ(g_barrier_calls - barrier_before, 0) << "flags, not MPI barriers";
  EXPECT_EQ(g_win_sync_calls - sync_before, 0);
}

TEST(ShmReductionTest, FreedWithItsCommunicator) {
  // Each communicator's window is freed (collectively) when the communicator is
  // destroyed; many in turn neither hang nor run out of shared memory.
  for (int round = 0; round < 20; ++round) {
    auto comm = DupWorld();
    ShmReduction* shm = ShmReduction::For(*comm).value();
    if (shm == nullptr) GTEST_SKIP() << "one rank or several hosts: no shared-memory reduction";
    ASSERT_TRUE(shm->Reserve(int64_t{8} << 20).ok());
    std::vector<int32_t> data(1000);
    for (int64_t k = 0; k < 1000; ++k) data[k] = int32_t(Input(comm->rank(), k + round));
    ASSERT_TRUE(shm->AllReduce({{data.data(), 0, 1000}}, 1000, DType::kI32, ReduceOp::kMin).ok());
    for (int64_t k = 0; k < 1000; ++k) {
      ASSERT_EQ(data[k], int32_t(Reduced(ReduceOp::kMin, comm->size(), k + round)))
          << "round " << round << " element " << k;
    }
  }
}

TEST(ShmReductionTest, RefusedWhileTheCommunicatorHasATimeout) {
  auto comm = DupWorld();
  ShmReduction* shm = ShmReduction::For(*comm).value();
  if (shm == nullptr) GTEST_SKIP() << "one rank or several hosts: no shared-memory reduction";
  ASSERT_TRUE(shm->Reserve(4096).ok());
  ASSERT_TRUE(comm->SetTimeout(5).ok());
  const std::string why =
      ": the communicator has a timeout or is poisoned; the shared-memory reduction is "
      "unbounded, use the communicator's own AllReduce";
  Status status = ShmReduction::For(*comm).status();
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "ShmReduction::For" + why);
  status = shm->Reserve(1 << 20);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "ShmReduction::Reserve" + why);
  int64_t x = comm->rank();
  status = shm->AllReduce({{&x, 0, 1}}, 1, DType::kI64, ReduceOp::kSum);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "ShmReduction::AllReduce" + why);
  EXPECT_EQ(x, comm->rank()) << "untouched";
  // Without the timeout again, the same state serves.
  ASSERT_TRUE(comm->SetTimeout(0).ok());
  EXPECT_EQ(ShmReduction::For(*comm).value(), shm);
  ASSERT_TRUE(shm->AllReduce({{&x, 0, 1}}, 1, DType::kI64, ReduceOp::kSum).ok());
  EXPECT_EQ(x, int64_t{comm->size()} * (comm->size() - 1) / 2);
}

// Pieces of 1, 2, 3 ... elements with gaps of 0, 1, 2 elements between them, each in
// its own vector, over a buffer of `count` elements; element k of the buffer on
// `rank` is Input(rank, k + salt).
struct Pieces {
  std::vector<std::vector<int64_t>> data;
  std::vector<ShmPiece> refs;

  Pieces(int64_t count, int32_t rank, int64_t salt) {
    int64_t at = 0;
    for (int64_t i = 0; at < count; ++i) {
      const int64_t n = std::min<int64_t>(1 + i, count - at);
      data.emplace_back(n);
      for (int64_t k = 0; k < n; ++k) data.back()[k] = Input(rank, at + k + salt);
      refs.push_back({data.back().data(), at, n});
      at += n + i % 3;
    }
  }
};

TEST(ShmReductionTest, PiecesSpanEveryOwnersBlock) {
  auto comm = DupWorld();
  ShmReduction* shm = ShmReduction::For(*comm).value();
  if (shm == nullptr) GTEST_SKIP() << "one rank or several hosts: no shared-memory reduction";
  ASSERT_TRUE(shm->Reserve(1000 * sizeof(int64_t)).ok());
  EXPECT_GE(shm->capacity_bytes(), int64_t{1000 * sizeof(int64_t)});
  // Counts below, at and across the per-rank block granularity (8 i64 per line).
  for (int64_t count : {0, 1, 5, 8, 17, 63, 1000}) {
    for (ReduceOp op : kOps) {
      Pieces pieces(count, comm->rank(), count);
      ASSERT_TRUE(shm->AllReduce(pieces.refs, count, DType::kI64, op).ok());
      for (size_t p = 0; p < pieces.refs.size(); ++p) {
        for (int64_t k = 0; k < pieces.refs[p].count; ++k) {
          ASSERT_EQ(pieces.data[p][k], Reduced(op, comm->size(), pieces.refs[p].offset + k + count))
              << "count " << count << " piece " << p << " element " << k;
        }
      }
    }
  }
  // Growing keeps it working; one piece of 256 Ki f32, reduced in tiles.
  ASSERT_TRUE(shm->Reserve(1 << 20).ok());
  const int64_t count = (1 << 20) / sizeof(float);
  std::vector<float> one(count);
  for (int64_t k = 0; k < count; ++k) one[k] = float(Input(comm->rank(), k));
  ASSERT_TRUE(shm->AllReduce({{one.data(), 0, count}}, count, DType::kF32, ReduceOp::kSum).ok());
  for (int64_t k = 0; k < count; ++k) {
    ASSERT_EQ(one[k], float(Reduced(ReduceOp::kSum, comm->size(), k))) << k;
  }
}

TEST(ShmReductionTest, BadArguments) {
  auto bounded = DupWorld();
  ASSERT_TRUE(bounded->SetTimeout(5).ok());
  Status status = ShmReduction::For(*bounded).status();
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status.ToString();
  EXPECT_EQ(status.message(),
            "ShmReduction::For: the communicator has a timeout or is poisoned; the "
            "shared-memory reduction is unbounded, use the communicator's own AllReduce");
  auto comm = DupWorld();
  ShmReduction* shm = ShmReduction::For(*comm).value();
  if (shm == nullptr) GTEST_SKIP() << "one rank or several hosts: no shared-memory reduction";
  ExpectError(shm->Reserve(-1), "ShmReduction::Reserve: bytes is -1; it must be >= 0");
  ASSERT_TRUE(shm->Reserve(100).ok());
  const int64_t capacity = shm->capacity_bytes();
  const std::string m = "ShmReduction::AllReduce: ";
  float f[8] = {};
  ExpectError(shm->AllReduce({}, capacity / 4 + 1, DType::kF32, ReduceOp::kSum),
              m + "count is " + std::to_string(capacity / 4 + 1) +
                  " elements of f32; the segments hold " + std::to_string(capacity) + " bytes");
  ExpectError(
      shm->AllReduce({}, -1, DType::kF32, ReduceOp::kSum),
      m + "count is -1 elements of f32; the segments hold " + std::to_string(capacity) + " bytes");
  ExpectError(shm->AllReduce({}, 4, static_cast<DType>(42), ReduceOp::kSum),
              m + "dtype value 42 is not a dtype");
  ExpectError(shm->AllReduce({}, 4, DType::kF32, static_cast<ReduceOp>(9)),
              m + "reduce op value 9 is not sum, max or min");
  const std::string rule =
      "; pieces must be in offset order, not overlap, lie in [0, 8) and have data";
  ExpectError(shm->AllReduce({{f, 4, 2}, {f + 2, 1, 2}}, 8, DType::kF32, ReduceOp::kSum),
              m + "pieces[1] holds 2 elements at offset 1" + rule);
  ExpectError(shm->AllReduce({{f, 6, 3}}, 8, DType::kF32, ReduceOp::kSum),
              m + "pieces[0] holds 3 elements at offset 6" + rule);
  ExpectError(shm->AllReduce({{f, -1, 3}}, 8, DType::kF32, ReduceOp::kSum),
              m + "pieces[0] holds 3 elements at offset -1" + rule);
  ExpectError(shm->AllReduce({{f, 0, -2}}, 8, DType::kF32, ReduceOp::kSum),
              m + "pieces[0] holds -2 elements at offset 0" + rule);
  ExpectError(shm->AllReduce({{f, 0, 1}, {nullptr, 1, 1}}, 8, DType::kF32, ReduceOp::kSum),
              m + "pieces[1] holds 1 elements at offset 1 from NULL" + rule);
}

}  // namespace
}  // namespace tessera::comm
