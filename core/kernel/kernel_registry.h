// The kernel registry: (op name, device) -> KernelFn.
//
// Find is on the eager hot path, so it takes no lock and allocates nothing: names live
// in a fixed open-addressing table whose slots are published with release stores and
// never removed, so a reader that sees a slot sees it whole. Register takes a mutex and
// may run concurrently with Find. Registering the same function twice is OK, which
// makes family registration functions (kernels::cpu::RegisterCpuKernels) idempotent.
#ifndef TESSERA_CORE_KERNEL_KERNEL_REGISTRY_H_
#define TESSERA_CORE_KERNEL_KERNEL_REGISTRY_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/status.h"
#include "core/kernel/kernel.h"

namespace tessera {
namespace kernels {

class KernelRegistry {
 public:
  // Distinct op names a registry holds; ample for the built-in ~35 plus user ops.
  static constexpr int kCapacity = 1024;

  KernelRegistry();
  ~KernelRegistry();
  KernelRegistry(const KernelRegistry&) = delete;
  KernelRegistry& operator=(const KernelRegistry&) = delete;

  // The process-wide registry. It starts empty; LinkedKernels() (kernel_providers.h)
  // fills it with the kernel libraries linked into the process. Never destroyed.
  static KernelRegistry& Global();

  // INVALID_ARGUMENT for an empty name, a null fn or an unknown device;
  // ALREADY_EXISTS when a different fn holds (op_name, device); RESOURCE_EXHAUSTED when
  // kCapacity names are taken. Thread-safe.
  Status Register(std::string_view op_name, Device device, KernelFn fn);

  // nullptr when none is registered (or the device is unknown). Lock- and
  // allocation-free; thread-safe.
  KernelFn Find(std::string_view op_name, Device device) const;

  // Sorted names of the ops with a kernel for `device`. For listings and tests.
  std::vector<std::string> Names(Device device) const;

 private:
  struct Slot {
    std::atomic<const std::string*> name{nullptr};
    std::atomic<KernelFn> fns[kNumDevices] = {};
  };
  // The slot holding `op_name`, or the empty slot where it would go (nullptr when the
  // table is full).
  const Slot* Probe(std::string_view op_name) const;

  std::unique_ptr<Slot[]> slots_;
  std::mutex mu_;                                          // serialises writers only
  std::vector<std::unique_ptr<const std::string>> names_;  // owned; guarded by mu_
};

}  // namespace kernels
}  // namespace tessera

#endif  // TESSERA_CORE_KERNEL_KERNEL_REGISTRY_H_
