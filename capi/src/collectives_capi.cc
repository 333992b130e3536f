// tess_comm_allreduce, tess_bucketed_allreducer_run* and the collective timeout: collectives on
// host buffers over a placement's ranks or the world.
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "capi/src/capi_error.h"
#include "capi/src/comm_args.h"
#include "capi/src/handles.h"
#include "capi/src/struct_args.h"
#include "capi/src/tensor_args.h"
#include "core/comm/bucketed_allreduce.h"
#include "core/comm/call_check.h"
#include "core/comm/comm_checks.h"
#include "core/comm/communicator.h"
#include "core/comm/hierarchical_communicator.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_communicator.h"
#include "core/comm/mpi_world.h"
#include "tessera/tessera.h"

using tessera::DType;
using tessera::InvalidArgument;
using tessera::Placement;
using tessera::Result;
using tessera::Status;
using tessera::StatusCode;
using tessera::capi::MovableDTypeArg;
using tessera::capi::ReduceOpArg;
using tessera::capi::ReportIn;
using tessera::comm::BucketedAllReducer;
using tessera::comm::BucketTensor;
using tessera::comm::Communicator;
using tessera::comm::HierarchicalAlgorithm;
using tessera::comm::HierarchicalCommunicator;
using tessera::comm::MpiCommRegistry;
using tessera::comm::MpiCommunicator;
using tessera::comm::ReduceOp;

// The core reducer plus the call's tensor list, kept so a warm call allocates nothing.
struct tess_bucketed_allreducer {
  std::unique_ptr<BucketedAllReducer> value;
  std::vector<BucketTensor> tensors;
  // The communicator the last run's group resolved to (BucketsCommunicator), so a
  // repeated run looks nothing up.
  const tessera::comm::MpiCommunicator* group = nullptr;
  tessera::comm::Communicator* comm = nullptr;
};

