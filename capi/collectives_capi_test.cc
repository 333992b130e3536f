// tess_comm_allreduce, tess_bucketed_allreducer_run* and the collective timeout in a world of
// one rank: any reduction over one rank is the identity (the oracle), the bucket
// counts follow the packing rule of tessera.h recomputed here, and bad inputs check
// the code, the whole message and that nothing was written. Multi-rank runs:
// tests/capi/boxing_capi_mpi_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/tessera.h"

namespace tessera::capi_test {
namespace {

struct ReducerDestroy {
  void operator()(tess_bucketed_allreducer* r) const { tess_bucketed_allreducer_destroy(r); }
};
using ReducerPtr = std::unique_ptr<tess_bucketed_allreducer, ReducerDestroy>;

// Runs before any test initialises the runtime (gtest keeps definition order).
TEST(CollectivesBeforeInitTest, TimeoutWorksAndCollectivesNeedTheRuntime) {
  double seconds = -1;
  ASSERT_EQ(tess_comm_collective_timeout(&seconds), TESS_OK) << LastError();
  EXPECT_EQ(seconds, 0) << "the test runs without TESSERA_COLLECTIVE_TIMEOUT_S";
  float x = 1;
  EXPECT_EQ(
      tess_comm_allreduce(&x, 1, TESS_DTYPE_F32, TESS_REDUCE_SUM, nullptr, TESS_ALLREDUCE_FLAT),
      TESS_FAILED_PRECONDITION);
  EXPECT_EQ(LastError(),
            "tess_comm_allreduce: the runtime is not initialised: call tess_runtime_init first");
}

// Also before init: a refused tess_runtime_init_with_options starts nothing.
TEST(CollectivesBeforeInitTest, InitWithOptions) {
  int32_t rank = -1;
  auto expect_refused = [&](const tess_runtime_init_options* o, const std::string& message) {
    EXPECT_EQ(tess_runtime_init_with_options(o), TESS_INVALID_ARGUMENT) << message;
    EXPECT_EQ(LastError(), message);
    EXPECT_EQ(tess_runtime_world_rank(&rank), TESS_FAILED_PRECONDITION) << "nothing may start";
    double seconds = -1;
    ASSERT_EQ(tess_comm_collective_timeout(&seconds), TESS_OK);
    EXPECT_EQ(seconds, 0) << "a refused call may not set the timeout";
  };
  const std::string own = std::to_string(sizeof(tess_runtime_init_options));
  tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  o.struct_size = 0;
  expect_refused(&o,
                 "tess_runtime_init_with_options: options->struct_size is 0 but "
                 "tess_runtime_init_options needs "
                 "at least 24 (its first version; this library's is " +
                     own +
                     "): set it to "
                     "sizeof(tess_runtime_init_options) or start from its _INIT macro");
  o.struct_size = 23;
  expect_refused(&o,
                 "tess_runtime_init_with_options: options->struct_size is 23 but "
                 "tess_runtime_init_options needs "
                 "at least 24 (its first version; this library's is " +
                     own +
                     "): set it to "
                     "sizeof(tess_runtime_init_options) or start from its _INIT macro");
  o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  o.mpi_thread_level = TESS_MPI_THREAD_SERIALIZED;
  o.collective_timeout_seconds = 3;
  expect_refused(&o,
                 "tess_runtime_init_with_options: options->mpi_thread_level is 2; only "
                 "TESS_MPI_THREAD_MULTIPLE (3) is supported: Tessera calls MPI from several "
                 "threads without serialising");
  o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  o.collective_timeout_seconds = std::nan("");
  expect_refused(
      &o,
      "tess_runtime_init_with_options: options->collective_timeout_seconds is nan; expected a "
      "finite number (>= 0 to set it, negative to keep the default)");
  o.collective_timeout_seconds = std::numeric_limits<double>::infinity();
  expect_refused(
      &o,
      "tess_runtime_init_with_options: options->collective_timeout_seconds is inf; expected a "
      "finite number (>= 0 to set it, negative to keep the default)");
  o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  o.cuda_device = -2;
  expect_refused(&o,
                 "tess_runtime_init_with_options: options->cuda_device is -2; expected -1 (local "
                 "rank % device count) or a device >= 0");
  o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  o.check_mode = 2;
  expect_refused(&o,
                 "tess_runtime_init_with_options: options->check_mode is 2; expected 1 (on), 0 "
                 "(off) or -1 (TESSERA_CHECK decides)");
  o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  o.reserved = -1;
  expect_refused(&o, "tess_runtime_init_with_options: options->reserved is -1; it must be 0");
  // check_mode -1 reads TESSERA_CHECK: a bad value is refused, naming it.
  setenv("TESSERA_CHECK", "true", 1);
  o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  expect_refused(&o,
                 "tess_runtime_init_with_options: environment variable TESSERA_CHECK is "
                 "\"true\"; it must be 0 (off) or 1 (on)");
  o.check_mode = 0;  // an explicit mode does not read it
  o.cuda_device = -2;
  expect_refused(&o,
                 "tess_runtime_init_with_options: options->cuda_device is -2; expected -1 (local "
                 "rank % device count) or a device >= 0");
  unsetenv("TESSERA_CHECK");
  o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  int32_t built_with_cuda = -1, device_count = -1;
  ASSERT_EQ(tess_runtime_cuda_info(&built_with_cuda, &device_count), TESS_OK);
  if (!built_with_cuda) {
    o.cuda_device = 0;
    EXPECT_EQ(tess_runtime_init_with_options(&o), TESS_UNIMPLEMENTED);
    EXPECT_EQ(LastError(),
              "tess_runtime_init_with_options: options->cuda_device is 0, but this library was "
              "built without CUDA (--config=cuda)");
    EXPECT_EQ(tess_runtime_world_rank(&rank), TESS_FAILED_PRECONDITION) << "nothing may start";
  } else if (device_count == 0) {
    o.cuda_device = 0;
    EXPECT_EQ(tess_runtime_init_with_options(&o), TESS_UNAVAILABLE);
    EXPECT_EQ(LastError(),
              "tess_runtime_init_with_options: options->cuda_device is 0: no CUDA device visible");
  } else {
    o.cuda_device = device_count;
    EXPECT_EQ(tess_runtime_init_with_options(&o), TESS_OUT_OF_RANGE);
    EXPECT_NE(LastError().find("options->cuda_device is " + std::to_string(device_count)),
              std::string::npos)
        << LastError();
  }
  struct Newer {
    tess_runtime_init_options base;
    int64_t future_field;
  } newer = {TESS_RUNTIME_INIT_OPTIONS_INIT, 1};
  newer.base.struct_size = sizeof(Newer);
  expect_refused(&newer.base, "tess_runtime_init_with_options: options->struct_size is " +
                                  std::to_string(sizeof(Newer)) +
                                  " but tess_runtime_init_options is " + own +
                                  " bytes in this library, and the caller's byte " + own +
                                  " past that is not zero: a newer field this library does not "
                                  "implement was set");

  // A newer caller's zero tail is fine; the timeout takes effect with the runtime.
  newer.future_field = 0;
  newer.base.collective_timeout_seconds = 4.5;
  ASSERT_EQ(tess_runtime_init_with_options(&newer.base), TESS_OK) << LastError();
  ASSERT_EQ(tess_runtime_world_rank(&rank), TESS_OK);
  EXPECT_EQ(rank, 0);
  double seconds = -1;
  ASSERT_EQ(tess_comm_collective_timeout(&seconds), TESS_OK);
  EXPECT_EQ(seconds, 4.5);
  // Again while initialised: a no-op but for the timeout; NULL means the defaults (the
  // timeout kept).
  ASSERT_EQ(tess_runtime_init_with_options(nullptr), TESS_OK) << LastError();
  ASSERT_EQ(tess_comm_collective_timeout(&seconds), TESS_OK);
  EXPECT_EQ(seconds, 4.5);
  ASSERT_EQ(tess_comm_set_collective_timeout(0), TESS_OK);  // as the later tests expect
}

class CollectivesCapiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(tess_runtime_init(), TESS_OK) << LastError(); }

