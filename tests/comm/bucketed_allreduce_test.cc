// BucketedAllReducer under mpirun with 1..4 ranks: 100 tensors of mixed sizes
// (some empty, some over the bucket size) against the plain-loop oracle, plan reuse,
// and the promise that a call with cached sizes allocates nothing. This binary
// links //core/memory:heap_counter, which counts the calling thread's allocations.
#include "core/comm/bucketed_allreduce.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/comm/hierarchical_communicator.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_communicator.h"
#include "core/memory/heap_counter.h"
#include "tests/comm/comm_test_util.h"

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

template <typename T>
struct Tensors {
  std::vector<std::vector<T>> data;
  std::vector<BucketTensor> refs;

  explicit Tensors(int n = kTensors) : data(n), refs(n) {
    for (int i = 0; i < n; ++i) {
      data[i].resize(CountOf(i, sizeof(T)));
      refs[i] = {data[i].empty() ? nullptr : data[i].data(), static_cast<int64_t>(data[i].size()),
                 DTypeOf<T>::value};
    }
  }
  void Fill(int32_t rank, int salt) {
    for (size_t i = 0; i < data.size(); ++i) {
      for (size_t k = 0; k < data[i].size(); ++k) data[i][k] = T(Value(rank, i, k, salt));
    }
  }
  void Check(ReduceOp op, int32_t size, int salt) const {
    for (size_t i = 0; i < data.size(); ++i) {
      for (size_t k = 0; k < data[i].size(); ++k) {
        ASSERT_EQ(data[i][k], T(Expected(op, size, i, k, salt)))
            << "tensor " << i << " element " << k << " " << ReduceOpName(op);
      }
    }
  }
};

std::unique_ptr<BucketedAllReducer> Reducer(int64_t bucket_bytes = kBucketBytes,
                                            int32_t max_plans = 4) {
  BucketOptions options;
  options.bucket_bytes = bucket_bytes;
  options.max_plans = max_plans;
  return BucketedAllReducer::Create(options).value();
}

template <typename T>
class BucketedTypedTest : public testing::Test {};
using CommTypes = testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(BucketedTypedTest, CommTypes);

TYPED_TEST(BucketedTypedTest, HundredMixedTensorsEveryOp) {
  auto reducer = Reducer();
  Tensors<TypeParam> tensors;
  int salt = 0;
  for (ReduceOp op : kOps) {
    tensors.Fill(World().rank(), ++salt);
    ASSERT_TRUE(reducer->AllReduce(World(), tensors.refs, op).ok());
    tensors.Check(op, World().size(), salt);
  }
  EXPECT_EQ(reducer->stats().plans_built, 1);
  int big = 0;
  for (int i = 0; i < kTensors; ++i)
    big += CountOf(i, sizeof(TypeParam)) * sizeof(TypeParam) > static_cast<size_t>(kBucketBytes);
  EXPECT_GE(reducer->stats().in_place_buckets, big) << "every oversized tensor goes in place";
  EXPECT_GT(reducer->stats().buckets, reducer->stats().in_place_buckets) << "some are packed";
  EXPECT_LE(reducer->stats().staging_bytes, kBucketBytes);
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
  for (Communicator* comm :
       {static_cast<Communicator*>(&World()), static_cast<Communicator*>(hierarchical.get())}) {
    auto reducer = Reducer();
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
  ExpectError(reducer->AllReduce(World(), {{f, 4, DType::kF16}}, ReduceOp::kSum),
              m + "dtype f16 is not supported by communicators (supported: f32, f64, i32, i64)");
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

}  // namespace
}  // namespace tessera::comm