namespace {

// INVALID_ARGUMENT for a negative count or a NULL buffer that holds elements. `index`
// < 0 names the arguments "count" and "buffer", else "counts[index]" and
// "buffers[index]".
Status CheckBuffer(const void* buffer, int64_t count, int64_t index) {
  if (count >= 0 && (buffer != nullptr || count == 0)) return Status::Ok();
  const std::string at = index < 0 ? "" : "[" + std::to_string(index) + "]";
  const std::string count_name = (index < 0 ? "count" : "counts") + at;
  if (count < 0) {
    return InvalidArgument(count_name + " is " + std::to_string(count) + "; it must be >= 0");
  }
  return InvalidArgument((index < 0 ? "buffer" : "buffers") + at + " is NULL but " + count_name +
                         " is " + std::to_string(count));
}

// cpu:[0, ..., size - 1]. Made once: the world's size never changes after tess_runtime_init,
// and looking it up in the registry by placement allocates nothing, where
// MpiCommRegistry::World() builds its rank list on every call.
Result<Placement> WorldPlacement(int32_t size) {
  std::vector<int32_t> ranks(static_cast<size_t>(size));
  for (int32_t r = 0; r < size; ++r) ranks[r] = r;
  return Placement::Make(tessera::DeviceType::kCpu, std::move(ranks), {size});
}

// The group a collective runs over: the world for a NULL placement, else the
// placement's ranks; nullptr when this rank is outside the placement (nothing to do).
Result<MpiCommunicator*> GroupOf(const tess_placement* placement) {
  MpiCommRegistry& registry = MpiCommRegistry::Global();
  if (placement == nullptr) {
    TESS_ASSIGN_OR_RETURN(int32_t size, tessera::comm::WorldSize());
    static const Result<Placement> world = WorldPlacement(size);
    TESS_RETURN_IF_ERROR(world.status());
    return registry.ForPlacement(*world);
  }
  const Placement& p = placement->value;
  if (p.device_type() != tessera::DeviceType::kCpu) {
    return tessera::Unimplemented(std::string("collectives on ") +
                                  tessera::DeviceTypeName(p.device_type()) + " placements (" +
                                  p.ToString() +
                                  ") are not implemented; host buffers need a cpu "
                                  "placement");
  }
  TESS_ASSIGN_OR_RETURN(int32_t me, tessera::comm::WorldRank());
  if (!p.contains(me)) {
    // The registry makes no MPI call for a non-member; it still checks the placement
    // against the world, so every rank rejects a rank the world lacks alike.
    Status s = registry.ForPlacement(p).status();
    if (s.code() == StatusCode::kNotFound) return nullptr;
    return s;
  }
  return registry.ForPlacement(p);
}

struct CollectiveCall {
  const char* name;
  const int64_t* counts;
  size_t num_counts;
  DType dtype;
  ReduceOp op;
};

std::string DescribeCollective(const void* context) {
  const CollectiveCall& c = *static_cast<const CollectiveCall*>(context);
  std::string text = std::string(c.name) + " " + tessera::comm::ReduceOpName(c.op) + " of " +
                     tessera::DTypeName(c.dtype) + " counts [";
  for (size_t i = 0; i < c.num_counts && i < 8; ++i) {
    text += (i ? "," : "") + std::to_string(c.counts[i]);
  }
  return text + (c.num_counts > 8 ? ",...]" : "]");
}

// Check mode: the group agrees on the collective (its element counts, dtype, reduce op
// and algorithm) before making it.
Status AgreeCollective(const char* name, tessera::comm::Communicator& group, const int64_t* counts,
                       size_t num_counts, DType dtype, ReduceOp op,
                       tess_allreduce_algorithm algorithm) {
  const CollectiveCall call{name, counts, num_counts, dtype, op};
  tessera::comm::CallFingerprint fp("collective", name);
  fp.Add(tessera::comm::CallField::kAttributes,
         static_cast<uint64_t>(op) * 16 + static_cast<uint64_t>(algorithm));
  fp.Add(tessera::comm::CallField::kShapes, num_counts);
  for (size_t i = 0; i < num_counts; ++i) {
    fp.Add(tessera::comm::CallField::kShapes, static_cast<uint64_t>(counts[i]));
  }
  fp.AddDType(dtype);
  fp.SetDescribe(&DescribeCollective, &call);
  return tessera::comm::AgreeCall(group, fp);
}

// The host-by-host communicators of tess_comm_allreduce, one per (group, algorithm), made on
// first use and freed before MPI is finalised. Keyed by the registry's communicator,
// which lives as long (until FinalizeWorld).
class HierarchicalCache {
 public:
  static HierarchicalCache& Global() {
    static HierarchicalCache* cache = new HierarchicalCache;  // outlives static destructors
    return *cache;
  }

  // Collective over `group` on a miss (HierarchicalCommunicator::Create).
  Result<Communicator*> Get(const MpiCommunicator& group, HierarchicalAlgorithm algorithm) {
    std::lock_guard<std::mutex> lock(mu_);
    Entry& entry = entries_[&group];
    std::unique_ptr<HierarchicalCommunicator>& slot =
        algorithm == HierarchicalAlgorithm::kAuto ? entry.automatic : entry.forced;
    if (slot == nullptr) {
      tessera::comm::HierarchicalOptions options;
      options.algorithm = algorithm;
      TESS_ASSIGN_OR_RETURN(slot, HierarchicalCommunicator::Create(group, options));
      if (!hooked_) {
        tessera::comm::AddPreFinalizeHook([] { Global().Clear(); });
        hooked_ = true;
      }
    }
    return slot.get();
  }

  Status SetTimeout(double seconds) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [group, entry] : entries_) {
      for (auto* comm : {entry.automatic.get(), entry.forced.get()}) {
        if (comm != nullptr) TESS_RETURN_IF_ERROR(comm->SetTimeout(seconds));
      }
    }
    return Status::Ok();
  }

 private:
  struct Entry {
    std::unique_ptr<HierarchicalCommunicator> automatic;
    std::unique_ptr<HierarchicalCommunicator> forced;
  };

  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.clear();
    hooked_ = false;
  }

  std::mutex mu_;
  bool hooked_ = false;
  std::unordered_map<const MpiCommunicator*, Entry> entries_;
};