  PlacementPtr p_ = Placement("cpu:[0]");
};

template <typename T>
std::vector<T> Values(size_t n, int salt) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = static_cast<T>(static_cast<int>((i * 7 + salt) % 23) - 11);
  }
  return v;
}

template <typename T>
void ExpectAllReduceIsIdentity(const tess_placement* placement) {
  for (tess_reduce_op op : {TESS_REDUCE_SUM, TESS_REDUCE_MAX, TESS_REDUCE_MIN}) {
    for (tess_allreduce_algorithm algorithm :
         {TESS_ALLREDUCE_FLAT, TESS_ALLREDUCE_AUTO, TESS_ALLREDUCE_HIERARCHICAL}) {
      std::vector<T> v = Values<T>(37, op);
      ASSERT_EQ(tess_comm_allreduce(v.data(), 37, DTypeOf<T>::value, op, placement, algorithm),
                TESS_OK)
          << "op " << op << " algorithm " << algorithm << ": " << LastError();
      EXPECT_EQ(v, Values<T>(37, op)) << "op " << op << " algorithm " << algorithm;
    }
  }
}

TEST_F(CollectivesCapiTest, AllReduceOverOneRankIsTheIdentity) {
  ExpectAllReduceIsIdentity<float>(nullptr);
  ExpectAllReduceIsIdentity<double>(p_.get());
  ExpectAllReduceIsIdentity<int32_t>(nullptr);
  ExpectAllReduceIsIdentity<int64_t>(Placement("cpu:[[0]]").get());
  // Nothing to reduce: a NULL buffer is fine.
  EXPECT_EQ(tess_comm_allreduce(nullptr, 0, TESS_DTYPE_F32, TESS_REDUCE_MAX, p_.get(),
                                TESS_ALLREDUCE_HIERARCHICAL),
            TESS_OK)
      << LastError();
}

