// Multi-rank tests of the NCCL backend, run under mpirun with 1..4 ranks.
//
// Two kinds of cases. Error paths, creation without a device and the helpers run on
// every machine. The collectives need one GPU per rank (NCCL refuses two ranks on one
// device); elsewhere every rank prints why it skips them. Expected values are computed
// on the host from the closed-form inputs of comm_test_util.h (Input(rank, k)), with
// plain loops, independently of NCCL.
#include "core/comm/nccl/nccl_communicator.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <nccl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "core/comm/communicator.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_world.h"
#include "core/comm/nccl/gpu_skip.h"
#include "core/comm/nccl/group_agreement.h"
#include "core/comm/nccl/local_device.h"
#include "core/comm/nccl/nccl_comm_registry.h"
#include "core/comm/nccl/nccl_error.h"
#include "core/common/exact_minmax.h"
#include "core/device/device.h"
#include "core/memory/caching_allocator.h"
#include "core/memory/device_caching_allocator.h"
#include "core/placement/placement.h"
#include "tests/comm/comm_test_util.h"

namespace tessera::comm {
namespace {

Communicator& MpiWorld() { return *MpiCommRegistry::Global().World().value(); }
int32_t Rank() { return WorldRank().value(); }
int32_t Size() { return WorldSize().value(); }
int Devices() { return device::DeviceCount().value(); }
std::string Str(int64_t v) { return std::to_string(v); }

void ExpectError(const Status& status, StatusCode code, const std::string& message) {
  EXPECT_EQ(status.code(), code) << status.ToString();
  EXPECT_EQ(status.message(), message);
}

// ---- Helpers that need no GPU ----------------------------------------------------

TEST(NcclMappingTest, EveryDTypeAndOp) {
  const std::pair<DType, ncclDataType_t> types[] = {
      {DType::kF32, ncclFloat32}, {DType::kF64, ncclFloat64}, {DType::kI32, ncclInt32},
      {DType::kI64, ncclInt64},   {DType::kF16, ncclFloat16}, {DType::kBF16, ncclBfloat16}};
  for (const auto& [dtype, nccl] : types) {
    Result<ncclDataType_t> mapped = ToNcclDataType(dtype);
    ASSERT_TRUE(mapped.ok()) << DTypeName(dtype);
    EXPECT_EQ(*mapped, nccl) << DTypeName(dtype);
  }
  ExpectError(ToNcclDataType(static_cast<DType>(17)).status(), StatusCode::kInvalidArgument,
              "ToNcclDataType: dtype value 17 is not a dtype");
  EXPECT_EQ(ToNcclRedOp(ReduceOp::kSum).value(), ncclSum);
  EXPECT_EQ(ToNcclRedOp(ReduceOp::kMax).value(), ncclMax);
  EXPECT_EQ(ToNcclRedOp(ReduceOp::kMin).value(), ncclMin);
  ExpectError(ToNcclRedOp(static_cast<ReduceOp>(9)).status(), StatusCode::kInvalidArgument,
              "ToNcclRedOp: reduce op value 9 is not sum, max or min");
}

TEST(NcclErrorTest, NamesTheCallAndNcclsText) {
  Status usage = NcclError("ncclCommInitRank", ncclInvalidUsage, nullptr);
  EXPECT_EQ(usage.code(), StatusCode::kInvalidArgument);
  const std::string prefix =
      std::string("ncclCommInitRank failed: ") + ncclGetErrorString(ncclInvalidUsage);
  EXPECT_EQ(usage.message().substr(0, prefix.size()), prefix) << usage.message();

  Status system = NcclError("ncclAllReduce", ncclSystemError, nullptr);
  EXPECT_EQ(system.code(), StatusCode::kInternal);
  EXPECT_NE(system.message().find(ncclGetErrorString(ncclSystemError)), std::string::npos)
      << system.message();
  EXPECT_EQ(NcclError("ncclSend", ncclInvalidArgument, nullptr).code(),
            StatusCode::kInvalidArgument);
}

TEST(GroupAgreementTest, AllSucceed) {
  EXPECT_TRUE(AgreeAcrossGroup(MpiWorld(), Status::Ok(), "Step").ok());
}

TEST(GroupAgreementTest, TheLowestFailedRankIsNamedEverywhere) {
  Communicator& world = MpiWorld();
  const int32_t n = world.size(), me = world.rank();
  // The last rank fails alone; then every odd rank and the last fail, with distinct codes.
  for (int round = 0; round < 2; ++round) {
    auto fails = [&](int32_t r) { return r == n - 1 || (round == 1 && r % 2 == 1); };
    auto code = [](int32_t r) {
      return r % 2 == 0 ? StatusCode::kUnavailable : StatusCode::kOutOfRange;
    };
    int32_t lowest = 0;
    while (!fails(lowest)) ++lowest;
    const Status local = fails(me) ? Status(code(me), "local failure on " + Str(me)) : Status::Ok();
    const Status agreed = AgreeAcrossGroup(world, local, "Step");
    if (fails(me)) {
      ExpectError(agreed, code(me), "local failure on " + Str(me));
    } else {
      ExpectError(agreed, code(lowest),
                  "Step: rank " + Str(lowest) + " of this " + Str(n) + "-rank group failed (" +
                      StatusCodeName(code(lowest)) + "), so no rank goes on; see rank " +
                      Str(lowest) + "'s error");
    }
  }
}

// Sets an environment variable for one scope and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value == nullptr) {
      unsetenv(name);
    } else {
      setenv(name, value, 1);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

constexpr const char* kLocalRankVar = "OMPI_COMM_WORLD_LOCAL_RANK";

TEST(LocalDeviceTest, LocalRankUnderMpirunOnOneHost) {
  // mpirun_test.sh starts every rank on this host, so local and world ranks coincide.
  Result<int32_t> local = LocalRank();
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  EXPECT_EQ(*local, Rank());
}

TEST(LocalDeviceTest, LocalRankFromTheEnvironment) {
  {
    ScopedEnv env(kLocalRankVar, "5");
    EXPECT_EQ(LocalRank().value(), 5);
  }
  for (const char* bad : {"abc", "-1", "3x", "99999999999999999999"}) {
    ScopedEnv env(kLocalRankVar, bad);
    ExpectError(LocalRank().status(), StatusCode::kInvalidArgument,
                std::string("environment variable OMPI_COMM_WORLD_LOCAL_RANK is \"") + bad +
                    "\"; it must be an integer >= 0");
  }
  {
    ScopedEnv env(kLocalRankVar, "99999999999");
    ExpectError(LocalRank().status(), StatusCode::kOutOfRange,
                "LocalRank: OMPI_COMM_WORLD_LOCAL_RANK is 99999999999, beyond any rank");
  }
  // Empty means unset, as for every TESSERA_* setting.
  for (const char* unset_value : {"", static_cast<const char*>(nullptr)}) {
    ScopedEnv unset(kLocalRankVar, unset_value);
    if (Size() == 1) {
      EXPECT_EQ(LocalRank().value(), 0) << "a world of one rank is its host's only rank";
    } else {
      ExpectError(LocalRank().status(), StatusCode::kFailedPrecondition,
                  "LocalRank: OMPI_COMM_WORLD_LOCAL_RANK is unset in a world of " + Str(Size()) +
                      " ranks; start the program with Open MPI's mpirun");
    }
  }
}

TEST(LocalDeviceTest, DeviceChecks) {
  ExpectError(CheckDevice(-3), StatusCode::kInvalidArgument, "CUDA device -3 is negative");
  const int count = Devices();
  if (count == 0) {
    ExpectError(CheckDevice(0), StatusCode::kUnavailable, "no CUDA device visible");
    ExpectError(DefaultDevice().status(), StatusCode::kUnavailable, "no CUDA device visible");
    return;
  }
  EXPECT_TRUE(CheckDevice(count - 1).ok());
  ExpectError(CheckDevice(count), StatusCode::kOutOfRange,
              "CUDA device " + Str(count) + " is not one of the " + Str(count) +
                  " visible devices (0.." + Str(count - 1) + ")");
  EXPECT_EQ(DefaultDevice().value(), LocalRank().value() % count);
}

// ---- Creation errors (collective, but no rank may hang) --------------------------

TEST(NcclCreateTest, WithoutADeviceEveryRankFails) {
  if (Devices() > 0) GTEST_SKIP() << "a CUDA device is visible";
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto comm = NcclCommunicator::Create(MpiWorld());
    ExpectError(comm.status(), StatusCode::kUnavailable,
                "NcclCommunicator::Create: no CUDA device visible");
    // The registry neither hangs nor caches the failure.
    ExpectError(NcclCommRegistry::Global().World().status(), StatusCode::kUnavailable,
                "NcclCommunicator::Create: no CUDA device visible");
  }
}

TEST(NcclCreateTest, ABadDeviceOnOneRankStopsEveryRank) {
  const int32_t n = Size(), me = Rank();
  auto comm = NcclCommunicator::Create(MpiWorld(), me == 0 ? -5 : NcclCommunicator::kDefaultDevice);
  if (me == 0) {
    ExpectError(comm.status(), StatusCode::kInvalidArgument,
                "NcclCommunicator::Create: CUDA device -5 is negative");
  } else if (Devices() == 0) {
    ExpectError(comm.status(), StatusCode::kUnavailable,
                "NcclCommunicator::Create: no CUDA device visible");
  } else {
    ExpectError(comm.status(), StatusCode::kInvalidArgument,
                "NcclCommunicator::Create: rank 0 of this " + Str(n) +
                    "-rank group failed (INVALID_ARGUMENT), so no rank goes on; see rank 0's "
                    "error");
  }
}

TEST(NcclRegistryTest, ArgumentErrors) {
  NcclCommRegistry& registry = NcclCommRegistry::Global();
  const int32_t n = Size(), me = Rank();
  Placement cpu = Placement::Parse("cpu:0-" + Str(n - 1)).value();
  ExpectError(registry.ForPlacement(cpu).status(), StatusCode::kInvalidArgument,
              "NcclCommRegistry::ForPlacement: placement " + cpu.ToString() +
                  " is on cpu; NCCL communicators are for cuda placements");
  ExpectError(registry.ForAxis(cpu, 0).status(), StatusCode::kInvalidArgument,
              "NcclCommRegistry::ForAxis: placement " + cpu.ToString() +
                  " is on cpu; NCCL communicators are for cuda placements");

  Placement beyond = Placement::Parse("cuda:[0," + Str(n) + "]").value();
  ExpectError(registry.ForPlacement(beyond).status(), StatusCode::kOutOfRange,
              "placement " + beyond.ToString() + " names rank " + Str(n) + " but the world has " +
                  Str(n) + " ranks");

  Placement all = Placement::Parse("cuda:0-" + Str(n - 1)).value();
  EXPECT_EQ(registry.ForAxis(all, 1).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(registry.ForAxis(all, -1).status().code(), StatusCode::kOutOfRange);

  if (n >= 2) {
    // Rank n-1 alone: the other ranks are not asked to take part and make no call.
    Placement last = Placement::Parse("cuda:[" + Str(n - 1) + "]").value();
    if (me != n - 1) {
      ExpectError(registry.ForPlacement(last).status(), StatusCode::kNotFound,
                  "rank " + Str(me) + " is not in placement " + last.ToString() +
                      ", so it has no communicator for it");
    }
  }
}

// ---- Collectives on the GPU ------------------------------------------------------

// Why this process cannot run the GPU cases, or "" when it can.
std::string GpuSkipReason() { return NcclGpuSkipReason(Size()); }

// Device copy of a host vector; NULL when empty, as callers pass for empty slices.
template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(const std::vector<T>& host) : size_(host.size()) {
    if (size_ == 0) return;
    EXPECT_EQ(cudaMalloc(&data_, size_ * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data_, host.data(), size_ * sizeof(T), cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { cudaFree(data_); }

  T* get() { return data_; }
  std::vector<T> ToHost() const {
    std::vector<T> host(size_);
    if (size_ > 0) {
      EXPECT_EQ(cudaMemcpy(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost),
                cudaSuccess);
    }
    return host;
  }

 private:
  size_t size_;
  T* data_ = nullptr;
};

class NcclGpuTest : public testing::Test {
 protected:
  void SetUp() override {
    const std::string reason = GpuSkipReason();
    if (!reason.empty()) {
      std::printf("SKIPPED: %s\n", reason.c_str());
      GTEST_SKIP() << reason;
    }
    auto comm = NcclCommRegistry::Global().World();
    ASSERT_TRUE(comm.ok()) << comm.status().ToString();
    comm_ = *comm;
  }

  NcclCommunicator* comm_ = nullptr;
};

template <typename T>
class NcclTypedTest : public NcclGpuTest {};
using NcclTypes = testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(NcclTypedTest, NcclTypes);

template <typename T>
std::vector<T> Inputs(int64_t rank, int64_t count) {
  std::vector<T> values(count);
  for (int64_t k = 0; k < count; ++k) values[k] = T(Input(rank, k));
  return values;
}

TYPED_TEST(NcclTypedTest, AllReduceEveryOpCountAndInPlace) {
  using T = TypeParam;
  NcclCommunicator& c = *this->comm_;
  const DType dtype = DTypeOf<T>::value;
  for (int64_t count : {0, 1, 7, 1000, (1 << 20) + 3}) {
    for (ReduceOp op : kOps) {
      DeviceArray<T> send(Inputs<T>(c.rank(), count));
      DeviceArray<T> recv(std::vector<T>(count, T(99)));
      DeviceArray<T> in_place(Inputs<T>(c.rank(), count));
      ASSERT_TRUE(c.AllReduce(send.get(), recv.get(), count, dtype, op).ok());
      ASSERT_TRUE(c.AllReduce(in_place.get(), in_place.get(), count, dtype, op).ok());
      const std::vector<T> out = recv.ToHost(), out_in_place = in_place.ToHost();
      int64_t wrong = 0;
      for (int64_t k = 0; k < count; ++k) {
        const T expected = T(Reduced(op, c.size(), k));
        wrong += out[k] != expected;
        wrong += out_in_place[k] != expected;
      }
      EXPECT_EQ(wrong, 0) << ReduceOpName(op) << " count " << count;
    }
  }
}

TYPED_TEST(NcclTypedTest, ReduceToEveryRoot) {
  using T = TypeParam;
  NcclCommunicator& c = *this->comm_;
  const DType dtype = DTypeOf<T>::value;
  const int64_t count = 11;
  for (int32_t root = 0; root < c.size(); ++root) {
    for (ReduceOp op : kOps) {
      DeviceArray<T> send(Inputs<T>(c.rank(), count));
      DeviceArray<T> recv(std::vector<T>(count, T(99)));
      // Non-roots may pass NULL.
      T* out = c.rank() == root ? recv.get() : nullptr;
      ASSERT_TRUE(c.Reduce(send.get(), out, count, dtype, op, root).ok());
      const std::vector<T> got = recv.ToHost();
      for (int64_t k = 0; k < count; ++k) {
        EXPECT_EQ(got[k], c.rank() == root ? T(Reduced(op, c.size(), k)) : T(99))
            << "root " << root << " " << ReduceOpName(op);
      }
    }
  }
}

TYPED_TEST(NcclTypedTest, ReduceScatterVEvenAndUneven) {
  using T = TypeParam;
  NcclCommunicator& c = *this->comm_;
  const DType dtype = DTypeOf<T>::value;
  const std::vector<std::vector<int64_t>> layouts = {
      std::vector<int64_t>(c.size(), 5), std::vector<int64_t>(c.size(), 0), UnevenCounts(c.size())};
  for (const std::vector<int64_t>& counts : layouts) {
    const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t{0});
    const int64_t begin = std::accumulate(counts.begin(), counts.begin() + c.rank(), int64_t{0});
    const int64_t mine = counts[c.rank()];
    for (ReduceOp op : kOps) {
      DeviceArray<T> send(Inputs<T>(c.rank(), total));
      DeviceArray<T> recv(std::vector<T>(mine + 1, T(99)));
      ASSERT_TRUE(c.ReduceScatterV(send.get(), recv.get(), counts, dtype, op).ok());
      const std::vector<T> got = recv.ToHost();
      for (int64_t k = 0; k < mine; ++k) {
        EXPECT_EQ(got[k], T(Reduced(op, c.size(), begin + k))) << ReduceOpName(op) << " k=" << k;
      }
      EXPECT_EQ(got[mine], T(99)) << "wrote past its block";
    }
  }
}

// f32 / f64 max and min go through order-preserving integer keys (ordered_keys.h):
// NaN held by one rank wins, -0.0 orders below +0.0, and ±inf, subnormals and other
// values come back bit for bit, on all-reduce, reduce and reduce-scatter alike. The
// reference is ExactMax / ExactMin over the ranks' host values (exact_minmax.h, the
// definition every other path uses and tests against NumPy's rules).
template <typename T>
T SpecialInput(int32_t rank, int64_t k) {
  const T specials[] = {std::numeric_limits<T>::quiet_NaN(),
                        T(0.0),
                        T(-0.0),
                        std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::denorm_min(),
                        -std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::max(),
                        T(1.5),
                        T(-2.25)};
  return specials[(k * 7 + rank * 3 + k / 10) % 10];
}

template <typename T>
bool SameValue(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
class NcclFloatTest : public NcclGpuTest {};
using NcclFloatTypes = testing::Types<float, double>;
TYPED_TEST_SUITE(NcclFloatTest, NcclFloatTypes);

TYPED_TEST(NcclFloatTest, MaxMinKeepNaNAndSignedZeroOnEveryReduction) {
  using T = TypeParam;
  NcclCommunicator& c = *this->comm_;
  const DType dtype = DTypeOf<T>::value;
  const int32_t n = c.size(), me = c.rank();
  const int64_t count = 1000;
  for (ReduceOp op : {ReduceOp::kMax, ReduceOp::kMin}) {
    std::vector<T> mine(count), expected(count);
    for (int64_t k = 0; k < count; ++k) {
      mine[k] = SpecialInput<T>(me, k);
      expected[k] = SpecialInput<T>(0, k);
      for (int32_t r = 1; r < n; ++r) {
        const T v = SpecialInput<T>(r, k);
        expected[k] = op == ReduceOp::kMax ? ExactMax(expected[k], v) : ExactMin(expected[k], v);
      }
    }
    DeviceArray<T> send(mine);
    DeviceArray<T> all(std::vector<T>(count, T(99)));
    ASSERT_TRUE(c.AllReduce(send.get(), all.get(), count, dtype, op).ok());
    DeviceArray<T> root(std::vector<T>(count, T(99)));
    ASSERT_TRUE(c.Reduce(send.get(), me == 0 ? root.get() : nullptr, count, dtype, op, 0).ok());
    const std::vector<int64_t> counts = UnevenCounts(n);
    const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t{0});
    const int64_t begin = std::accumulate(counts.begin(), counts.begin() + me, int64_t{0});
    ASSERT_LE(total, count);
    DeviceArray<T> scattered(std::vector<T>(counts[me] + 1, T(99)));
    ASSERT_TRUE(c.ReduceScatterV(send.get(), scattered.get(), counts, dtype, op).ok());
    // The send buffer is left as it was (the keys live in scratch).
    const std::vector<T> sent = send.ToHost(), got = all.ToHost(), got_root = root.ToHost(),
                         got_scattered = scattered.ToHost();
    int64_t wrong = 0;
    for (int64_t k = 0; k < count; ++k) {
      wrong += !SameValue(sent[k], mine[k]);
      wrong += !SameValue(got[k], expected[k]);
      if (me == 0) wrong += !SameValue(got_root[k], expected[k]);
    }
    for (int64_t k = 0; k < counts[me]; ++k) {
      wrong += !SameValue(got_scattered[k], expected[begin + k]);
    }
    EXPECT_EQ(got_scattered[counts[me]], T(99)) << "wrote past its block";
    EXPECT_EQ(wrong, 0) << ReduceOpName(op);
  }
}

TYPED_TEST(NcclTypedTest, AllGatherVPackedStridedAndInPlace) {
  using T = TypeParam;
  NcclCommunicator& c = *this->comm_;
  const DType dtype = DTypeOf<T>::value;
  const int32_t n = c.size(), me = c.rank();
  // Equal counts take ncclAllGather (straight, or through scratch when strided); uneven
  // ones take grouped broadcasts.
  for (const std::vector<int64_t>& counts :
       {std::vector<int64_t>(n, 4), std::vector<int64_t>(n, 0), UnevenCounts(n)}) {
    const int64_t mine = counts[me];
    const std::vector<T> local = Inputs<T>(me, mine);
    DeviceArray<T> send(local);

    const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t{0});
    DeviceArray<T> packed(std::vector<T>(total, T(99)));
    ASSERT_TRUE(c.AllGatherV(send.get(), mine, packed.get(), counts, {}, dtype).ok());
    const std::vector<T> got = packed.ToHost();
    int64_t at = 0;
    for (int32_t r = 0; r < n; ++r) {
      for (int64_t k = 0; k < counts[r]; ++k) EXPECT_EQ(got[at++], T(Input(r, k))) << "from " << r;
    }

    // Blocks in reverse rank order with a 2-element gap after each.
    std::vector<int64_t> displs(n);
    int64_t extent = 0;
    for (int32_t r = n - 1; r >= 0; --r) {
      displs[r] = extent;
      extent += counts[r] + 2;
    }
    DeviceArray<T> strided(std::vector<T>(extent, T(99)));
    ASSERT_TRUE(c.AllGatherV(send.get(), mine, strided.get(), counts, displs, dtype).ok());
    const std::vector<T> got_strided = strided.ToHost();
    for (int32_t r = 0; r < n; ++r) {
      for (int64_t k = 0; k < counts[r]; ++k) {
        EXPECT_EQ(got_strided[displs[r] + k], T(Input(r, k))) << "from " << r;
      }
      EXPECT_EQ(got_strided[displs[r] + counts[r]], T(99)) << "gap after rank " << r;
    }

    // In place: this rank's block already sits at its displacement.
    std::vector<T> start(extent, T(99));
    std::copy(local.begin(), local.end(), start.begin() + displs[me]);
    DeviceArray<T> in_place(start);
    ASSERT_TRUE(
        c.AllGatherV(in_place.get() + displs[me], mine, in_place.get(), counts, displs, dtype)
            .ok());
    EXPECT_EQ(in_place.ToHost(), got_strided);
  }
}

TYPED_TEST(NcclTypedTest, AllToAllVUnevenWithDisplacementsAndPacked) {
  using T = TypeParam;
  NcclCommunicator& c = *this->comm_;
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
  std::vector<T> host_send(send_total);
  for (int32_t q = 0; q < n; ++q) {
    for (int64_t k = 0; k < send_counts[q]; ++k) {
      host_send[send_displs[q] + k] = T(Exchanged(me, q, k));
    }
  }
  DeviceArray<T> send(host_send);
  DeviceArray<T> recv(std::vector<T>(recv_total, T(-1)));
  ASSERT_TRUE(
      c.AllToAllV(send.get(), send_counts, send_displs, recv.get(), recv_counts, recv_displs, dtype)
          .ok());
  const std::vector<T> got = recv.ToHost();
  for (int32_t p = 0; p < n; ++p) {
    EXPECT_EQ(got[recv_displs[p] - 1], T(-1)) << "gap before the block from " << p;
    for (int64_t k = 0; k < recv_counts[p]; ++k) {
      EXPECT_EQ(got[recv_displs[p] + k], T(Exchanged(p, me, k))) << "from " << p;
    }
  }

  DeviceArray<T> packed(std::vector<T>(recv_total - n, T(-1)));
  ASSERT_TRUE(c.AllToAllV(send.get(), send_counts, {}, packed.get(), recv_counts, {}, dtype).ok());
  const std::vector<T> got_packed = packed.ToHost();
  int64_t at = 0;
  for (int32_t p = 0; p < n; ++p) {
    for (int64_t k = 0; k < recv_counts[p]; ++k) {
      EXPECT_EQ(got_packed[at++], T(Exchanged(p, me, k)));
    }
  }
}

TYPED_TEST(NcclTypedTest, BroadcastFromEveryRoot) {
  using T = TypeParam;
  NcclCommunicator& c = *this->comm_;
  for (int64_t count : {0, 9}) {
    for (int32_t root = 0; root < c.size(); ++root) {
      DeviceArray<T> buffer(Inputs<T>(c.rank(), count));
      ASSERT_TRUE(c.Broadcast(buffer.get(), count, DTypeOf<T>::value, root).ok());
      EXPECT_EQ(buffer.ToHost(), Inputs<T>(root, count)) << "root " << root;
    }
  }
}

TYPED_TEST(NcclTypedTest, SendRecvRing) {
  using T = TypeParam;
  NcclCommunicator& c = *this->comm_;
  if (c.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const DType dtype = DTypeOf<T>::value;
  const int32_t next = (c.rank() + 1) % c.size(), prev = (c.rank() + c.size() - 1) % c.size();
  DeviceArray<T> out(Inputs<T>(c.rank(), 5));
  DeviceArray<T> in(std::vector<T>(5, T(0)));
  // Even ranks send first, odd ranks receive first, so no cycle of blocked sends.
  if (c.rank() % 2 == 0) {
    ASSERT_TRUE(c.Send(out.get(), 5, dtype, next, 3).ok());
    ASSERT_TRUE(c.Recv(in.get(), 5, dtype, prev, 3).ok());
  } else {
    ASSERT_TRUE(c.Recv(in.get(), 5, dtype, prev, 3).ok());
    ASSERT_TRUE(c.Send(out.get(), 5, dtype, next, 3).ok());
  }
  EXPECT_EQ(in.ToHost(), Inputs<T>(prev, 5));
}

// ---- AllToAllBlocks ----------------------------------------------------------------

// A block all-to-all every rank can describe for every rank (pure functions of the
// ranks), so rank q's host oracle knows what each p sent it.
struct BlockExchange {
  std::function<Shape(int32_t p)> send_tensor;                 // p's send buffer
  std::function<Shape(int32_t q)> recv_tensor;                 // q's recv buffer
  std::function<BlockView(int32_t p, int32_t q)> send_block;   // what p sends q
  std::function<BlockView(int32_t q, int32_t p)> recv_block;   // where q puts p's
  std::function<int64_t(int32_t p, int64_t flat)> send_value;  // element of p's buffer
};

constexpr int64_t kUntouched = -1;

// Runs `x` on `c` and checks this rank's recv buffer element by element against the
// oracle: each block from p holds p's send block to this rank in row-major pairing,
// and every element outside the blocks is still kUntouched. Returns the buffer.
template <typename T>
std::vector<T> ExchangeBlocks(NcclCommunicator& c, const BlockExchange& x) {
  const int32_t n = c.size(), me = c.rank();
  const Shape send_shape = x.send_tensor(me), recv_shape = x.recv_tensor(me);
  std::vector<T> host_send(send_shape.num_elements());
  for (int64_t i = 0; i < send_shape.num_elements(); ++i) host_send[i] = T(x.send_value(me, i));
  std::vector<BlockView> send_blocks(n), recv_blocks(n);
  for (int32_t q = 0; q < n; ++q) {
    send_blocks[q] = x.send_block(me, q);
    recv_blocks[q] = x.recv_block(me, q);
  }
  DeviceArray<T> send(host_send);
  DeviceArray<T> recv(std::vector<T>(recv_shape.num_elements(), T(kUntouched)));
  const Status status =
      c.AllToAllBlocks(send.get(), send_blocks, recv.get(), recv_blocks, DTypeOf<T>::value);
  EXPECT_TRUE(status.ok()) << status.ToString();
  const std::vector<T> got = recv.ToHost();

  std::vector<int64_t> expected(recv_shape.num_elements(), kUntouched);
  for (int32_t p = 0; p < n; ++p) {
    const std::vector<int64_t> from = BoxIndices(x.send_block(p, me));
    const std::vector<int64_t> into = BoxIndices(recv_blocks[p]);
    EXPECT_EQ(from.size(), into.size()) << "the test's blocks from " << p << " do not pair up";
    for (size_t e = 0; e < std::min(from.size(), into.size()); ++e) {
      expected[into[e]] = x.send_value(p, from[e]);
    }
  }
  int64_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == T(expected[i])) continue;
    if (++wrong <= 5) {
      ADD_FAILURE() << "recv[" << i << "] is " << got[i] << ", expected " << expected[i];
    }
  }
  EXPECT_EQ(wrong, 0);
  return got;
}

// OneFlow's balanced split: the first dim % n parts get one extra element.
int64_t PartSize(int64_t dim, int64_t n, int64_t r) { return dim / n + (r < dim % n ? 1 : 0); }
int64_t PartStart(int64_t dim, int64_t n, int64_t r) {
  return r * (dim / n) + std::min(r, dim % n);
}

// Rank r's piece of `logical` split along `axis` over n ranks.
Shape Piece(const Shape& logical, int axis, int64_t n, int64_t r) {
  Shape piece = logical;
  piece.set_dim(axis, PartSize(logical.dim(axis), n, r));
  return piece;
}

// Flat index in `logical` of element `flat` of the piece at `start` along `axis`.
int64_t LogicalIndex(const Shape& logical, const Shape& piece, int axis, int64_t start,
                     int64_t flat) {
  int64_t coord[Shape::kMaxDims];
  for (int d = piece.ndim() - 1; d >= 0; --d) {
    coord[d] = flat % piece.dim(d);
    flat /= piece.dim(d);
  }
  coord[axis] += start;
  int64_t index = 0;
  for (int d = 0; d < logical.ndim(); ++d) index = index * logical.dim(d) + coord[d];
  return index;
}

// S(from) -> S(to) of `logical` (from != to): p sends q the part of its piece that
// lies in q's target piece. Send values are logical indices, so the result can be
// checked against the logical tensor itself.
BlockExchange Resplit(const Shape& logical, int from, int to, int32_t n) {
  BlockExchange x;
  x.send_tensor = [=](int32_t p) { return Piece(logical, from, n, p); };
  x.recv_tensor = [=](int32_t q) { return Piece(logical, to, n, q); };
  auto box = [=](int32_t p, int32_t q) {
    Shape b = Piece(logical, from, n, p);
    b.set_dim(to, PartSize(logical.dim(to), n, q));
    return b;
  };
  x.send_block = [=](int32_t p, int32_t q) {
    int64_t begin[Shape::kMaxDims] = {};
    begin[to] = PartStart(logical.dim(to), n, q);
    return BlockView::Box(Piece(logical, from, n, p), begin, box(p, q));
  };
  x.recv_block = [=](int32_t q, int32_t p) {
    int64_t begin[Shape::kMaxDims] = {};
    begin[from] = PartStart(logical.dim(from), n, p);
    return BlockView::Box(Piece(logical, to, n, q), begin, box(p, q));
  };
  x.send_value = [=](int32_t p, int64_t flat) {
    return LogicalIndex(logical, Piece(logical, from, n, p), from,
                        PartStart(logical.dim(from), n, p), flat);
  };
  return x;
}

TYPED_TEST(NcclTypedTest, AllToAllBlocksResplitsA3dTensor) {
  using T = TypeParam;
  NcclCommunicator& c = *this->comm_;
  const int32_t n = c.size(), me = c.rank();
  // [7,5,3] splits unevenly on 2-4 ranks; [2,2,3] leaves rank 2 (and 3) empty pieces,
  // so empty blocks and NULL buffers.
  for (const Shape& logical : {Shape{7, 5, 3}, Shape{2, 2, 3}}) {
    for (const auto& [from, to] :
         std::vector<std::pair<int, int>>{{0, 1}, {1, 0}, {0, 2}, {2, 1}}) {
      SCOPED_TRACE("S(" + Str(from) + ") -> S(" + Str(to) + ") of " + logical.ToString());
      const std::vector<T> got = ExchangeBlocks<T>(c, Resplit(logical, from, to, n));
      // The whole piece is covered and holds the logical tensor's values.
      const Shape piece = Piece(logical, to, n, me);
      const int64_t start = PartStart(logical.dim(to), n, me);
      ASSERT_EQ(static_cast<int64_t>(got.size()), piece.num_elements());
      for (int64_t i = 0; i < piece.num_elements(); ++i) {
        EXPECT_EQ(got[i], T(LogicalIndex(logical, piece, to, start, i))) << "element " << i;
      }
    }
  }
}

// Element (i, j, k) of rank p's [4,6,5] send tensor, by flat index.
int64_t CellValue(int32_t p, int64_t flat) { return p * 1000 + flat; }

TEST_F(NcclGpuTest, AllToAllBlocksStridedOnBothSides) {
  NcclCommunicator& c = *comm_;
  const int32_t n = c.size();
  // Rank q receives a 4 x width(q) x 3 box from every rank; rank 1 receives nothing.
  auto width = [](int64_t q) -> int64_t { return q == 1 ? 0 : 2 + q % 2; };
  BlockExchange x;
  x.send_tensor = [](int32_t) { return Shape{4, 6, 5}; };
  // Columns [q % 3, q % 3 + width(q)), depth [1, 4): strided along two dims.
  x.send_block = [&](int32_t, int32_t q) {
    const int64_t begin[] = {0, q % 3, 1};
    return BlockView::Box(Shape{4, 6, 5}, begin, Shape{4, width(q), 3});
  };
  // The block from p at columns [p * w, (p + 1) * w), depth [2, 5) of a
  // 4 x (n * w + 1) x 5 tensor: strided too, with gaps that must stay untouched. The
  // own pair pairs up level by level: one strided device-to-device copy.
  x.recv_tensor = [&](int32_t q) { return Shape{4, n * width(q) + 1, 5}; };
  x.recv_block = [&](int32_t q, int32_t p) {
    const int64_t begin[] = {0, p * width(q), 2};
    return BlockView::Box(x.recv_tensor(q), begin, Shape{4, width(q), 3});
  };
  x.send_value = CellValue;
  ExchangeBlocks<float>(c, x);
  ExchangeBlocks<int64_t>(c, x);

  // The same blocks received as contiguous runs in reverse rank order: sent from
  // staging, received in place.
  x.recv_tensor = [&](int32_t q) { return Shape{n * 4 * width(q) * 3}; };
  x.recv_block = [&](int32_t q, int32_t p) {
    const int64_t count = 4 * width(q) * 3;
    return BlockView::Run((n - 1 - p) * count, count);
  };
  ExchangeBlocks<double>(c, x);
}

// To every rank a [2,3,2] box of a [3,5,4] tensor (runs of 2, 4 apart, then 20),
// received as a [3,2,2] box (runs of 2, 3 apart, then 9): the same 12 elements in
// another shape, so even the own pair detours through staging.
BlockExchange Reshaped(int32_t n) {
  BlockExchange x;
  x.send_tensor = [](int32_t) { return Shape{3, 5, 4}; };
  x.send_block = [](int32_t, int32_t q) {
    const int64_t begin[] = {1, q % 3, 1};
    return BlockView::Box(Shape{3, 5, 4}, begin, Shape{2, 3, 2});
  };
  x.recv_tensor = [=](int32_t) { return Shape{3 * n, 3, 3}; };
  x.recv_block = [=](int32_t, int32_t p) {
    const int64_t begin[] = {3 * p, 1, 1};
    return BlockView::Box(Shape{3 * n, 3, 3}, begin, Shape{3, 2, 2});
  };
  x.send_value = CellValue;
  return x;
}

TEST_F(NcclGpuTest, AllToAllBlocksOfOtherShapesPairInRowMajorOrder) {
  NcclCommunicator& c = *comm_;
  const int32_t n = c.size();
  BlockExchange x = Reshaped(n);
  ExchangeBlocks<int32_t>(c, x);

  // Sent contiguous (rows of a [n,12] tensor), received strided: unpacked from staging.
  x.send_tensor = [=](int32_t) { return Shape{n, 12}; };
  x.send_block = [=](int32_t, int32_t q) {
    const int64_t begin[] = {q, 0};
    return BlockView::Box(Shape{n, 12}, begin, Shape{1, 12});
  };
  ExchangeBlocks<float>(c, x);
}

TEST_F(NcclGpuTest, AllToAllBlocksOfRunsNeedNoStaging) {
  // A fresh communicator, so its staging is known to start empty.
  Result<std::unique_ptr<NcclCommunicator>> fresh = NcclCommunicator::Create(MpiWorld());
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  NcclCommunicator& c = **fresh;
  const int32_t n = c.size();
  BlockExchange x;
  // Two elements to each rank; each block from p lands after a one-element gap. Full
  // rows of a 2-d tensor are runs too.
  x.send_tensor = [=](int32_t) { return Shape{n, 2}; };
  x.send_block = [=](int32_t, int32_t q) {
    const int64_t begin[] = {q, 0};
    return BlockView::Box(Shape{n, 2}, begin, Shape{1, 2});
  };
  x.recv_tensor = [=](int32_t) { return Shape{3 * n}; };
  x.recv_block = [](int32_t, int32_t p) { return BlockView::Run(3 * p + 1, 2); };
  x.send_value = [](int32_t p, int64_t flat) { return Exchanged(p, flat / 2, flat % 2); };
  ExchangeBlocks<int64_t>(c, x);
  EXPECT_EQ(c.staging_bytes(), 0u) << "contiguous blocks must move in place";
  // Every block empty: nothing moves, nothing is touched.
  x.send_tensor = x.recv_tensor = [](int32_t) { return Shape{0}; };
  x.send_block = x.recv_block = [](int32_t, int32_t) { return BlockView::Run(0, 0); };
  ExchangeBlocks<float>(c, x);
  EXPECT_EQ(c.staging_bytes(), 0u);
}

TEST_F(NcclGpuTest, AllToAllBlocksWarmCallsAllocateNoDeviceMemory) {
  NcclCommunicator& c = *comm_;
  memory::CachingAllocator* device_cache = memory::DeviceCachingAllocator(c.device()).value();
  const BlockExchange reshaped = Reshaped(c.size());
  const BlockExchange resplit = Resplit(Shape{6, 5, 4}, 2, 0, c.size());
  ExchangeBlocks<float>(c, reshaped);
  const size_t staged = c.staging_bytes();
  EXPECT_GE(staged, 12 * sizeof(float)) << "the own pair's detour is staged";
  const uint64_t allocs = device_cache->stats().num_allocs;
  for (int round = 0; round < 3; ++round) {
    ExchangeBlocks<float>(c, reshaped);
    ExchangeBlocks<float>(c, resplit);
  }
  EXPECT_EQ(device_cache->stats().num_allocs, allocs) << "a warm call took device memory";
  EXPECT_EQ(c.staging_bytes(), staged);
}

TEST_F(NcclGpuTest, AllToAllBlocksArgumentErrorsAsTheMpiBackend) {
  NcclCommunicator& c = *comm_;
  const int32_t n = c.size(), me = c.rank();
  const std::string ns = Str(n), mes = Str(me);
  DeviceArray<float> x(std::vector<float>(16, 0.0f));
  std::vector<BlockView> ones(n, BlockView::Run(0, 1));
  ExpectError(c.AllToAllBlocks(x.get(), std::vector<BlockView>(n + 1), x.get(), ones, DType::kF32),
              StatusCode::kInvalidArgument,
              "AllToAllBlocks: send_blocks has " + Str(n + 1) +
                  " entries but the communicator has " + ns + " ranks");
  std::vector<BlockView> bad = ones;
  const int64_t begin[] = {2};
  bad[0] = BlockView::Box(Shape{4}, begin, Shape{3});
  ExpectError(c.AllToAllBlocks(x.get(), bad, x.get(), ones, DType::kF32), StatusCode::kOutOfRange,
              "AllToAllBlocks: send_blocks[0]: box [3] at begin[0] = 2 does not fit dim 0 of the "
              "tensor [4]");
  bad = ones;
  bad[me] = BlockView::Run(0, 2);
  ExpectError(c.AllToAllBlocks(x.get(), ones, x.get(), bad, DType::kF32),
              StatusCode::kInvalidArgument,
              "AllToAllBlocks: this rank (" + mes +
                  ") sends 1 elements to itself but recv_blocks[" + mes + "] holds 2");
  ExpectError(c.AllToAllBlocks(x.get(), ones, nullptr, ones, DType::kF32),
              StatusCode::kInvalidArgument,
              "AllToAllBlocks: recv is NULL but holds " + ns + " elements");
  const int64_t limit = std::numeric_limits<int64_t>::max() / 8;
  const int64_t origin[] = {0, 0};
  bad[0] = BlockView::Box(Shape{2, limit / 2 + 1}, origin, Shape{2, limit / 2 + 1});
  ExpectError(c.AllToAllBlocks(x.get(), bad, x.get(), ones, DType::kF32), StatusCode::kOutOfRange,
              "AllToAllBlocks: send_blocks[0] holds " + Str(2 * (limit / 2 + 1)) +
                  " elements, more than this backend's limit of " + Str(limit));
  // Every rank saw the same local errors; the communicator still works.
  EXPECT_TRUE(c.Barrier().ok());
}

TEST_F(NcclGpuTest, DeviceStreamAndBarrier) {
  NcclCommunicator& c = *comm_;
  EXPECT_EQ(c.rank(), Rank());
  EXPECT_EQ(c.size(), Size());
  EXPECT_EQ(c.device(), LocalRank().value() % Devices());
  EXPECT_NE(c.comm(), nullptr);
  EXPECT_NE(c.stream(), nullptr);
  int before = -1;
  ASSERT_EQ(cudaGetDevice(&before), cudaSuccess);
  EXPECT_TRUE(c.Barrier().ok());
  int after = -1;
  ASSERT_EQ(cudaGetDevice(&after), cudaSuccess);
  EXPECT_EQ(after, before) << "a call changed the caller's current device";
}

TEST_F(NcclGpuTest, TimeoutIsHonouredWhileWorkCompletes) {
  NcclCommunicator& c = *comm_;
  EXPECT_EQ(c.SetTimeout(-1).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(c.SetTimeout(30).ok());
  EXPECT_EQ(c.timeout_seconds(), 30);
  DeviceArray<int64_t> value(std::vector<int64_t>{Rank() + 1});
  ASSERT_TRUE(c.AllReduce(value.get(), value.get(), 1, DType::kI64, ReduceOp::kSum).ok());
  EXPECT_EQ(value.ToHost()[0], int64_t{Size()} * (Size() + 1) / 2);
  ASSERT_TRUE(c.SetTimeout(0).ok());
}

// Rank 0 makes `call` alone on a fresh communicator: it must get DEADLINE_EXCEEDED
// naming `method` within the timeout, not hang, and its communicator is then poisoned.
// The other ranks then all-reduce on theirs, which cannot complete without rank 0 (it
// aborted), so every communicator ends aborted and none waits in NCCL's collective
// finalize. NCCL connects peers lazily, inside the first call that needs them, where
// the deadline does not reach (nccl_communicator.h): every rank first makes both calls
// once together, so the timed calls find their connections made.
void ExpectAMissingPeerTimesOut(const char* method,
                                const std::function<Status(NcclCommunicator&)>& call) {
  Result<std::unique_ptr<NcclCommunicator>> fresh = NcclCommunicator::Create(MpiWorld());
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  NcclCommunicator& c = **fresh;
  DeviceArray<float> word(std::vector<float>{1.0f});
  auto all_reduce = [&] {
    return c.AllReduce(word.get(), word.get(), 1, DType::kF32, ReduceOp::kSum);
  };
  ASSERT_TRUE(all_reduce().ok());
  ASSERT_TRUE(call(c).ok());
  ASSERT_TRUE(c.SetTimeout(1.0).ok());
  if (Rank() == 0) {
    Status s = call(c);
    EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
    EXPECT_NE(s.message().find(method), std::string::npos) << s.ToString();
    EXPECT_TRUE(c.poisoned());
    EXPECT_EQ(c.Barrier().code(), StatusCode::kFailedPrecondition);
  }
  ASSERT_TRUE(MpiWorld().Barrier().ok());
  if (Rank() != 0) {
    Status s = all_reduce();
    EXPECT_FALSE(s.ok()) << "rank 0 aborted; this all-reduce cannot have completed";
  }
  ASSERT_TRUE(MpiWorld().Barrier().ok());
}

TEST_F(NcclGpuTest, AMissingPeerTimesOut) {
  if (Size() < 2) GTEST_SKIP() << "needs 2 ranks";
  DeviceArray<float> value(std::vector<float>(16, 1.0f));
  ExpectAMissingPeerTimesOut("AllReduce", [&](NcclCommunicator& c) {
    return c.AllReduce(value.get(), value.get(), 16, DType::kF32, ReduceOp::kSum);
  });
}

TEST_F(NcclGpuTest, AMissingPeerTimesOutOfAllToAllBlocks) {
  if (Size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const int32_t n = Size();
  // Column q of a [2, n] tensor to rank q (strided, so packing precedes the sends),
  // received as a run of 2.
  std::vector<BlockView> send_blocks(n), recv_blocks(n);
  for (int32_t q = 0; q < n; ++q) {
    const int64_t begin[] = {0, q};
    send_blocks[q] = BlockView::Box(Shape{2, n}, begin, Shape{2, 1});
    recv_blocks[q] = BlockView::Run(2 * q, 2);
  }
  DeviceArray<float> send(std::vector<float>(2 * n, 1.0f));
  DeviceArray<float> recv(std::vector<float>(2 * n, 0.0f));
  ExpectAMissingPeerTimesOut("AllToAllBlocks", [&](NcclCommunicator& c) {
    return c.AllToAllBlocks(send.get(), send_blocks, recv.get(), recv_blocks, DType::kF32);
  });
}

TEST_F(NcclGpuTest, BaseClassChecksUseThisBackendsLimit) {
  NcclCommunicator& c = *comm_;
  const int64_t limit = std::numeric_limits<int64_t>::max() / 8;
  float* none = nullptr;
  ExpectError(c.AllReduce(none, none, limit + 1, DType::kF32, ReduceOp::kSum),
              StatusCode::kOutOfRange,
              "AllReduce: count is " + Str(limit + 1) + ", more than this backend's limit of " +
                  Str(limit) + " elements");
  ExpectError(c.Broadcast(none, 3, DType::kF32, 0), StatusCode::kInvalidArgument,
              "Broadcast: buffer is NULL but holds 3 elements");
  // Every rank saw the same local errors; the communicator still works.
  EXPECT_TRUE(c.Barrier().ok());
}

TEST_F(NcclGpuTest, RegistryCachesByRankList) {
  NcclCommRegistry& registry = NcclCommRegistry::Global();
  const int32_t n = Size(), me = Rank();
  EXPECT_EQ(registry.World().value(), comm_);
  // Same ranks in the same order: the same communicator, whatever the hierarchy.
  Placement all = Placement::Parse("cuda:0-" + Str(n - 1)).value();
  EXPECT_EQ(registry.ForPlacement(all).value(), comm_);
  EXPECT_EQ(registry.ForAxis(all, 0).value(), comm_);
  if (n < 2) return;
  // Reversed order: a new communicator whose rank i is parallel index i.
  std::string reversed_text = "cuda:[";
  for (int32_t r = n - 1; r >= 0; --r) reversed_text += Str(r) + (r > 0 ? "," : "]");
  Placement reversed = Placement::Parse(reversed_text).value();
  NcclCommunicator* back = registry.ForPlacement(reversed).value();
  EXPECT_NE(back, comm_);
  EXPECT_EQ(back->rank(), reversed.index_of(me));
  DeviceArray<int32_t> mine(std::vector<int32_t>{me});
  DeviceArray<int32_t> gathered(std::vector<int32_t>(n, -1));
  ASSERT_TRUE(
      back->AllGatherV(mine.get(), 1, gathered.get(), std::vector<int64_t>(n, 1), {}, DType::kI32)
          .ok());
  const std::vector<int32_t> order = gathered.ToHost();
  for (int32_t i = 0; i < n; ++i) EXPECT_EQ(order[i], reversed.rank_at(i));
}

TEST_F(NcclGpuTest, ClearDestroysAndRecreates) {
  NcclCommRegistry& registry = NcclCommRegistry::Global();
  registry.Clear();
  auto again = registry.World();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  DeviceArray<int64_t> value(std::vector<int64_t>{Rank() + 1});
  ASSERT_TRUE((*again)->AllReduce(value.get(), value.get(), 1, DType::kI64, ReduceOp::kSum).ok());
  EXPECT_EQ(value.ToHost()[0], int64_t{Size()} * (Size() + 1) / 2);
}

}  // namespace
}  // namespace tessera::comm