// The communicator a bucketed all-reduce over `group` runs on: across hosts, the group's
// auto HierarchicalCommunicator (each bucket's all-reduce goes flat or host by host,
// whichever measured faster for its size: hierarchical_communicator.h); on one host the
// group itself, whose buckets take the shared-memory path (bucketed_allreduce.h).
// Collective over `group` the first time (the host count, the hierarchy).
Result<Communicator*> BucketsCommunicator(MpiCommunicator& group) {
  TESS_ASSIGN_OR_RETURN(const int32_t most_on_a_host, group.MostRanksOnAHost());
  if (most_on_a_host == group.size()) return static_cast<Communicator*>(&group);
  return HierarchicalCache::Global().Get(group, HierarchicalAlgorithm::kAuto);
}

}  // namespace

extern "C" {

tess_status tess_comm_allreduce(void* buffer, int64_t count, tess_dtype dtype, tess_reduce_op op,
                                const tess_placement* placement,
                                tess_allreduce_algorithm algorithm) {
  TESS_CAPI_BEGIN
  // Every local check comes before the group is made: that is collective.
  Status s = CheckBuffer(buffer, count, -1);
  if (!s.ok()) return ReportIn(__func__, s);
  Result<DType> type = MovableDTypeArg(dtype);
  if (!type.ok()) return ReportIn(__func__, type.status());
  Result<ReduceOp> reduce = ReduceOpArg(op);
  if (!reduce.ok()) return ReportIn(__func__, reduce.status());
  if (algorithm < TESS_ALLREDUCE_FLAT || algorithm > TESS_ALLREDUCE_HIERARCHICAL) {
    return ReportIn(__func__, InvalidArgument("algorithm " + std::to_string(algorithm) +
                                              " is not flat 0, auto 1 or hierarchical 2"));
  }
  Result<MpiCommunicator*> group = GroupOf(placement);
  if (!group.ok()) return ReportIn(__func__, group.status());
  if (*group == nullptr) return TESS_OK;
  if (tessera::comm::CheckModeEnabled()) {
    Status agreed = AgreeCollective("allreduce", **group, &count, 1, *type, *reduce, algorithm);
    if (!agreed.ok()) return ReportIn(__func__, agreed);
  }
  Communicator* comm = *group;
  if (algorithm != TESS_ALLREDUCE_FLAT) {
    Result<Communicator*> hierarchical = HierarchicalCache::Global().Get(
        **group, algorithm == TESS_ALLREDUCE_AUTO ? HierarchicalAlgorithm::kAuto
                                                  : HierarchicalAlgorithm::kShardedHosts);
    if (!hierarchical.ok()) return ReportIn(__func__, hierarchical.status());
    comm = *hierarchical;
  }
  return ReportIn(__func__, comm->AllReduce(buffer, buffer, count, *type, *reduce));
  TESS_CAPI_END
}

tess_status tess_bucketed_allreducer_create(tess_bucketed_allreducer** out,
                                            const tess_bucketed_allreducer_options* options) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_BEGIN
  tess_bucketed_allreducer_options o = TESS_BUCKETED_ALLREDUCER_OPTIONS_INIT;
  Status s = tessera::capi::ReadOptions(
      __func__, "options", "tess_bucketed_allreducer_options", options,
      TESS_STRUCT_SIZE_UP_TO(tess_bucketed_allreducer_options, bucket_bytes), &o);
  if (!s.ok()) return tessera::capi::Report(s);
  if (o.bucket_bytes < 0) {
    return ReportIn(__func__,
                    InvalidArgument("options->bucket_bytes is " + std::to_string(o.bucket_bytes) +
                                    "; expected >= 0 (0 = the default, 25 MiB)"));
  }
  tessera::comm::BucketOptions bucket_options;
  if (o.bucket_bytes > 0) bucket_options.bucket_bytes = o.bucket_bytes;
  Result<std::unique_ptr<BucketedAllReducer>> reducer = BucketedAllReducer::Create(bucket_options);
  if (!reducer.ok()) return ReportIn(__func__, reducer.status());
  *out = new tess_bucketed_allreducer{std::move(reducer).value(), {}};
  return TESS_OK;
  TESS_CAPI_END
}