// The call must fail with `code` and exactly `message`, leaving the buffer alone.
void ExpectAllReduceFails(tess_status code, const std::string& message, int64_t count,
                          tess_dtype dtype, tess_reduce_op op, const tess_placement* placement,
                          tess_allreduce_algorithm algorithm, bool null_buffer = false) {
  std::vector<int64_t> v = {5, 6, 7};
  EXPECT_EQ(
      tess_comm_allreduce(null_buffer ? nullptr : v.data(), count, dtype, op, placement, algorithm),
      code)
      << message;
  EXPECT_EQ(LastError(), message);
  EXPECT_EQ(v, (std::vector<int64_t>{5, 6, 7}));
}

TEST_F(CollectivesCapiTest, AllReduceBadInputs) {
  const tess_placement* p = p_.get();
  const tess_allreduce_algorithm flat = TESS_ALLREDUCE_FLAT;
  ExpectAllReduceFails(TESS_INVALID_ARGUMENT, "tess_comm_allreduce: count is -1; it must be >= 0",
                       -1, TESS_DTYPE_I64, TESS_REDUCE_SUM, p, flat);
  ExpectAllReduceFails(TESS_INVALID_ARGUMENT, "tess_comm_allreduce: buffer is NULL but count is 3",
                       3, TESS_DTYPE_I64, TESS_REDUCE_SUM, p, flat, /*null_buffer=*/true);
  ExpectAllReduceFails(
      TESS_INVALID_ARGUMENT,
      "tess_comm_allreduce: dtype 7 is not a known dtype (f32 0, f64 1, i32 2, i64 3, "
      "f16 4, bf16 5, bool 6)",
      3, 7, TESS_REDUCE_SUM, p, flat);
  // bool moves between ranks but has no reduction.
  ExpectAllReduceFails(TESS_INVALID_ARGUMENT,
                       "tess_comm_allreduce: AllReduce: dtype bool has no sum, max or min "
                       "reduction (supported: f32, f64, f16, bf16, i32, i64)",
                       3, TESS_DTYPE_BOOL, TESS_REDUCE_MAX, p, flat);
  ExpectAllReduceFails(TESS_INVALID_ARGUMENT,
                       "tess_comm_allreduce: op 3 is not a known reduce op (sum 0, max 1, min 2)",
                       3, TESS_DTYPE_I64, 3, p, flat);
  ExpectAllReduceFails(TESS_INVALID_ARGUMENT,
                       "tess_comm_allreduce: algorithm 3 is not flat 0, auto 1 or hierarchical 2",
                       3, TESS_DTYPE_I64, TESS_REDUCE_MIN, p, 3);
  ExpectAllReduceFails(
      TESS_OUT_OF_RANGE,
      "tess_comm_allreduce: placement cpu:[0,2] names rank 2 but the world has 1 ranks", 3,
      TESS_DTYPE_I64, TESS_REDUCE_SUM, Placement("cpu:[0,2]").get(), flat);
  ExpectAllReduceFails(TESS_UNIMPLEMENTED,
                       "tess_comm_allreduce: collectives on cuda placements (cuda:[0]) are not "
                       "implemented; host buffers need a cpu placement",
                       3, TESS_DTYPE_I64, TESS_REDUCE_SUM, Placement("cuda:[0]").get(), flat);
}

