#include "core/boxing/boxing_backend.h"

#include "core/comm/mpi_comm_registry.h"

namespace tessera::boxing {
namespace {

class HostBackend final : public BoxingBackend {
 public:
  DeviceType device_type() const override { return DeviceType::kCpu; }
  Result<comm::Communicator*> ForAxis(const Placement& placement, int axis) override {
    TESS_ASSIGN_OR_RETURN(comm::MpiCommunicator * c,
                          comm::MpiCommRegistry::Global().ForAxis(placement, axis));
    return static_cast<comm::Communicator*>(c);
  }
  Result<comm::Communicator*> ForRanks(const std::vector<int32_t>& world_ranks) override {
    TESS_ASSIGN_OR_RETURN(comm::MpiCommunicator * c,
                          comm::MpiCommRegistry::Global().ForRanks(world_ranks));
    return static_cast<comm::Communicator*>(c);
  }
  Result<std::shared_ptr<const LocalOps>> OpsFor(comm::Communicator*) override {
    // Aliasing an empty owner: the static ops are shared without an allocation.
    return std::shared_ptr<const LocalOps>(std::shared_ptr<const LocalOps>(), &HostLocalOps());
  }
  Result<memory::Allocator*> StagingAllocator() override {
    return static_cast<memory::Allocator*>(nullptr);
  }
};

}  // namespace

BoxingBackend& HostBoxingBackend() {
  static HostBackend* backend = new HostBackend;  // outlives static destructors
  return *backend;
}

}  // namespace tessera::boxing
