// tess_runtime_init / tess_runtime_finalize, the world queries and what CUDA this process has.
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "capi/src/capi_error.h"
#include "capi/src/struct_args.h"
#include "capi/src/tensor_args.h"
#include "core/boxing/host_links.h"
#include "core/comm/call_check.h"
#include "core/comm/communicator.h"
#include "core/comm/env_config.h"
#include "core/comm/mpi_world.h"
#include "core/comm/world_topology.h"
#include "core/common/limits.h"
#include "core/device/device_selection.h"
#include "core/device/host_copy.h"
#include "tessera/tessera.h"
#if defined(TESSERA_WITH_CUDA)
#include "core/comm/nccl/local_device.h"
#include "core/device/device.h"
#endif

using tessera::capi::Report;
using tessera::capi::ReportIn;

namespace {

// options->cuda_device: -1 or a device this process can see.
tessera::Status CheckCudaDevice(const char* function, int32_t device) {
  const std::string field =
      std::string(function) + ": options->cuda_device is " + std::to_string(device);
  if (device < -1) {
    return tessera::InvalidArgument(field +
                                    "; expected -1 (local rank % device count) or a device >= 0");
  }
  if (device == -1) return tessera::Status::Ok();
#if defined(TESSERA_WITH_CUDA)
  tessera::Status s = tessera::comm::CheckDevice(device);
  if (!s.ok()) return tessera::Status(s.code(), field + ": " + s.message());
  return s;
#else
  return tessera::Unimplemented(field +
                                ", but this library was built without CUDA (--config=cuda)");
#endif
}

// options->check_mode (and reserved): whether check mode is on, TESSERA_CHECK deciding
// for -1.
tessera::Result<bool> CheckModeOption(const char* function, const tess_runtime_init_options& o) {
  if (o.reserved != 0) {
    return tessera::InvalidArgument(std::string(function) + ": options->reserved is " +
                                    std::to_string(o.reserved) + "; it must be 0");
  }
  if (o.check_mode == 0 || o.check_mode == 1) return o.check_mode == 1;
  if (o.check_mode != -1) {
    return tessera::InvalidArgument(std::string(function) + ": options->check_mode is " +
                                    std::to_string(o.check_mode) +
                                    "; expected 1 (on), 0 (off) or -1 (TESSERA_CHECK decides)");
  }
  tessera::Result<std::optional<bool>> env = tessera::comm::CheckModeFromEnv();
  if (!env.ok()) {
    return tessera::Status(env.status().code(),
                           std::string(function) + ": " + env.status().message());
  }
  return env->value_or(false);
}

// What this rank drives, for the topology: "" without a CUDA build or a GPU.
std::string DeviceLabel() {
#if defined(TESSERA_WITH_CUDA)
  tessera::Result<int> device = tessera::comm::DefaultDevice();
  if (!device.ok()) return "";
  tessera::Result<std::string> locality = tessera::device::DeviceLocality(*device);
  return locality.ok() ? *locality : "cuda:" + std::to_string(*device);
#else
  return "";
#endif
}

// The topology tess_runtime_init found; FAILED_PRECONDITION naming `function` before.
tessera::Result<const tessera::comm::WorldTopology*> FoundTopology(const char* function) {
  const tessera::comm::WorldTopology* topology = tessera::comm::FoundWorldTopology();
  if (topology == nullptr) {
    return tessera::FailedPrecondition(std::string(function) +
                                       ": the runtime is not initialised (tess_runtime_init)");
  }
  return topology;
}

}  // namespace

