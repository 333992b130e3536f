#include "core/boxing/cuda/nccl_boxing_backend.h"

#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <string>

#include "core/boxing/cuda/cuda_local_ops.h"
#include "core/comm/nccl/local_device.h"
#include "core/comm/nccl/nccl_comm_registry.h"
#include "core/comm/nccl/nccl_communicator.h"
#include "core/device/cuda_error.h"
#include "core/device/device_scope.h"
#include "core/memory/device_caching_allocator.h"

namespace tessera::boxing {
namespace {

// A non-blocking stream per device for steps with no communicator (relabels, plans with
// no steps): it neither waits for nor holds up other work on the device. Created on
// first use and never destroyed, like the caching allocators (static destruction races
// CUDA's own teardown).
Result<cudaStream_t> LocalStream(int device) {
  static std::mutex mu;
  static std::map<int, cudaStream_t>* streams = new std::map<int, cudaStream_t>;
  std::lock_guard<std::mutex> lock(mu);
  auto it = streams->find(device);
  if (it != streams->end()) return it->second;
  device::DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device));
  cudaStream_t stream = nullptr;
  const cudaError_t err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (err != cudaSuccess) {
    return device::CudaError(
        "device boxing: cudaStreamCreateWithFlags (device " + std::to_string(device) + ")", err);
  }
  streams->emplace(device, stream);
  return stream;
}

class NcclBackend final : public BoxingBackend {
 public:
  DeviceType device_type() const override { return DeviceType::kCuda; }

  Result<comm::Communicator*> ForAxis(const Placement& placement, int axis) override {
    TESS_ASSIGN_OR_RETURN(comm::NcclCommunicator * c,
                          comm::NcclCommRegistry::Global().ForAxis(placement, axis));
    return static_cast<comm::Communicator*>(c);
  }

  Result<comm::Communicator*> ForRanks(const std::vector<int32_t>& world_ranks) override {
    TESS_ASSIGN_OR_RETURN(comm::NcclCommunicator * c,
                          comm::NcclCommRegistry::Global().ForRanks(world_ranks));
    return static_cast<comm::Communicator*>(c);
  }

  Result<std::shared_ptr<const LocalOps>> OpsFor(comm::Communicator* comm) override {
    if (comm == nullptr) {
      TESS_ASSIGN_OR_RETURN(const int device, comm::DefaultDevice());
      TESS_ASSIGN_OR_RETURN(cudaStream_t stream, LocalStream(device));
      TESS_ASSIGN_OR_RETURN(std::shared_ptr<const CudaLocalOps> ops,
                            CudaLocalOps::Make(device, stream));
      return std::shared_ptr<const LocalOps>(std::move(ops));
    }
    auto* nccl = dynamic_cast<comm::NcclCommunicator*>(comm);
    if (nccl == nullptr) {
      return Internal("device boxing: a step's communicator is not an NCCL communicator");
    }
    TESS_ASSIGN_OR_RETURN(std::shared_ptr<const CudaLocalOps> ops,
                          CudaLocalOps::Make(nccl->device(), nccl->stream()));
    return std::shared_ptr<const LocalOps>(std::move(ops));
  }

  Result<memory::Allocator*> StagingAllocator() override {
    TESS_ASSIGN_OR_RETURN(const int device, comm::DefaultDevice());
    TESS_ASSIGN_OR_RETURN(memory::CachingAllocator * allocator,
                          memory::DeviceCachingAllocator(device));
    return static_cast<memory::Allocator*>(allocator);
  }
};

}  // namespace

BoxingBackend& NcclBoxingBackend() {
  static NcclBackend* backend = new NcclBackend;  // outlives static destructors
  return *backend;
}

Result<BoxingBackend*> CudaBoxingBackend() { return &NcclBoxingBackend(); }

}  // namespace tessera::boxing
