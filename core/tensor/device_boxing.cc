#include "core/tensor/device_boxing.h"

#include <unistd.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/comm/mpi_comm_registry.h"
#include "core/comm/nccl/group_agreement.h"
#include "core/tensor/cuda_device.h"

namespace tessera {
namespace tensor {
namespace {

// Staging of BoxOnDevice for this thread: device memory that only grows, reused by every
// cuda -> cuda layout change of the thread. Tensors live on one device per process.
boxing::BoxingWorkspace& ThreadDeviceWorkspace(const CudaDevice& device) {
  thread_local std::unique_ptr<boxing::BoxingWorkspace> workspace;
  if (workspace == nullptr) workspace = std::make_unique<boxing::BoxingWorkspace>(device.allocator);
  return *workspace;
}

}  // namespace

Status AgreeOnWorld(const Status& local, const char* what) {
  TESS_ASSIGN_OR_RETURN(comm::MpiCommunicator * world, comm::MpiCommRegistry::Global().World());
  if (world->size() == 1) return local;
  return comm::AgreeAcrossGroup(*world, local, what);
}

// A hash collision between two hosts' names only costs the host path.
Result<bool> WorldSharesDevices() {
  static std::atomic<int> known{-1};
  const int cached = known.load(std::memory_order_acquire);
  if (cached >= 0) return cached == 1;
  TESS_ASSIGN_OR_RETURN(comm::MpiCommunicator * world, comm::MpiCommRegistry::Global().World());
  const int64_t n = world->size();
  bool shared = false;
  if (n > 1) {
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    Result<const CudaDevice*> device = LocalCudaDevice();
    const int64_t mine[2] = {static_cast<int64_t>(std::hash<std::string>()(host) >> 1),
                             device.ok() ? (*device)->index : -1};
    std::vector<int64_t> all(2 * n), counts(n, 2), displs(n);
    for (int64_t r = 0; r < n; ++r) displs[r] = 2 * r;
    TESS_RETURN_IF_ERROR(world->AllGatherV(mine, 2, all.data(), counts, displs, DType::kI64));
    for (int64_t a = 0; a < n && !shared; ++a) {
      for (int64_t b = a + 1; b < n && !shared; ++b) {
        shared =
            all[2 * a + 1] >= 0 && all[2 * a] == all[2 * b] && all[2 * a + 1] == all[2 * b + 1];
      }
    }
  }
  known.store(shared ? 1 : 0, std::memory_order_release);
  return shared;
}

Status BoxBetweenDevices(const char* what, const Status& prior, boxing::BoxingLayouts layouts,
                         const void* in, void* out, bool holds_piece,
                         boxing::BoxingWorkspace* workspace) {
  Status ready = prior;
  const CudaDevice* device = nullptr;
  if (ready.ok() && holds_piece) {
    Result<const CudaDevice*> local = LocalCudaDevice();
    ready = local.ok() ? SynchronizeDevice(**local) : local.status();
    if (ready.ok()) device = *local;
  }
  TESS_RETURN_IF_ERROR(AgreeOnWorld(ready, what));
  // Ranks outside both placements hold no piece and touch no device.
  if (device == nullptr) {
    workspace = nullptr;
  } else if (workspace == nullptr) {
    workspace = &ThreadDeviceWorkspace(*device);
  }
  return boxing::BoxOnDevice(boxing::BoxingRequest{std::move(layouts), in, out, workspace});
}

}  // namespace tensor
}  // namespace tessera