extern "C" {

tess_status tess_runtime_init(void) { return tess_runtime_init_with_options(nullptr); }

namespace {

// The threads of the pinned staging's host copies (core/device/host_copy.h):
// TESSERA_COPY_THREADS when set, otherwise this rank's share of its machine's hardware
// threads. With pretend hosts (TESSERA_RANKS_PER_HOST) every rank of the world may
// share one machine, so the share is counted over the world.
tessera::Status ConfigureCopyThreads(const tessera::comm::WorldTopology& topology) {
  constexpr const char* kVariable = "TESSERA_COPY_THREADS";
  tessera::Result<std::optional<int64_t>> set = tessera::comm::EnvInt64(kVariable, 1);
  if (!set.ok()) return set.status();
  if (set->has_value()) {
    if (**set > tessera::device::kMaxCopyThreads) {
      // Worded as EnvInt64's refusals.
      return tessera::InvalidArgument(std::string("environment variable ") + kVariable + " is \"" +
                                      std::to_string(**set) +
                                      "\"; it must be an integer from 1 to " +
                                      std::to_string(tessera::device::kMaxCopyThreads));
    }
    return tessera::device::SetCopyThreads(static_cast<int>(**set));
  }
  const tessera::comm::HostLayout& layout = topology.layout;
  tessera::Result<int32_t> rank = tessera::comm::WorldRank();
  if (!rank.ok()) return rank.status();
  const size_t ranks = topology.pretend_ranks_per_host > 0
                           ? layout.host_of.size()
                           : static_cast<size_t>(layout.host_sizes[layout.host_of[*rank]]);
  return tessera::device::SetCopyThreads(tessera::device::DefaultCopyThreads(
      static_cast<int>(std::thread::hardware_concurrency()), static_cast<int>(ranks)));
}

}  // namespace

tess_status tess_runtime_init_with_options(const tess_runtime_init_options* options) {
  TESS_CAPI_BEGIN
  tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  tessera::Status s = tessera::capi::ReadOptions(
      __func__, "options", "tess_runtime_init_options", options,
      TESS_STRUCT_SIZE_UP_TO(tess_runtime_init_options, cuda_device), &o);
  if (!s.ok()) return Report(s);
  if (std::isnan(o.collective_timeout_seconds) || std::isinf(o.collective_timeout_seconds)) {
    return Report(tessera::InvalidArgument(
        std::string(__func__) + ": options->collective_timeout_seconds is " +
        std::to_string(o.collective_timeout_seconds) +
        "; expected a finite number (>= 0 to set it, negative to keep the default)"));
  }
  if (tessera::Status t = tessera::CheckTimeoutAtMostMax(
          __func__, ": options->collective_timeout_seconds", o.collective_timeout_seconds);
      !t.ok()) {
    return Report(t);
  }
  if (o.mpi_thread_level != TESS_MPI_THREAD_MULTIPLE) {
    return Report(tessera::InvalidArgument(
        std::string(__func__) + ": options->mpi_thread_level is " +
        std::to_string(o.mpi_thread_level) +
        "; only TESS_MPI_THREAD_MULTIPLE (3) is supported: Tessera calls MPI from several "
        "threads without serialising"));
  }
  tessera::Result<bool> check_mode = CheckModeOption(__func__, o);
  if (!check_mode.ok()) return Report(check_mode.status());
  if (tessera::Status d = CheckCudaDevice(__func__, o.cuda_device); !d.ok()) return Report(d);
  if (tessera::Status d = tessera::device::SelectDevice(o.cuda_device); !d.ok()) {
    return Report(tessera::Status(
        d.code(), std::string(__func__) + ": options->cuda_device: " + d.message()));
  }
  if (o.collective_timeout_seconds >= 0) {
    tess_status st = tess_comm_set_collective_timeout(o.collective_timeout_seconds);
    if (st != TESS_OK) return st;
  }
  // -1 on a running runtime (a default init from a binding) keeps the mode chosen.
  if (o.check_mode != -1 || !tessera::comm::WorldInitialized()) {
    tessera::comm::SetCheckMode(*check_mode);
  }
  if (tessera::Status w = tessera::comm::InitWorld(); !w.ok()) return Report(w);
  tessera::Result<const tessera::comm::WorldTopology*> topology =
      tessera::comm::FindWorldTopology(DeviceLabel());
  if (!topology.ok()) return Report(topology.status());
  if (tessera::Status c = ConfigureCopyThreads(**topology); !c.ok()) {
    return Report(tessera::Status(c.code(), std::string(__func__) + ": " + c.message()));
  }
  // Across hosts the boxing planner prices collectives by the host links
  // (core/boxing/host_links.h); set once, before the program plans anything.
  if ((*topology)->host_link_bytes_per_second > 0 &&
      tessera::boxing::CurrentHostLinks() == nullptr) {
    auto links = std::make_shared<tessera::boxing::HostLinks>();
    links->host_of = (*topology)->layout.host_of;
    links->bytes_per_second = (*topology)->host_link_bytes_per_second;
    return Report(tessera::boxing::SetHostLinks(std::move(links)));
  }
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_runtime_finalize(void) {
  TESS_CAPI_BEGIN
  // Bounded by the process timeout (and by any timeout that expired): mpi_world.h.
  tessera::Result<double> timeout = tessera::comm::DefaultCollectiveTimeout();
  return Report(tessera::comm::FinalizeWorld(timeout.ok() ? *timeout : 0));
  TESS_CAPI_END
}

tess_status tess_runtime_world_rank(int32_t* out_rank) {
  TESS_CAPI_REQUIRE(out_rank);
  TESS_CAPI_BEGIN
  tessera::Result<int32_t> rank = tessera::comm::WorldRank();
  if (!rank.ok()) return Report(rank.status());
  *out_rank = *rank;
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_runtime_topology(tess_topology* out) {
  TESS_CAPI_BEGIN
  if (out == nullptr)
    return Report(tessera::InvalidArgument(std::string(__func__) + ": out is NULL"));
  tessera::Result<const tessera::comm::WorldTopology*> found = FoundTopology(__func__);
  if (!found.ok()) return Report(found.status());
  const tessera::comm::HostLayout& layout = (*found)->layout;
  tessera::Result<int32_t> rank = tessera::comm::WorldRank();
  if (!rank.ok()) return Report(rank.status());
  tess_topology full = TESS_TOPOLOGY_INIT;
  full.world_size = static_cast<int32_t>(layout.host_of.size());
  full.world_rank = *rank;
  full.host_count = static_cast<int32_t>(layout.host_sizes.size());
  full.host_index = layout.host_of[*rank];
  full.local_rank = layout.local_rank_of[*rank];
  full.local_size = layout.host_sizes[full.host_index];
  full.min_ranks_per_host = layout.min_host_size;
  full.max_ranks_per_host = layout.max_host_size;
  full.pretend_ranks_per_host = (*found)->pretend_ranks_per_host;
#if defined(TESSERA_WITH_CUDA)
  if (!(*found)->rank_devices[*rank].empty()) {
    tessera::Result<int> device = tessera::comm::DefaultDevice();
    if (device.ok()) full.cuda_device = *device;
  }
#endif
  return Report(tessera::capi::WriteStats(__func__, "out", "tess_topology", full,
                                          TESS_STRUCT_SIZE_UP_TO(tess_topology, cuda_device), out));
  TESS_CAPI_END
}

tess_status tess_runtime_rank_host(int32_t* out_host, int32_t* out_local_rank, int32_t world_rank) {
  TESS_CAPI_BEGIN
  if (out_host == nullptr || out_local_rank == nullptr) {
    return Report(tessera::InvalidArgument(std::string(__func__) + ": " +
                                           (out_host == nullptr ? "out_host" : "out_local_rank") +
                                           " is NULL"));
  }
  tessera::Result<const tessera::comm::WorldTopology*> found = FoundTopology(__func__);
  if (!found.ok()) return Report(found.status());
  const tessera::comm::HostLayout& layout = (*found)->layout;
  const int32_t size = static_cast<int32_t>(layout.host_of.size());
  if (world_rank < 0 || world_rank >= size) {
    return Report(tessera::OutOfRange(std::string(__func__) + ": world_rank " +
                                      std::to_string(world_rank) + " is outside the world of " +
                                      std::to_string(size) + " ranks"));
  }
  *out_host = layout.host_of[world_rank];
  *out_local_rank = layout.local_rank_of[world_rank];
  return TESS_OK;
  TESS_CAPI_END
}

const char* tess_runtime_topology_string(void) {
  // Found once and never changed, so the text is made once; a call before init gets "".
  static std::once_flag made;
  static std::string text;
  const tessera::comm::WorldTopology* topology = tessera::comm::FoundWorldTopology();
  if (topology == nullptr) return "";
  std::call_once(made, [topology] { text = tessera::comm::WorldTopologyString(*topology); });
  return text.c_str();
}

tess_status tess_runtime_world_size(int32_t* out_size) {
  TESS_CAPI_REQUIRE(out_size);
  TESS_CAPI_BEGIN
  tessera::Result<int32_t> size = tessera::comm::WorldSize();
  if (!size.ok()) return Report(size.status());
  *out_size = *size;
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_runtime_cuda_info(int32_t* out_built_with_cuda, int32_t* out_device_count) {
  TESS_CAPI_REQUIRE(out_built_with_cuda);
  TESS_CAPI_REQUIRE(out_device_count);
  TESS_CAPI_BEGIN
#if defined(TESSERA_WITH_CUDA)
  // The count eager's device choice (comm::DefaultDevice) divides by, so the answer
  // says exactly whether a cuda placement's tensors will find a device.
  tessera::Result<int> count = tessera::device::DeviceCount();
  if (!count.ok()) return ReportIn(__func__, count.status());
  *out_built_with_cuda = 1;
  *out_device_count = *count;
#else
  *out_built_with_cuda = 0;
  *out_device_count = 0;
#endif
  return TESS_OK;
  TESS_CAPI_END
}

}  // extern "C"