void tess_bucketed_allreducer_destroy(tess_bucketed_allreducer* reducer) { delete reducer; }

tess_status tess_bucketed_allreducer_run(tess_bucketed_allreducer* reducer, void* const* buffers,
                                         const int64_t* counts, size_t num_tensors,
                                         tess_dtype dtype, tess_reduce_op op,
                                         const tess_placement* placement) {
  TESS_CAPI_REQUIRE(reducer);
  if (num_tensors > 0) {
    TESS_CAPI_REQUIRE(buffers);
    TESS_CAPI_REQUIRE(counts);
  }
  TESS_CAPI_BEGIN
  for (size_t i = 0; i < num_tensors; ++i) {
    Status s = CheckBuffer(buffers[i], counts[i], static_cast<int64_t>(i));
    if (!s.ok()) return ReportIn(__func__, s);
  }
  Result<DType> type = MovableDTypeArg(dtype);
  if (!type.ok()) return ReportIn(__func__, type.status());
  Result<ReduceOp> reduce = ReduceOpArg(op);
  if (!reduce.ok()) return ReportIn(__func__, reduce.status());
  Result<MpiCommunicator*> group = GroupOf(placement);
  if (!group.ok()) return ReportIn(__func__, group.status());
  if (*group == nullptr) return TESS_OK;
  if (tessera::comm::CheckModeEnabled()) {
    Status agreed = AgreeCollective("bucketed allreduce", **group, counts, num_tensors, *type,
                                    *reduce, TESS_ALLREDUCE_FLAT);
    if (!agreed.ok()) return ReportIn(__func__, agreed);
  }
  std::vector<BucketTensor>& tensors = reducer->tensors;
  tensors.resize(num_tensors);
  for (size_t i = 0; i < num_tensors; ++i) tensors[i] = BucketTensor{buffers[i], counts[i], *type};
  if (reducer->group != *group) {
    Result<Communicator*> comm = BucketsCommunicator(**group);
    if (!comm.ok()) return ReportIn(__func__, comm.status());
    reducer->group = *group;
    reducer->comm = *comm;
  }
  return ReportIn(__func__, reducer->value->AllReduce(*reducer->comm, tensors, *reduce));
  TESS_CAPI_END
}

tess_status tess_bucketed_allreducer_get_stats(tess_bucketed_allreducer_stats* out,
                                               const tess_bucketed_allreducer* reducer) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(reducer);
  TESS_CAPI_BEGIN
  const BucketedAllReducer::Stats& stats = reducer->value->stats();
  tess_bucketed_allreducer_stats full = TESS_BUCKETED_ALLREDUCER_STATS_INIT;
  full.calls = stats.calls;
  full.plans_built = stats.plans_built;
  full.buckets = stats.buckets;
  full.in_place_buckets = stats.in_place_buckets;
  return tessera::capi::Report(tessera::capi::WriteStats(
      __func__, "out", "tess_bucketed_allreducer_stats", full,
      TESS_STRUCT_SIZE_UP_TO(tess_bucketed_allreducer_stats, in_place_buckets), out));
  TESS_CAPI_END
}

tess_status tess_comm_set_collective_timeout(double seconds) {
  TESS_CAPI_BEGIN
  Status s = tessera::comm::CheckTimeout(__func__, seconds);
  if (!s.ok()) return tessera::capi::Report(s);
  s = tessera::comm::SetDefaultCollectiveTimeout(seconds);
  if (s.ok()) s = MpiCommRegistry::Global().SetTimeout(seconds);
  if (s.ok()) s = HierarchicalCache::Global().SetTimeout(seconds);
  return ReportIn(__func__, s);
  TESS_CAPI_END
}

tess_status tess_comm_collective_timeout(double* out) {
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_BEGIN
  Result<double> seconds = tessera::comm::DefaultCollectiveTimeout();
  if (!seconds.ok()) return ReportIn(__func__, seconds.status());
  *out = *seconds;
  return TESS_OK;
  TESS_CAPI_END
}

}  // extern "C"