// The packing rule of tess_bucketed_allreducer_run, recomputed: buffers in list order,
// each starting at a 64-byte aligned offset of the open bucket, a new bucket when one
// would overflow bucket_bytes, a buffer bigger than a bucket alone; empty ones
// skipped. Returns {buckets, buckets holding one buffer (reduced in place)}.
std::pair<int64_t, int64_t> BucketOracle(const std::vector<int64_t>& counts, int64_t elem,
                                         int64_t bucket_bytes) {
  int64_t buckets = 0, singles = 0, used = 0, members = 0;
  auto close = [&] {
    if (members > 0) {
      ++buckets;
      singles += members == 1;
    }
    used = members = 0;
  };
  for (int64_t count : counts) {
    const int64_t bytes = count * elem;
    if (bytes == 0) continue;
    if (bytes > bucket_bytes) {
      close();
      members = 1;
      close();
      continue;
    }
    int64_t offset = (used + 63) / 64 * 64;
    if (members > 0 && offset + bytes > bucket_bytes) {
      close();
      offset = 0;
    }
    used = offset + bytes;
    ++members;
  }
  close();
  return {buckets, singles};
}

struct Stats {
  int64_t calls = -1, plans = -1, buckets = -1, in_place = -1;
};

Stats StatsOf(const tess_bucketed_allreducer* r) {
  tess_bucketed_allreducer_stats c = TESS_BUCKETED_ALLREDUCER_STATS_INIT;
  EXPECT_EQ(tess_bucketed_allreducer_get_stats(&c, r), TESS_OK) << LastError();
  Stats s;
  s.calls = c.calls;
  s.plans = c.plans_built;
  s.buckets = c.buckets;
  s.in_place = c.in_place_buckets;
  return s;
}

// A reducer made with bucket_bytes `bytes` (options set through the INIT macro).
tess_status CreateReducer(tess_bucketed_allreducer** out, int64_t bytes) {
  tess_bucketed_allreducer_options o = TESS_BUCKETED_ALLREDUCER_OPTIONS_INIT;
  o.bucket_bytes = bytes;
  return tess_bucketed_allreducer_create(out, &o);
}

TEST_F(CollectivesCapiTest, BucketedAllReduceOfAHundredBuffers) {
  tess_bucketed_allreducer* raw = nullptr;
  ASSERT_EQ(CreateReducer(&raw, 1024), TESS_OK) << LastError();
  ReducerPtr reducer(raw);
  // Mixed sizes: empty, tiny, mid and bigger than a 1 KiB bucket (f64: 128 elements).
  std::vector<int64_t> counts;
  for (int i = 0; i < 100; ++i) counts.push_back(i % 9 == 0 ? 0 : (i * 37) % 150);
  std::vector<std::vector<double>> data;
  std::vector<void*> buffers;
  for (int i = 0; i < 100; ++i) {
    data.push_back(Values<double>(static_cast<size_t>(counts[i]), i));
    buffers.push_back(counts[i] > 0 ? data.back().data() : nullptr);
  }
  const auto [buckets, singles] = BucketOracle(counts, 8, 1024);
  for (int call = 1; call <= 2; ++call) {
    for (tess_reduce_op op : {TESS_REDUCE_SUM, TESS_REDUCE_MAX, TESS_REDUCE_MIN}) {
      ASSERT_EQ(tess_bucketed_allreducer_run(reducer.get(), buffers.data(), counts.data(), 100,
                                             TESS_DTYPE_F64, op, call == 1 ? nullptr : p_.get()),
                TESS_OK)
          << LastError();
      for (int i = 0; i < 100; ++i) {
        ASSERT_EQ(data[i], Values<double>(static_cast<size_t>(counts[i]), i)) << "buffer " << i;
      }
    }
  }
  const Stats s = StatsOf(reducer.get());
  EXPECT_EQ(s.calls, 6);
  EXPECT_EQ(s.plans, 1) << "the same counts must reuse the plan";
  EXPECT_EQ(s.buckets, buckets);
  EXPECT_EQ(s.in_place, singles);
  EXPECT_GT(buckets, singles) << "the case must pack some buffers together";
  EXPECT_GT(singles, 0) << "the case must have buffers bigger than a bucket";
}

TEST_F(CollectivesCapiTest, BucketedAllReduceDefaultsAndEmptyLists) {
  tess_bucketed_allreducer* raw = nullptr;
  ASSERT_EQ(tess_bucketed_allreducer_create(&raw, nullptr), TESS_OK) << LastError();
  ReducerPtr reducer(raw);
  EXPECT_EQ(tess_bucketed_allreducer_run(reducer.get(), nullptr, nullptr, 0, TESS_DTYPE_F32,
                                         TESS_REDUCE_SUM, nullptr),
            TESS_OK)
      << LastError();
  // Three small f32 buffers share one default (25 MiB) bucket.
  std::vector<float> a = Values<float>(10, 1), b = Values<float>(3, 2), c = Values<float>(100, 3);
  void* buffers[] = {a.data(), b.data(), c.data()};
  const int64_t counts[] = {10, 3, 100};
  ASSERT_EQ(tess_bucketed_allreducer_run(reducer.get(), buffers, counts, 3, TESS_DTYPE_F32,
                                         TESS_REDUCE_SUM, nullptr),
            TESS_OK)
      << LastError();
  EXPECT_EQ(c, Values<float>(100, 3));
  const Stats s = StatsOf(reducer.get());
  EXPECT_EQ(s.buckets, 1);
  EXPECT_EQ(s.in_place, 0);
}

TEST_F(CollectivesCapiTest, BucketedAllReducerCreateBadInputs) {
  tess_bucketed_allreducer* const sentinel = reinterpret_cast<tess_bucketed_allreducer*>(0x1);
  tess_bucketed_allreducer* raw = sentinel;
  EXPECT_EQ(tess_bucketed_allreducer_create(nullptr, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_bucketed_allreducer_create: argument \"out\" is NULL");
  EXPECT_EQ(CreateReducer(&raw, -5), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_bucketed_allreducer_create: options->bucket_bytes is -5; expected >= 0 (0 = "
            "the default, 25 MiB)");
  EXPECT_EQ(raw, sentinel);

  // struct_size: 0 and below the first version are refused, naming the struct.
  tess_bucketed_allreducer_options o = TESS_BUCKETED_ALLREDUCER_OPTIONS_INIT;
  o.struct_size = 0;
  EXPECT_EQ(tess_bucketed_allreducer_create(&raw, &o), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_bucketed_allreducer_create: options->struct_size is 0 but "
            "tess_bucketed_allreducer_options needs at least 16 (its first version; this "
            "library's is 16): set it to sizeof(tess_bucketed_allreducer_options) or start "
            "from its _INIT macro");
  o.struct_size = sizeof(size_t);
  EXPECT_EQ(tess_bucketed_allreducer_create(&raw, &o), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(raw, sentinel);

  // A newer caller's bigger struct: zero tail accepted, nonzero tail refused.
  struct Newer {
    tess_bucketed_allreducer_options base;
    int64_t future_field;
  } newer = {TESS_BUCKETED_ALLREDUCER_OPTIONS_INIT, 0};
  newer.base.struct_size = sizeof(Newer);
  newer.base.bucket_bytes = 2048;
  ASSERT_EQ(tess_bucketed_allreducer_create(&raw, &newer.base), TESS_OK) << LastError();
  tess_bucketed_allreducer_destroy(raw);
  raw = sentinel;
  newer.future_field = 7;
  EXPECT_EQ(tess_bucketed_allreducer_create(&raw, &newer.base), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_bucketed_allreducer_create: options->struct_size is 24 but "
            "tess_bucketed_allreducer_options is 16 bytes in this library, and the caller's "
            "byte 16 past that is not zero: a newer field this library does not implement was "
            "set");
  EXPECT_EQ(raw, sentinel);
  tess_bucketed_allreducer_destroy(nullptr);
}

TEST_F(CollectivesCapiTest, BucketedAllReduceBadInputs) {
  tess_bucketed_allreducer* raw = nullptr;
  ASSERT_EQ(tess_bucketed_allreducer_create(&raw, nullptr), TESS_OK) << LastError();
  ReducerPtr reducer(raw);
  std::vector<int32_t> a = {1, 2, 3}, b = {4, 5};
  void* buffers[] = {a.data(), b.data()};
  const int64_t counts[] = {3, 2};
  const int64_t negative[] = {3, -4};
  void* with_null[] = {a.data(), nullptr};
  auto expect = [&](tess_status code, const std::string& message, tess_bucketed_allreducer* r,
                    void* const* bufs, const int64_t* cnts, tess_dtype dtype, tess_reduce_op op,
                    const tess_placement* placement) {
    EXPECT_EQ(tess_bucketed_allreducer_run(r, bufs, cnts, 2, dtype, op, placement), code)
        << message;
    EXPECT_EQ(LastError(), message);
    EXPECT_EQ(a, (std::vector<int32_t>{1, 2, 3}));
    EXPECT_EQ(b, (std::vector<int32_t>{4, 5}));
  };
  const tess_dtype i32 = TESS_DTYPE_I32;
  const tess_reduce_op sum = TESS_REDUCE_SUM;
  expect(TESS_INVALID_ARGUMENT, "tess_bucketed_allreducer_run: argument \"reducer\" is NULL",
         nullptr, buffers, counts, i32, sum, nullptr);
  expect(TESS_INVALID_ARGUMENT, "tess_bucketed_allreducer_run: argument \"buffers\" is NULL",
         reducer.get(), nullptr, counts, i32, sum, nullptr);
  expect(TESS_INVALID_ARGUMENT, "tess_bucketed_allreducer_run: argument \"counts\" is NULL",
         reducer.get(), buffers, nullptr, i32, sum, nullptr);
  expect(TESS_INVALID_ARGUMENT, "tess_bucketed_allreducer_run: counts[1] is -4; it must be >= 0",
         reducer.get(), buffers, negative, i32, sum, nullptr);
  expect(TESS_INVALID_ARGUMENT,
         "tess_bucketed_allreducer_run: buffers[1] is NULL but counts[1] is 2", reducer.get(),
         with_null, counts, i32, sum, nullptr);
  expect(TESS_INVALID_ARGUMENT,
         "tess_bucketed_allreducer_run: dtype 77 is not a known dtype (f32 0, f64 1, i32 2, i64 3, "
         "f16 4, bf16 5, bool 6)",
         reducer.get(), buffers, counts, 77, sum, nullptr);
  expect(TESS_INVALID_ARGUMENT,
         "tess_bucketed_allreducer_run: op -1 is not a known reduce op (sum 0, max 1, min 2)",
         reducer.get(), buffers, counts, i32, -1, nullptr);
  expect(TESS_OUT_OF_RANGE,
         "tess_bucketed_allreducer_run: placement cpu:[3] names rank 3 but the world has 1 ranks",
         reducer.get(), buffers, counts, i32, sum, Placement("cpu:[3]").get());
  EXPECT_EQ(StatsOf(reducer.get()).calls, 0) << "no failed call may reach the reducer";

  tess_bucketed_allreducer_stats st = TESS_BUCKETED_ALLREDUCER_STATS_INIT;
  EXPECT_EQ(tess_bucketed_allreducer_get_stats(&st, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_bucketed_allreducer_get_stats: argument \"reducer\" is NULL");
  EXPECT_EQ(tess_bucketed_allreducer_get_stats(nullptr, reducer.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_bucketed_allreducer_get_stats: argument \"out\" is NULL");
  st.struct_size = 3;
  EXPECT_EQ(tess_bucketed_allreducer_get_stats(&st, reducer.get()), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError().rfind("tess_bucketed_allreducer_get_stats: out->struct_size is 3 but "
                              "tess_bucketed_allreducer_stats needs at least 40",
                              0),
            0u)
      << LastError();
}

TEST_F(CollectivesCapiTest, BucketedAllReducerStatsFillOnlyWhatFits) {
  tess_bucketed_allreducer* raw = nullptr;
  ASSERT_EQ(tess_bucketed_allreducer_create(&raw, nullptr), TESS_OK) << LastError();
  ReducerPtr reducer(raw);
  std::vector<float> a = Values<float>(4, 1);
  void* buffers[] = {a.data()};
  const int64_t counts[] = {4};
  ASSERT_EQ(tess_bucketed_allreducer_run(reducer.get(), buffers, counts, 1, TESS_DTYPE_F32,
                                         TESS_REDUCE_SUM, nullptr),
            TESS_OK)
      << LastError();
  // A newer caller's bigger struct: the library fills its own fields and leaves the
  // rest (and struct_size) as the caller set them.
  struct Newer {
    tess_bucketed_allreducer_stats base;
    int64_t future_field;
  } newer = {TESS_BUCKETED_ALLREDUCER_STATS_INIT, -7};
  newer.base.struct_size = sizeof(Newer);
  ASSERT_EQ(tess_bucketed_allreducer_get_stats(&newer.base, reducer.get()), TESS_OK) << LastError();
  EXPECT_EQ(newer.base.struct_size, sizeof(Newer));
  EXPECT_EQ(newer.base.calls, 1);
  EXPECT_EQ(newer.base.buckets, 1);
  EXPECT_EQ(newer.future_field, -7);
}

TEST_F(CollectivesCapiTest, CollectiveTimeout) {
  // Communicators exist by now (the world's, cpu:[0]'s, their host ones): they take
  // the new value, and collectives within it still succeed.
  ASSERT_EQ(tess_comm_set_collective_timeout(2.5), TESS_OK) << LastError();
  double seconds = 0;
  ASSERT_EQ(tess_comm_collective_timeout(&seconds), TESS_OK) << LastError();
  EXPECT_EQ(seconds, 2.5);
  ExpectAllReduceIsIdentity<float>(p_.get());
  for (double bad : {-1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(tess_comm_set_collective_timeout(bad), TESS_INVALID_ARGUMENT);
    EXPECT_EQ(LastError().rfind("tess_comm_set_collective_timeout: seconds is ", 0), 0u)
        << LastError();
    EXPECT_NE(LastError().find("; it must be a finite number >= 0 (0 = no limit)"),
              std::string::npos)
        << LastError();
  }
  EXPECT_EQ(tess_comm_set_collective_timeout(-1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(
      LastError(),
      "tess_comm_set_collective_timeout: seconds is -1; it must be a finite number >= 0 (0 = no "
      "limit)");
  ASSERT_EQ(tess_comm_collective_timeout(&seconds), TESS_OK);
  EXPECT_EQ(seconds, 2.5) << "a rejected value changes nothing";
  ASSERT_EQ(tess_comm_set_collective_timeout(0), TESS_OK) << LastError();
  ASSERT_EQ(tess_comm_collective_timeout(&seconds), TESS_OK);
  EXPECT_EQ(seconds, 0);
  EXPECT_EQ(tess_comm_collective_timeout(nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_comm_collective_timeout: argument \"out\" is NULL");
}

}  // namespace
}  // namespace tessera::capi_test
